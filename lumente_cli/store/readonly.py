"""Reads of the local database that create nothing: for listings that should show a
learner's levels when there are any, and stay cheap and side-effect free when not."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def practised_levels(database: Path, pseudonym: str | None) -> dict[str, dict[str, int]]:
    """{concept: {part: level}} for this learner, from a database that already exists."""
    if pseudonym is None or not database.exists():
        return {}
    try:
        con = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True, timeout=2)
    except sqlite3.Error:
        return {}
    try:
        rows = con.execute(
            """SELECT level.concept, level.part, level.level FROM level JOIN learner ON learner.id = level.learner_id
               WHERE learner.pseudonym = ?""",
            (pseudonym,),
        ).fetchall()
    except sqlite3.Error:  # an older or damaged database: no levels to show, and no error for a listing
        return {}
    finally:
        con.close()
    found: dict[str, dict[str, int]] = {}
    for concept, part, level in rows:
        found.setdefault(concept, {})[part] = int(level)
    return found
