"""Split long id lists for SQL `IN (...)` (SQLite limits host parameters)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# Well under SQLite's smallest default limit on host parameters (999 before 3.32).
IN_LIST_SIZE = 500


def chunks(items: list[Any], size: int = IN_LIST_SIZE) -> Iterable[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
