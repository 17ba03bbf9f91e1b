"""The benchmark harness runs, and docs/benchmarks.md quotes exactly the
results it last wrote (timings are never asserted: they belong to bench/)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import BENCH, load_bench

ROOT = BENCH.parent
report = load_bench("report")
harness = load_bench("run")


def _results() -> list[dict]:
    return [json.loads((BENCH / "results" / f"{s}.json").read_text("utf-8")) for s in harness.SECTIONS]


def test_every_section_has_full_results_with_a_machine_and_several_runs():
    for doc in _results():
        assert doc["quick"] is False, doc["section"]
        assert {"nproc", "cpu", "python", "sqlite"} <= set(doc["machine"])
        for fig in doc["figures"]:
            measured = "(reported)" not in fig["what"]  # the live service's published figures are quoted, not run
            assert len(fig["samples"]) >= 3 or not measured, (doc["section"], fig["what"])
            assert fig["min"] <= fig["median"] <= fig["max"]


def test_the_docs_quote_the_results_verbatim():
    text = (ROOT / "docs" / "benchmarks.md").read_text("utf-8")
    for doc in _results():
        assert report.docs_block(doc) in text, f"docs/benchmarks.md is stale for {doc['section']}: python bench/run.py"


def test_every_cold_start_command_is_held_to_the_floor_and_checked_for_anthropic():
    startup = next(d for d in _results() if d["section"] == "startup")
    held = [f for f in startup["figures"] if f["target"]]
    assert {f["what"].split(" (")[0] for f in held} >= {"lumente --version", "lumente --help", "lumente concepts",
                                                        "lumente memory show"}
    assert all(f["baseline"] == "minimal typer app (floor)" for f in held)


@pytest.mark.slow
def test_the_harness_runs_every_section_quickly(tmp_path):
    before = {p.name: p.read_bytes() for p in (BENCH / "results").iterdir()}
    docs = (ROOT / "docs" / "benchmarks.md").read_bytes()
    proc = subprocess.run([sys.executable, str(BENCH / "run.py"), "--quick"], capture_output=True, text=True,
                          timeout=280, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for section in harness.SECTIONS:
        assert f"== {section}" in proc.stdout
    assert "median" in proc.stdout and "Traceback" not in proc.stderr
    # A quick run is a smoke test: it never overwrites the real figures.
    assert {p.name: p.read_bytes() for p in (BENCH / "results").iterdir()} == before
    assert (ROOT / "docs" / "benchmarks.md").read_bytes() == docs


def test_an_unknown_section_is_a_usage_error():
    proc = subprocess.run([sys.executable, str(BENCH / "run.py"), "--only", "startup,nope"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and "unknown section nope" in proc.stderr


def test_without_lumente_installed_the_harness_says_how_to_install_it():
    # -S: no site-packages, so neither Lumente nor its editable install is importable.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-S", str(BENCH / "run.py"), "--quick"], capture_output=True, text=True,
                          timeout=60, env=env)
    assert proc.returncode == 2 and "pip install -e ." in proc.stderr and "Traceback" not in proc.stderr
