"""A short run of the load harness (bench/serve_load.py) as a smoke test:
10 clients for 2 s against the real served engine, no errors, no lost or
extra rows. Timings are the benchmark's business (docs/benchmarks.md), not
this test's."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "serve_load.py"


def load_harness():
    spec = importlib.util.spec_from_file_location("serve_load", BENCH)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def test_ten_clients_for_two_seconds_lose_nothing(server):
    harness = load_harness()
    result = harness.run_served(server.url, server.key, clients=10, seconds=2.0, processes=1)
    assert result["errors"] == 0, result["error_samples"]
    assert result["lost_or_extra"] == 0, result["problem_samples"]
    assert result["clients"] == 10 and result["rows_written"] >= 10
    assert all(op["requests"] > 0 for op in result["ops"].values())
    assert server.stop() == 0  # and it still stops cleanly after the load
