"""The local database's condition, as `lumente doctor` reads it on a read-only
connection (store/readonly.py): SQLite's integrity check, the schema version,
the journal mode, and what waits in the outbox."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

# How many problems an integrity check lists before it stops.
INTEGRITY_PROBLEMS_SHOWN = 5


@dataclass(frozen=True)
class DatabaseCondition:
    integrity: tuple[str, ...]  # ("ok",) when SQLite finds nothing wrong
    schema_version: int
    journal_mode: str

    @property
    def intact(self) -> bool:
        return self.integrity == ("ok",)


def database_condition(con: sqlite3.Connection) -> DatabaseCondition:
    """SQLite's integrity check, the schema version and the journal mode."""
    integrity = tuple(r[0] for r in con.execute(f"PRAGMA integrity_check({INTEGRITY_PROBLEMS_SHOWN})"))
    version = con.execute("PRAGMA user_version").fetchone()[0]
    journal = con.execute("PRAGMA journal_mode").fetchone()[0]
    return DatabaseCondition(integrity, int(version), str(journal))


@dataclass(frozen=True)
class OutboxState:
    pending: int  # facts queued and not delivered yet
    last_error: str | None  # the newest failed delivery's reason, among those


def outbox_state(con: sqlite3.Connection) -> OutboxState:
    pending, last_error = con.execute(
        """SELECT COUNT(*), (SELECT last_error FROM memory_fact WHERE delivered_at IS NULL AND last_error IS NOT NULL
                             ORDER BY rowid DESC LIMIT 1)
           FROM memory_fact WHERE delivered_at IS NULL"""
    ).fetchone()
    return OutboxState(int(pending), last_error)
