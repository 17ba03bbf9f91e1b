"""Learners, levels, sessions, answers and the event log."""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from lumente_cli.parts import PARTS, START_LEVEL, PartKey
from lumente_cli.sqlite_tx import write_tx
from lumente_cli.store.chunks import chunks
from lumente_cli.timeutil import now

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from lumente_cli.session import SessionState


def process_tag(pid: int | None = None) -> str:
    """'host:pid:start': the start time tells a live holder from a reused pid."""
    import os
    import socket

    pid = os.getpid() if pid is None else pid
    return f"{socket.gethostname()}:{pid}:{_start_time(pid)}"


def _start_time(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[19]  # field 22, after the command name
    except (OSError, IndexError):
        return ""


# A holder on another machine (a data folder shared over a network) cannot be asked
# whether it still runs; after this long without a step it is taken to be gone.
FOREIGN_HOLD_S = 6 * 3600


def _still_running(holder: str, held_at: str | None) -> bool:
    import os
    import socket

    host, _, rest = holder.partition(":")
    pid_text, _, started = rest.partition(":")
    if host != socket.gethostname():
        from lumente_cli.timeutil import seconds_since

        return held_at is not None and seconds_since(held_at) < FOREIGN_HOLD_S
    try:
        pid = int(pid_text)
        os.kill(pid, 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        pass  # alive, someone else's
    return not started or started == _start_time(pid)


def _describe_holder(holder: str) -> str:
    host, _, rest = holder.partition(":")
    return f"process {rest.partition(':')[0]} on {host}"


@cache
def _events() -> TypeAdapter:
    """Built on first use: commands that only read memory never load the session engine."""
    from pydantic import TypeAdapter

    from lumente_cli.session import Event

    return TypeAdapter(Event)


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
class JudgedAnswer:
    """What the student typed for a part (an answer, or at level 5 their own
    question) and what the agent made of it: one row of the answer table."""

    part: PartKey
    kind: Literal["answer", "question"]
    level: int
    text: str
    verdict: str
    feedback: str


@dataclass(frozen=True)
class FinishedSession:
    """A finished session as progress reads it: when, what was predicted, what was scored."""

    id: str
    concept: str
    finished_at: str
    prediction: int
    score: int


@dataclass(frozen=True)
class PartResult:
    """One part of a finished session: the level it was done at and the level after it."""

    session_id: str
    part: PartKey
    level: int
    new_level: int
    verdict: str
    question: str | None
    points: int
    help_taps: int


def new_session_id() -> str:
    """Time-ordered and random: 's-' + milliseconds in hex + 6 random hex digits."""
    return f"s-{int(time.time() * 1000):x}{secrets.token_hex(3)}"


class SessionTables:
    """Methods on `self.con` for everything a practice session saves."""

    con: sqlite3.Connection

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
            _events().validate_json(r["event"])
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
            initial=_state(row["initial_state"]),
            state=_state(row["state"]),
            events=events,
            input_tokens=row["input_tokens"],
            output_tokens=row["output_tokens"],
        )

    def record_step(self, session_id: str, event: Any, state: SessionState) -> None:
        """Append one engine event and the state it produced, atomically."""
        with write_tx(self.con):
            self._append_step(session_id, event, state)

    def record_answer(
        self, session_id: str, answer: JudgedAnswer, step: Any, state: SessionState, events: Sequence[dict[str, Any]]
    ) -> None:
        """One judged answer (or own question), atomically: its row, the engine step the
        verdict is, the state that step produced, and the session events that tell of it.

        The verdict and feedback are kept once, in the answer row: the verdict event is
        logged without them, and with the row's id in their place."""
        with write_tx(self.con):
            row = self.con.execute(
                """INSERT INTO answer(session_id, part, kind, level, text, verdict, feedback, at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
                (session_id, answer.part, answer.kind, answer.level, answer.text, answer.verdict, answer.feedback,
                 now()),
            ).lastrowid
            for event in events:
                kind = event["event"]
                if kind == "verdict":
                    event = {k: v for k, v in event.items() if k not in ("verdict", "feedback")} | {"answer_id": row}
                self._insert_event(session_id, kind, event)
            self._append_step(session_id, step, state)

    def log_event(self, session_id: str, kind: str, data: dict[str, Any]) -> None:
        with write_tx(self.con):
            self._insert_event(session_id, kind, data)

    def _insert_event(self, session_id: str, kind: str, data: dict[str, Any]) -> None:
        self.con.execute(
            "INSERT INTO event(session_id, kind, part, data, at) VALUES (?, ?, ?, ?, ?)",
            (session_id, kind, data.get("part"), json.dumps(data, ensure_ascii=False), now()),
        )

    def _append_step(self, session_id: str, event: Any, state: SessionState) -> None:
        stamp = now()
        seq = self.con.execute(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM engine_event WHERE session_id = ?", (session_id,)
        ).fetchone()[0]
        self.con.execute(
            "INSERT INTO engine_event(session_id, seq, event) VALUES (?, ?, ?)",
            (session_id, seq, _events().dump_json(event).decode()),
        )
        self.con.execute(
            """UPDATE session SET state = ?, prediction = ?, updated_at = ?, held_at = ?, status = 'active'
               WHERE id = ?""",
            (state.model_dump_json(), state.prediction, stamp, stamp, session_id),
        )

    def claim(self, session_id: str) -> str | None:
        """Hold the session for this process. Returns None when it is ours now, or the
        holder ('host pid N') when another running lumente has it. A process that
        died does not keep it: its pid is gone (or reused by another program)."""
        me = process_tag()
        with write_tx(self.con):
            row = self.con.execute("SELECT holder, held_at FROM session WHERE id = ?", (session_id,)).fetchone()
            holder = row["holder"] if row else None
            if holder and holder != me and _still_running(holder, row["held_at"]):
                return _describe_holder(holder)
            self.con.execute("UPDATE session SET holder = ?, held_at = ? WHERE id = ?", (me, now(), session_id))
        return None

    def release(self, session_id: str) -> None:
        with write_tx(self.con):
            self.con.execute("UPDATE session SET holder = NULL WHERE id = ? AND holder = ?", (session_id, process_tag()))

    def holder_of(self, session_id: str) -> str | None:
        """Who else is running this session right now, if anyone."""
        row = self.con.execute("SELECT holder, held_at FROM session WHERE id = ?", (session_id,)).fetchone()
        holder = row["holder"] if row else None
        if holder and holder != process_tag() and _still_running(holder, row["held_at"]):
            return _describe_holder(holder)
        return None

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

    def finished_sessions(self, learner_id: int, concept: str | None = None) -> list[FinishedSession]:
        sql = "SELECT id, concept, finished_at, prediction, score FROM session WHERE learner_id = ? AND status = 'finished'"
        args: list[Any] = [learner_id]
        if concept:
            sql += " AND concept = ?"
            args.append(concept)
        return [
            FinishedSession(r["id"], r["concept"], r["finished_at"], int(r["prediction"]), int(r["score"]))
            for r in self.con.execute(sql + " ORDER BY finished_at", args)
        ]

    def part_results(self, session_ids: Sequence[str]) -> dict[str, dict[PartKey, PartResult]]:
        """Each session's part results by part; a session with none maps to {}."""
        out: dict[str, dict[PartKey, PartResult]] = {sid: {} for sid in session_ids}
        for chunk in chunks(list(session_ids)):
            marks = ",".join("?" * len(chunk))
            for r in self.con.execute(f"SELECT * FROM part_result WHERE session_id IN ({marks})", chunk):
                out[r["session_id"]][r["part"]] = PartResult(
                    session_id=r["session_id"], part=r["part"], level=int(r["level"]), new_level=int(r["new_level"]),
                    verdict=r["verdict"], question=r["question"], points=int(r["points"]),
                    help_taps=int(r["help_taps"]),
                )
        return out

    def delete_learner_sessions(self, learner_id: int) -> int:
        """Delete every local session, answer and level of one learner, and their check
        rounds and check levels (an explicit choice)."""
        with write_tx(self.con):
            count = self.con.execute("SELECT COUNT(*) FROM session WHERE learner_id = ?", (learner_id,)).fetchone()[0]
            self.con.execute("DELETE FROM session WHERE learner_id = ?", (learner_id,))
            self.con.execute("DELETE FROM level WHERE learner_id = ?", (learner_id,))
            self.con.execute("DELETE FROM check_round WHERE learner_id = ?", (learner_id,))
            self.con.execute("DELETE FROM check_level WHERE learner_id = ?", (learner_id,))
        return int(count)


def _state(raw: str) -> SessionState:
    from lumente_cli.session import SessionState

    return SessionState.model_validate_json(raw)
