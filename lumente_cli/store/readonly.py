"""Reading the local database without changing it: listings and `lumente
doctor` open it read-only, so they create no file, take no write lock and run
no migration; a database that does not exist yet is theirs to report, not make.
(What doctor reads of the database's condition is in store/condition.py.)

These helpers raise `sqlite3.Error` (the caller decides what a listing or a
check says about it), except `practised_levels`, which a listing calls and which
answers {} rather than fail, and `fact_read_counts`, which answers zeros for a
database that does not have the table yet."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

from lumente_cli.store.chunks import chunks

# How long a read waits for a writer's lock before giving up; a reader must not
# hang behind a running session.
READ_TIMEOUT_S = 5.0
# A listing waits less: it has something to show without the levels.
LISTING_TIMEOUT_S = 2.0


def connect_read_only(database: Path, *, timeout: float = READ_TIMEOUT_S) -> sqlite3.Connection:
    """A connection that cannot write (nor create the file)."""
    return sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True, timeout=timeout)


def practised_levels(database: Path, pseudonym: str | None) -> dict[str, dict[str, int]]:
    """{concept: {part: level}} for this learner, from a database that already exists."""
    if pseudonym is None or not database.exists():
        return {}
    try:
        con = connect_read_only(database, timeout=LISTING_TIMEOUT_S)
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


def count_reads(con: sqlite3.Connection, fact_ids: Iterable[str]) -> dict[str, int]:
    """How many agent calls were given each of `fact_ids` (0 for one never given)."""
    ids = list(dict.fromkeys(fact_ids))
    counts = dict.fromkeys(ids, 0)
    for chunk in chunks(ids):
        marks = ",".join("?" * len(chunk))
        for fact_id, n in con.execute(
            f"SELECT fact_id, COUNT(*) FROM agent_call_fact WHERE fact_id IN ({marks}) GROUP BY fact_id", chunk
        ):
            counts[fact_id] = int(n)
    return counts


def fact_read_counts(database: Path, fact_ids: Iterable[str]) -> dict[str, int]:
    """`count_reads` on the database at `database`, read-only: zeros when it does not
    exist yet or predates the log of agent calls (`memory show` creates nothing)."""
    ids = list(fact_ids)
    if not ids or not database.exists():
        return dict.fromkeys(ids, 0)
    con = connect_read_only(database)
    try:
        return count_reads(con, ids)
    except sqlite3.OperationalError as exc:
        if str(exc).startswith("no such table"):
            return dict.fromkeys(ids, 0)
        raise
    finally:
        con.close()
