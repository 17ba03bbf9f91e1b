"""Reads and writes on the local database, one short transaction each.

Nothing here holds a transaction across a prompt or a model call, so two
Lumente processes can share the file.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from lumente_cli.parts import PARTS, START_LEVEL, PartKey
from lumente_cli.session import Event, SessionState
from lumente_cli.sqlite_tx import write_tx
from lumente_cli.store.db import open_database
from lumente_cli.timeutil import now

_EVENT = TypeAdapter(Event)


@dataclass(frozen=True)
class SessionRecord:
    id: str
    learner_id: int
    concept: str
    status: str
    provider: str
    started_at: str
    updated_at: str
    finished_at: str | None
    initial: SessionState
    state: SessionState
    events: tuple[Any, ...]
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class PendingFact:
    idempotency_key: str
    scope: str
    session_id: str | None
    entity: str
    key: str
    body: dict[str, Any]
    attempts: int


def new_session_id() -> str:
    """Time-ordered and random: 's-' + milliseconds in hex + 6 random hex digits."""
    return f"s-{int(time.time() * 1000):x}{secrets.token_hex(3)}"


class LocalStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.con = open_database(path)
        self.con.row_factory = sqlite3.Row

    def close(self) -> None:
        self.con.close()

    # learners and levels -----------------------------------------------------

    def learner_id(self, pseudonym: str) -> int:
        row = self.con.execute("SELECT id FROM learner WHERE pseudonym = ?", (pseudonym,)).fetchone()
        if row:
            return int(row["id"])
        with write_tx(self.con):
            self.con.execute(
                "INSERT OR IGNORE INTO learner(pseudonym, created_at) VALUES (?, ?)", (pseudonym, now())
            )
            return int(self.con.execute("SELECT id FROM learner WHERE pseudonym = ?", (pseudonym,)).fetchone()[0])

    def find_learner(self, pseudonym: str) -> int | None:
        row = self.con.execute("SELECT id FROM learner WHERE pseudonym = ?", (pseudonym,)).fetchone()
        return int(row["id"]) if row else None

    def levels(self, learner_id: int, concept: str) -> dict[PartKey, int]:
        rows = self.con.execute(
            "SELECT part, level FROM level WHERE learner_id = ? AND concept = ?", (learner_id, concept)
        ).fetchall()
        found = {row["part"]: int(row["level"]) for row in rows}
        return {part: found.get(part, START_LEVEL) for part in PARTS}

    # sessions ------------------------------------------------------------------

    def create_session(self, learner_id: int, concept: str, provider: str, initial: SessionState) -> SessionRecord:
        sid, stamp = new_session_id(), now()
        payload = initial.model_dump_json()
        with write_tx(self.con):
            self.con.execute(
                """INSERT INTO session(id, learner_id, concept, status, provider, started_at, updated_at,
                   initial_state, state) VALUES (?, ?, ?, 'active', ?, ?, ?, ?, ?)""",
                (sid, learner_id, concept, provider, stamp, stamp, payload, payload),
            )
        return self.session(sid)  # type: ignore[return-value]

    def session(self, session_id: str) -> SessionRecord | None:
        row = self.con.execute("SELECT * FROM session WHERE id = ?", (session_id,)).fetchone()
        return self._record(row) if row else None

    def unfinished_session(self, learner_id: int, concept: str) -> SessionRecord | None:
        """The newest paused (or crashed-while-active) session on this concept."""
        row = self.con.execute(
            """SELECT * FROM session WHERE learner_id = ? AND concept = ? AND status IN ('paused', 'active')
               ORDER BY updated_at DESC LIMIT 1""",
            (learner_id, concept),
        ).fetchone()
        return self._record(row) if row else None

    def _record(self, row: sqlite3.Row) -> SessionRecord:
        events = tuple(
            _EVENT.validate_json(r["event"])
            for r in self.con.execute(
                "SELECT event FROM engine_event WHERE session_id = ? ORDER BY seq", (row["id"],)
            )
        )
        return SessionRecord(
            id=row["id"],
            learner_id=row["learner_id"],
            concept=row["concept"],
            status=row["status"],
            provider=row["provider"],
            started_at=row["started_at"],
            updated_at=row["updated_at"],
            finished_at=row["finished_at"],
            initial=SessionState.model_validate_json(row["initial_state"]),
            state=SessionState.model_validate_json(row["state"]),
            events=events,
            input_tokens=row["input_tokens"],
            output_tokens=row["output_tokens"],
        )

    def record_step(self, session_id: str, event: Any, state: SessionState) -> None:
        """Append one engine event and the state it produced, atomically."""
        with write_tx(self.con):
            seq = self.con.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM engine_event WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
            self.con.execute(
                "INSERT INTO engine_event(session_id, seq, event) VALUES (?, ?, ?)",
                (session_id, seq, _EVENT.dump_json(event).decode()),
            )
            self.con.execute(
                "UPDATE session SET state = ?, prediction = ?, updated_at = ?, status = 'active' WHERE id = ?",
                (state.model_dump_json(), state.prediction, now(), session_id),
            )

    def record_answer(
        self, session_id: str, part: PartKey, kind: str, level: int, text: str, verdict: str, feedback: str
    ) -> None:
        with write_tx(self.con):
            self.con.execute(
                """INSERT INTO answer(session_id, part, kind, level, text, verdict, feedback, at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
                (session_id, part, kind, level, text, verdict, feedback, now()),
            )

    def log_event(self, session_id: str, kind: str, data: dict[str, Any]) -> None:
        with write_tx(self.con):
            self.con.execute(
                "INSERT INTO event(session_id, kind, part, data, at) VALUES (?, ?, ?, ?, ?)",
                (session_id, kind, data.get("part"), json.dumps(data, ensure_ascii=False), now()),
            )

    def set_status(self, session_id: str, status: str) -> None:
        with write_tx(self.con):
            self.con.execute("UPDATE session SET status = ?, updated_at = ? WHERE id = ?", (status, now(), session_id))

    def add_usage(self, session_id: str, input_tokens: int, output_tokens: int) -> None:
        if not (input_tokens or output_tokens):
            return
        with write_tx(self.con):
            self.con.execute(
                "UPDATE session SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ? WHERE id = ?",
                (input_tokens, output_tokens, session_id),
            )

    def finish_session(self, record: SessionRecord, state: SessionState) -> None:
        """Mark finished, keep each part's result, and carry the new levels over. One transaction."""
        stamp = now()
        with write_tx(self.con):
            self.con.execute(
                """UPDATE session SET status = 'finished', state = ?, score = ?, prediction = ?,
                   finished_at = ?, updated_at = ? WHERE id = ?""",
                (state.model_dump_json(), state.score, state.prediction, stamp, stamp, record.id),
            )
            for p in state.parts:
                assert p.answer is not None and p.points is not None and p.new_level is not None
                self.con.execute(
                    """INSERT OR REPLACE INTO part_result(session_id, part, level, new_level, verdict, question,
                       points, help_taps) VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
                    (record.id, p.part, p.level, p.new_level, p.answer, p.question, p.points, p.help_taps),
                )
                self.con.execute(
                    """INSERT INTO level(learner_id, concept, part, level, updated_at) VALUES (?, ?, ?, ?, ?)
                       ON CONFLICT (learner_id, concept, part) DO UPDATE SET level = excluded.level,
                       updated_at = excluded.updated_at""",
                    (record.learner_id, record.concept, p.part, p.new_level, stamp),
                )

    def has_finished_part(self, learner_id: int, concept: str, part: PartKey, *, before_session: str) -> bool:
        row = self.con.execute(
            """SELECT 1 FROM part_result r JOIN session s ON s.id = r.session_id
               WHERE s.learner_id = ? AND s.concept = ? AND r.part = ? AND s.status = 'finished' AND s.id != ?
               LIMIT 1""",
            (learner_id, concept, part, before_session),
        ).fetchone()
        return row is not None

    def finished_sessions(self, learner_id: int, concept: str | None = None) -> list[sqlite3.Row]:
        sql = "SELECT * FROM session WHERE learner_id = ? AND status = 'finished'"
        args: list[Any] = [learner_id]
        if concept:
            sql += " AND concept = ?"
            args.append(concept)
        return self.con.execute(sql + " ORDER BY finished_at", args).fetchall()

    def part_results(self, session_ids: Sequence[str]) -> dict[str, dict[str, sqlite3.Row]]:
        out: dict[str, dict[str, sqlite3.Row]] = {sid: {} for sid in session_ids}
        for chunk in _chunks(list(session_ids), 500):
            marks = ",".join("?" * len(chunk))
            for row in self.con.execute(f"SELECT * FROM part_result WHERE session_id IN ({marks})", chunk):
                out[row["session_id"]][row["part"]] = row
        return out

    def delete_learner_sessions(self, learner_id: int) -> int:
        """Delete every local session, answer and level of one learner (an explicit choice)."""
        with write_tx(self.con):
            count = self.con.execute("SELECT COUNT(*) FROM session WHERE learner_id = ?", (learner_id,)).fetchone()[0]
            self.con.execute("DELETE FROM session WHERE learner_id = ?", (learner_id,))
            self.con.execute("DELETE FROM level WHERE learner_id = ?", (learner_id,))
        return int(count)

    # agent calls (read counts) ---------------------------------------------------

    def record_agent_call(
        self,
        session_id: str | None,
        agent: str,
        provider: str,
        *,
        scope: str | None,
        facts_given: Iterable[str],
        cites_kept: Sequence[str] = (),
        cites_dropped: Sequence[str] = (),
    ) -> None:
        with write_tx(self.con):
            cur = self.con.execute(
                """INSERT INTO agent_call(session_id, agent, provider, scope, cites_kept, cites_dropped, at)
                   VALUES (?, ?, ?, ?, ?, ?, ?)""",
                (session_id, agent, provider, scope, json.dumps(list(cites_kept)), json.dumps(list(cites_dropped)), now()),
            )
            self.con.executemany(
                "INSERT OR IGNORE INTO agent_call_fact(call_id, fact_id) VALUES (?, ?)",
                [(cur.lastrowid, fid) for fid in facts_given],
            )

    def read_counts(self, fact_ids: Iterable[str]) -> dict[str, int]:
        ids = list(dict.fromkeys(fact_ids))
        counts = dict.fromkeys(ids, 0)
        for chunk in _chunks(ids, 500):
            marks = ",".join("?" * len(chunk))
            for row in self.con.execute(
                f"SELECT fact_id, COUNT(*) AS n FROM agent_call_fact WHERE fact_id IN ({marks}) GROUP BY fact_id", chunk
            ):
                counts[row["fact_id"]] = int(row["n"])
        return counts

    # memory facts: queue, outbox, delivery log -------------------------------------

    def queue_facts(self, rows: Iterable[tuple[str, str, str | None, str, str, dict[str, Any]]]) -> int:
        """Queue (idempotency_key, scope, session, entity, key, body); a key already queued is kept as is."""
        stamp = now()
        with write_tx(self.con):
            before = self.con.total_changes
            self.con.executemany(
                """INSERT OR IGNORE INTO memory_fact(idempotency_key, scope, session_id, entity, key, body, queued_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?)""",
                [(k, scope, sid, ent, key, json.dumps(body, sort_keys=True), stamp) for k, scope, sid, ent, key, body in rows],
            )
            return self.con.total_changes - before

    def pending_facts(self, scope: str | None = None) -> list[PendingFact]:
        sql = "SELECT * FROM memory_fact WHERE delivered_at IS NULL"
        args: list[Any] = []
        if scope is not None:
            sql += " AND scope = ?"
            args.append(scope)
        rows = self.con.execute(sql + " ORDER BY queued_at, rowid", args).fetchall()
        return [
            PendingFact(r["idempotency_key"], r["scope"], r["session_id"], r["entity"], r["key"], json.loads(r["body"]), r["attempts"])
            for r in rows
        ]

    def count_pending(self, scope: str | None = None) -> int:
        sql = "SELECT COUNT(*) FROM memory_fact WHERE delivered_at IS NULL"
        args: list[Any] = []
        if scope is not None:
            sql += " AND scope = ?"
            args.append(scope)
        return int(self.con.execute(sql, args).fetchone()[0])

    def mark_delivered(self, idempotency_key: str, fact_id: str | None) -> None:
        with write_tx(self.con):
            self.con.execute(
                """UPDATE memory_fact SET delivered_at = ?, fact_id = ?, attempts = attempts + 1, last_error = NULL
                   WHERE idempotency_key = ?""",
                (now(), fact_id, idempotency_key),
            )

    def mark_failed(self, idempotency_key: str, error: str) -> None:
        with write_tx(self.con):
            self.con.execute(
                "UPDATE memory_fact SET attempts = attempts + 1, last_error = ? WHERE idempotency_key = ?",
                (error[:500], idempotency_key),
            )

    def fact_ids_of_session(self, session_id: str) -> set[str]:
        rows = self.con.execute(
            "SELECT fact_id FROM memory_fact WHERE session_id = ? AND fact_id IS NOT NULL", (session_id,)
        ).fetchall()
        return {r["fact_id"] for r in rows}

    def has_fact_key(self, scope: str, entity: str, key: str) -> bool:
        """Whether Lumente already wrote (or queued) this key for this entity since the last forget."""
        row = self.con.execute(
            "SELECT 1 FROM memory_fact WHERE scope = ? AND entity = ? AND key = ? LIMIT 1", (scope, entity, key)
        ).fetchone()
        return row is not None

    def forget_scope(self, scope: str) -> dict[str, int]:
        """Clear every local cache tied to a memory scope: the outbox, the delivery log, read counts."""
        with write_tx(self.con):
            pending = self.con.execute(
                "SELECT COUNT(*) FROM memory_fact WHERE scope = ? AND delivered_at IS NULL", (scope,)
            ).fetchone()[0]
            facts = self.con.execute("DELETE FROM memory_fact WHERE scope = ?", (scope,)).rowcount
            reads = self.con.execute(
                "DELETE FROM agent_call_fact WHERE call_id IN (SELECT id FROM agent_call WHERE scope = ?)", (scope,)
            ).rowcount
        return {"outbox": int(pending), "fact_log": int(facts), "read_counts": int(reads)}


def _chunks(items: list[Any], size: int) -> Iterable[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
