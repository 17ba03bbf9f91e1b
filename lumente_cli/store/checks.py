"""`lumente check` rounds: the check level per concept, each finished round, and
each claim's verdict with what the student wrote about it (kept only here)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lumente_cli.sqlite_tx import write_tx


@dataclass(frozen=True)
class CheckRound:
    """One finished round: the explanation judged, the level it was played at and the
    level after it, the prediction and what the judging came to."""

    id: str
    concept: str
    explanation: str
    level: int
    new_level: int
    prediction: int
    claims: int
    flaws: int
    caught: int
    false_alarms: int
    score: int
    hints: int
    started_at: str
    finished_at: str


@dataclass(frozen=True)
class CheckedClaim:
    """One claim of a finished round: its verdict, and for a flagged claim the
    student's reason (and, at level 5, their question and its verdict)."""

    number: int
    verdict: str
    reason: str | None = None
    question: str | None = None
    question_verdict: str | None = None


_ROUND_COLUMNS = ("id", "concept", "explanation", "level", "new_level", "prediction", "claims", "flaws", "caught",
                  "false_alarms", "score", "hints", "started_at", "finished_at")


class CheckTables:
    """Methods on `self.con` for the check rounds."""

    con: sqlite3.Connection

    def check_level(self, learner_id: int, concept: str) -> int | None:
        """The learner's check level on a concept; None before their first round."""
        row = self.con.execute(
            "SELECT level FROM check_level WHERE learner_id = ? AND concept = ?", (learner_id, concept)).fetchone()
        return int(row["level"]) if row else None

    def explanations_used(self, learner_id: int, concept: str) -> dict[str, str]:
        """When each explanation of a concept was last judged by this learner."""
        rows = self.con.execute(
            """SELECT explanation, MAX(finished_at) AS last FROM check_round WHERE learner_id = ? AND concept = ?
               GROUP BY explanation""", (learner_id, concept)).fetchall()
        return {r["explanation"]: r["last"] for r in rows}

    def record_check_round(self, learner_id: int, finished: CheckRound, claims: Sequence[CheckedClaim]) -> None:
        """The round, its claims and the new check level, in one transaction."""
        with write_tx(self.con):
            self.con.execute(
                f"INSERT INTO check_round(learner_id, {', '.join(_ROUND_COLUMNS)}) "
                f"VALUES (?, {', '.join('?' * len(_ROUND_COLUMNS))})",
                (learner_id, *(getattr(finished, c) for c in _ROUND_COLUMNS)),
            )
            self.con.executemany(
                """INSERT INTO check_claim(round_id, number, verdict, reason, question, question_verdict)
                   VALUES (?, ?, ?, ?, ?, ?)""",
                [(finished.id, c.number, c.verdict, c.reason, c.question, c.question_verdict) for c in claims],
            )
            self.con.execute(
                """INSERT INTO check_level(learner_id, concept, level, updated_at) VALUES (?, ?, ?, ?)
                   ON CONFLICT (learner_id, concept) DO UPDATE SET level = excluded.level,
                   updated_at = excluded.updated_at""",
                (learner_id, finished.concept, finished.new_level, finished.finished_at),
            )

    def check_rounds(self, learner_id: int, concept: str | None = None) -> list[CheckRound]:
        """Finished rounds, oldest first."""
        sql = f"SELECT {', '.join(_ROUND_COLUMNS)} FROM check_round WHERE learner_id = ?"
        args: list[Any] = [learner_id]
        if concept:
            sql += " AND concept = ?"
            args.append(concept)
        return [CheckRound(**{c: r[c] for c in _ROUND_COLUMNS})
                for r in self.con.execute(sql + " ORDER BY finished_at, rowid", args)]

    def check_levels(self, learner_id: int) -> dict[str, int]:
        rows = self.con.execute("SELECT concept, level FROM check_level WHERE learner_id = ?", (learner_id,))
        return {r["concept"]: int(r["level"]) for r in rows}
