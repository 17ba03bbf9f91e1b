"""The recall and write benchmarks still run (their quick mode, a few seconds)
and return the figures the docs are written from. No timing is asserted: a
busy machine must not fail the suite."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load(name: str):
    """Import bench/<name>.py; the path it adds for its siblings is taken out
    again, so no bench module can stand in for a test helper of the same name."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    path = list(sys.path)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = path
    return module


@pytest.mark.parametrize("name", ["recall", "writes"])
def test_quick_benchmark_returns_figures_with_medians_and_targets(name):
    figures = load(name).measure(quick=True)
    assert figures and all(f.samples and f.low <= f.median <= f.high for f in figures)
    held = [f for f in figures if f.target is not None]
    assert held and all(f.met is not None and f.ratio is not None for f in held)
    assert all(f.to_json()["median"] == round(f.median, 4) for f in figures)


def test_recall_benchmark_holds_the_largest_size_of_each_read_to_the_smallest():
    figures = load("recall").measure(quick=True)
    held = [f for f in figures if f.target is not None]
    assert len(held) == 6 and all(f.extra["rows_per_key"] == 100 for f in held)
    assert all(f.baseline is not None and f.baseline.endswith("10 rows/key") for f in held)
