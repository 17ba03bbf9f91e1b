"""Lumente's own local database: the only place student text is kept, and the
only source the scoring code reads levels from. Its methods take and return
the frozen records below, never SQLite rows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lumente_cli.store.db import open_database
    from lumente_cli.store.repository import (
        CheckedClaim,
        CheckRound,
        FinishedSession,
        JudgedAnswer,
        LocalStore,
        OutboxFact,
        PartResult,
        PendingFact,
        SessionRecord,
    )

__all__ = ["CheckRound", "CheckedClaim", "FinishedSession", "JudgedAnswer", "LocalStore", "OutboxFact", "PartResult",
           "PendingFact", "SessionRecord", "open_database"]
_FROM_REPOSITORY = {"CheckRound", "CheckedClaim", "FinishedSession", "JudgedAnswer", "LocalStore", "OutboxFact",
                    "PartResult", "PendingFact", "SessionRecord"}


def __getattr__(name: str) -> Any:
    # Imported on first use, so that a listing which only reads (store.readonly) does
    # not load the whole repository.
    if name in _FROM_REPOSITORY:
        from lumente_cli.store import repository

        return getattr(repository, name)
    if name == "open_database":
        from lumente_cli.store.db import open_database

        return open_database
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
