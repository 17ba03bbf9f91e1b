"""One measured figure: its samples, their median, min and max, and the target
it is held to. Every section of the harness returns a list of these, so the
table, the JSON results and docs/benchmarks.md all come from one shape."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Figure:
    section: str
    what: str
    unit: str  # "ms", "µs", "facts/s", "req/s", "MiB"
    samples: list[float]
    note: str = ""
    # Filled in by the section once every figure of the run is known.
    ratio: float | None = None  # median ÷ the baseline's median (or the inverse for rates, see `higher_is_better`)
    baseline: str | None = None
    target: str | None = None
    met: bool | None = None
    higher_is_better: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def low(self) -> float:
        return min(self.samples)

    @property
    def high(self) -> float:
        return max(self.samples)

    def against(self, base: Figure) -> float:
        """This figure's median over the baseline's, as ratio (a ×-factor)."""
        self.baseline = base.what
        self.ratio = self.median / base.median
        return self.ratio

    def hold_to(self, target: str, met: bool) -> Figure:
        self.target, self.met = target, met
        return self

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out.update(median=round(self.median, 4), min=round(self.low, 4), max=round(self.high, 4))
        out["samples"] = [round(s, 4) for s in self.samples]
        if self.ratio is not None:
            out["ratio"] = round(self.ratio, 3)
        return out


def repeat(fn: Callable[[], Any], *, runs: int, warmup: int = 1) -> list[float]:
    """Wall time of fn in milliseconds, `runs` times after `warmup` unmeasured calls."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def fmt_number(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def verdict(fig: Figure) -> str:
    if fig.met is None:
        return ""
    return "met" if fig.met else "**missed**"


def markdown_table(figures: list[Figure]) -> str:
    lines = ["| what | median | min | max | unit | ratio | target | |",
             "| --- | ---: | ---: | ---: | --- | ---: | --- | --- |"]
    for f in figures:
        ratio = f"{f.ratio:.2f}×" if f.ratio is not None else ""
        lines.append(f"| {f.what} | {fmt_number(f.median)} | {fmt_number(f.low)} | {fmt_number(f.high)} | {f.unit} "
                     f"| {ratio} | {f.target or ''} | {verdict(f)} |")
    return "\n".join(lines)


def text_table(figures: list[Figure]) -> str:
    rows = [("what", "median", "min", "max", "unit", "ratio", "target", "")]
    for f in figures:
        rows.append((f.what, fmt_number(f.median), fmt_number(f.low), fmt_number(f.high), f.unit,
                     f"{f.ratio:.2f}x" if f.ratio is not None else "", f.target or "",
                     "" if f.met is None else ("met" if f.met else "MISSED")))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    right = {1, 2, 3, 5}
    return "\n".join("  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
                     for r in rows)
