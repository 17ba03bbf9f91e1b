"""The one write-transaction pattern both SQLite files use (Lumente's own
database and the embedded memory engine's)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

# How long a connection waits for another's write lock before SQLite gives up with
# "database is locked": long enough for any one Lumente transaction to finish.
BUSY_TIMEOUT_S = 15.0


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
