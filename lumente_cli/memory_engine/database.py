"""SQLite storage: file permissions, WAL, migrations, a connection pool and
short write transactions.

* The directory is created 0700 and the file 0600 (SQLite gives `-wal` and
  `-shm` the file's mode).
* WAL lets readers run beside the one writer; every write is `BEGIN IMMEDIATE`
  so it takes the write lock up front (no read→write upgrade deadlock) and
  waits up to BUSY_TIMEOUT_S for it instead of failing "database is locked".
* Connections are pooled: each call checks one out, so concurrent threads
  never share a connection, and a thread-per-request server does not leak one
  connection per dead thread.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from lumente_cli.memory_engine.normalise import scope_touches
from lumente_cli.memory_engine.schema import MIGRATIONS
from lumente_cli.sqlite_tx import BUSY_TIMEOUT_S, write_tx

T = TypeVar("T")

MAX_IDLE = 8


class StoreError(RuntimeError):
    """The memory file cannot be used (newer schema, unreadable, not SQLite)."""


def _prepare(path: Path) -> None:
    parent = path.parent
    if not parent.exists():
        parent.mkdir(parents=True, mode=0o700)
        os.chmod(parent, 0o700)
    # Never open and close the file when it exists: closing any descriptor of
    # a file drops every POSIX lock this process holds on it, including the
    # locks of SQLite connections other threads have open. That let another
    # process overwrite the WAL under a reader ("database disk image is
    # malformed", "disk I/O error"). Create it only when it is not there yet.
    if not path.exists():
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600))
        except FileExistsError:
            pass
    for candidate in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            os.chmod(candidate, 0o600)
        except FileNotFoundError:
            pass
        except PermissionError:  # not ours to tighten; SQLite will still work
            pass


def _retry_locked(fn: Callable[[], T], attempts: int = 50) -> T | None:
    """Run fn, retrying briefly when SQLite reports a lock that its busy
    handler does not cover (switching the journal mode)."""
    for i in range(attempts):
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if ("locked" not in str(exc) and "busy" not in str(exc)) or i == attempts - 1:
                raise
            time.sleep(0.02 * (i + 1))
    return None


class Store:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        _prepare(self.path)
        self._idle: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._write_lock = threading.RLock()
        self._closed = False
        with self.connection() as con:
            self._migrate(con)

    # ------------------------------------------------------------ connections

    def _open(self) -> sqlite3.Connection:
        con = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        try:
            con.row_factory = sqlite3.Row
            con.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
            mode = con.execute("PRAGMA journal_mode").fetchone()[0]
            if mode.lower() != "wal":
                _retry_locked(lambda: con.execute("PRAGMA journal_mode=WAL").fetchone())
            con.execute("PRAGMA synchronous=NORMAL")
            con.create_function("scope_touches", 2, scope_touches, deterministic=True)
        except sqlite3.DatabaseError as exc:
            con.close()
            raise StoreError(f"cannot open the memory file {self.path}: {exc}") from exc
        return con

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        if self._closed:
            raise StoreError("the memory store is closed")
        with self._lock:
            con = self._idle.pop() if self._idle else None
        if con is None:
            con = self._open()
        healthy = True
        try:
            yield con
        except sqlite3.DatabaseError:
            healthy = False
            raise
        finally:
            if con.in_transaction:
                try:
                    con.execute("ROLLBACK")
                except sqlite3.Error:
                    healthy = False
            with self._lock:
                keep = healthy and not self._closed and len(self._idle) < MAX_IDLE
                if keep:
                    self._idle.append(con)
            if not keep:
                con.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction; rolled back if the block raises.

        Writers in this process queue on a lock before asking SQLite: SQLite's
        busy handler polls with growing sleeps, which under many threads (a served
        engine) made the slowest writes many times slower than the rest.
        Other processes still meet the busy handler, as before."""
        if not self._write_lock.acquire(timeout=2 * BUSY_TIMEOUT_S):
            raise StoreError("the memory store is busy: a write waited too long for its turn")
        try:
            with self.connection() as con, write_tx(con):
                yield con
        finally:
            self._write_lock.release()

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every query inside sees one snapshot."""
        with self.connection() as con:
            con.execute("BEGIN")
            try:
                yield con
            finally:
                if con.in_transaction:
                    con.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for con in idle:
            con.close()

    # ------------------------------------------------------------- migrations

    def _migrate(self, con: sqlite3.Connection) -> None:
        version = con.execute("PRAGMA user_version").fetchone()[0]
        if version == len(MIGRATIONS):
            return
        con.execute("BEGIN IMMEDIATE")  # a racing process waits here, then sees the new version
        try:
            version = con.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                raise StoreError(
                    f"{self.path} was written by a newer Lumente (memory schema {version}); upgrade Lumente"
                )
            for i in range(version, len(MIGRATIONS)):
                for statement in MIGRATIONS[i]:
                    con.execute(statement)
                con.execute(f"PRAGMA user_version={i + 1}")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")
