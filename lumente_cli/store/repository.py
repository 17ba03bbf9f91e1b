"""The local database as one object: a connection plus the session tables
and the memory log. Each method is one short transaction, and none is held
across a prompt or a model call, so two Lumente processes can share the file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lumente_cli.store.checks import CheckedClaim, CheckRound, CheckTables
from lumente_cli.store.db import open_database
from lumente_cli.store.memory_log import MemoryLog, OutboxFact, PendingFact
from lumente_cli.store.scans import ScanTables
from lumente_cli.store.sessions import (
    FinishedSession,
    JudgedAnswer,
    PartResult,
    SessionRecord,
    SessionTables,
    new_session_id,
)

__all__ = ["CheckRound", "CheckedClaim", "FinishedSession", "JudgedAnswer", "LocalStore", "OutboxFact", "PartResult", "PendingFact", "SessionRecord",
           "new_session_id"]


class LocalStore(SessionTables, MemoryLog, ScanTables, CheckTables):
    def __init__(self, path: Path) -> None:
        self.path = path
        self.con = open_database(path)
        self.con.row_factory = sqlite3.Row

    def close(self) -> None:
        self.con.close()
