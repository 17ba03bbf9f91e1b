"""Tiny terminal charts: sparklines for levels, paired bars for calibration."""

from __future__ import annotations

BLOCKS = "▁▂▃▄▅▆▇█"
ASCII_BLOCKS = "_.-:=+*#"


def sparkline(values: list[int], lo: int, hi: int, *, ascii_only: bool = False) -> str:
    chars = ASCII_BLOCKS if ascii_only else BLOCKS
    span = (hi - lo) or 1
    return "".join(chars[min(7, max(0, round((v - lo) / span * 7)))] for v in values)


def bar(value: int, maximum: int, *, ascii_only: bool = False) -> str:
    full, empty = ("#", ".") if ascii_only else ("█", "·")
    return full * value + empty * (maximum - value)
