"""Split long id lists for SQL `IN (...)` (SQLite limits host parameters)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def chunks(items: list[Any], size: int) -> Iterable[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
