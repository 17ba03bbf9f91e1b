"""Opening the SQLite file safely: 0600, WAL, a busy timeout, and versioned migrations."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from lumente_cli.errors import StorageError
from lumente_cli.paths import ensure_private_dir
from lumente_cli.sqlite_tx import BUSY_TIMEOUT_S, write_tx
from lumente_cli.store.migrations import MIGRATIONS


def open_database(path: Path) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the local database.

    Every failure becomes a StorageError naming the file; the file itself is
    never deleted or rewritten when it cannot be read.
    """
    try:
        ensure_private_dir(path.parent)
    except OSError as exc:
        raise StorageError(
            f"cannot create the data directory {path.parent}: {exc.strerror or exc}.",
            hint="Set LUMENTE_HOME or XDG_DATA_HOME to a writable folder.",
        ) from None
    existed = path.exists()
    old = os.umask(0o077)
    try:
        con = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise StorageError(f"cannot open the database {path}: {exc}.") from None
    finally:
        os.umask(old)
    try:
        if existed:
            os.chmod(path, 0o600)
        _use_wal(con)
        con.execute("PRAGMA synchronous=NORMAL")
        con.execute("PRAGMA foreign_keys=ON")
        migrate(con, path)
    except sqlite3.DatabaseError as exc:
        con.close()
        raise _explain(exc, path) from None
    except PermissionError as exc:
        con.close()
        raise StorageError(f"cannot write {path}: {exc.strerror or exc}.") from None
    return con


def _use_wal(con: sqlite3.Connection) -> None:
    """Switch a new file to WAL. The switch needs an exclusive lock and
    SQLite does not wait for it (no busy handler), so two first runs at the
    same moment got "database is locked"; wait for it here instead."""
    for attempt in range(40):
        try:
            if con.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                con.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if ("locked" not in str(exc) and "busy" not in str(exc)) or attempt == 39:
                raise
            time.sleep(0.01 * (attempt + 1))  # about 8 s in all


def _explain(exc: sqlite3.DatabaseError, path: Path) -> StorageError:
    text = str(exc)
    if "not a database" in text or "malformed" in text:
        return StorageError(
            f"the database {path} is damaged or is not a Lumente database ({text}).",
            hint="Nothing was changed. Move the file aside to start fresh, or restore it from a backup.",
        )
    if "readonly" in text or "unable to open" in text:
        return StorageError(f"cannot write the database {path} ({text}).", hint="Check the folder's permissions.")
    return StorageError(f"the database {path} could not be used ({text}).")


def migrate(con: sqlite3.Connection, path: Path) -> None:
    with write_tx(con):
        version = con.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            raise StorageError(
                f"the database {path} was written by a newer Lumente (schema {version}, this one knows {len(MIGRATIONS)}).",
                hint="Upgrade Lumente.",
            )
        for index in range(version, len(MIGRATIONS)):
            for statement in MIGRATIONS[index]:
                con.execute(statement)
            con.execute(f"PRAGMA user_version={index + 1}")


def schema_version(con: sqlite3.Connection) -> int:
    return con.execute("PRAGMA user_version").fetchone()[0]
