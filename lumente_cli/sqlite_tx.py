"""The one write-transaction pattern both SQLite files use (Lumente's own
database and the embedded memory engine's)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def write_tx(con: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Take the write lock up front (no read-to-write upgrade deadlock between
    processes); commit on success, roll back if the block raises."""
    con.execute("BEGIN IMMEDIATE")
    try:
        yield con
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
