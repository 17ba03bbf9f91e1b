"""Category lifecycle (contract §2.6, §11.15), applied lazily on read.

The service's hourly sweep expires `context` facts 7 days after their known
time. The embedded engine runs no sweep: a `context` row whose `createdAt` is
7 days or more in the past is simply left out of current and `asOf` reads, and
history shows it closed at `createdAt + 7 days`. Nothing is rewritten, so the
supersession links stay exactly as written. `identity` and `knowledge` rows
never expire.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta

from lumente_cli.timeutil import format_time, parse_instant

CONTEXT_TTL = timedelta(days=7)


def expires_at(row: sqlite3.Row) -> datetime | None:
    if row["memory_category"] != "context":
        return None
    return parse_instant(row["created_at"]) + CONTEXT_TTL


def expired(row: sqlite3.Row, now: datetime) -> bool:
    end = expires_at(row)
    return end is not None and end <= now


def shown_valid_until(row: sqlite3.Row, now: datetime) -> str | None:
    """`validUntil` as reads report it: the stored value, or the expiry of an
    open `context` row whose TTL has passed."""
    if row["valid_until"] is not None:
        return row["valid_until"]
    end = expires_at(row)
    return format_time(end) if end is not None and end <= now else None
