"""A learner's practice and check history, read without writing: `lumente
progress` opens the database read-only, so it creates no file, takes no
write lock and loads none of the store's writing side (the outbox, scans).
A database from an older Lumente is left to `LocalStore`, which migrates it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lumente_cli.store.checks import CheckTables
from lumente_cli.store.migrations import MIGRATIONS
from lumente_cli.store.readonly import connect_read_only
from lumente_cli.store.sessions import SessionTables


class HistoryReader(SessionTables, CheckTables):
    """The session and check tables' reads (`find_learner`, `finished_sessions`,
    `check_rounds`...) on a read-only connection; their writes would fail."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con
        self.con.row_factory = sqlite3.Row

    def close(self) -> None:
        self.con.close()


def read_history(database: Path) -> HistoryReader | None:
    """The history in `database`, or None when there is no database yet or it
    has an older schema than this Lumente's (open a LocalStore then)."""
    if not database.exists():
        return None
    con = connect_read_only(database)
    try:
        current = con.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    except sqlite3.Error:
        con.close()
        raise
    if not current:
        con.close()
        return None
    return HistoryReader(con)
