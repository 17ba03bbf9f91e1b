"""The recall and write benchmarks still run (their quick mode, a few seconds)
and return the figures the docs are written from. No timing is asserted: a
busy machine must not fail the suite."""

from __future__ import annotations

import pytest

from helpers import load_bench


@pytest.mark.parametrize("name", ["recall", "writes"])
def test_quick_benchmark_returns_figures_with_medians_and_targets(name):
    figures = load_bench(name).measure(quick=True)
    assert figures and all(f.samples and f.low <= f.median <= f.high for f in figures)
    held = [f for f in figures if f.target is not None]
    assert held and all(f.met is not None and f.ratio is not None for f in held)
    assert all(f.to_json()["median"] == round(f.median, 4) for f in figures)


def test_recall_benchmark_holds_the_largest_size_of_each_read_to_the_smallest():
    figures = load_bench("recall").measure(quick=True)
    held = [f for f in figures if f.target is not None]
    assert len(held) == 6 and all(f.extra["rows_per_key"] == 100 for f in held)
    assert all(f.baseline is not None and f.baseline.endswith("10 rows/key") for f in held)
