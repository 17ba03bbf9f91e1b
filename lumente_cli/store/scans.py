"""The last scan of each learner's project, as `lumente next` needs it, and the
practice history it is weighed against.

What is kept of a scan: when it ran, how many files it read, and for each concept
found its score, whether it was risky, how many signals and files showed it, and the
weightiest signal's reason (a sentence from the concept file). Never a path, a file
name, a line or a snippet of the project.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from lumente_cli.sqlite_tx import write_tx
from lumente_cli.timeutil import now


@dataclass(frozen=True)
class SavedFinding:
    concept: str
    score: float
    risky: bool
    signals: int
    files: int
    reason: str  # the concept file's reason for its weightiest signal


@dataclass(frozen=True)
class SavedScan:
    scanned_at: str
    files: int
    findings: tuple[SavedFinding, ...]  # highest score first


@dataclass(frozen=True)
class PractiseRecord:
    """One concept's practice as `next` weighs it."""

    concept: str
    levels: dict[str, int]  # part -> level
    sessions: int  # finished ones
    last_finished_at: str | None
    last_prediction: int | None
    last_score: int | None


class ScanTables:
    con: sqlite3.Connection

    def save_scan(self, learner_id: int, files: int, findings: list[SavedFinding]) -> SavedScan:
        """Replace the learner's last scan with this one, in one transaction."""
        stamp = now()
        with write_tx(self.con):
            self.con.execute("DELETE FROM scan WHERE learner_id = ?", (learner_id,))
            self.con.execute("INSERT INTO scan(learner_id, scanned_at, files) VALUES (?, ?, ?)",
                             (learner_id, stamp, files))
            self.con.executemany(
                """INSERT INTO scan_finding(learner_id, concept, score, risky, signals, files, reason)
                   VALUES (?, ?, ?, ?, ?, ?, ?)""",
                [(learner_id, f.concept, f.score, int(f.risky), f.signals, f.files, f.reason) for f in findings],
            )
        return SavedScan(stamp, files, tuple(findings))

    def last_scan(self, learner_id: int) -> SavedScan | None:
        row = self.con.execute("SELECT scanned_at, files FROM scan WHERE learner_id = ?", (learner_id,)).fetchone()
        if row is None:
            return None
        findings = tuple(
            SavedFinding(r["concept"], float(r["score"]), bool(r["risky"]), int(r["signals"]), int(r["files"]),
                         r["reason"])
            for r in self.con.execute(
                "SELECT * FROM scan_finding WHERE learner_id = ? ORDER BY score DESC, concept", (learner_id,))
        )
        return SavedScan(row["scanned_at"], int(row["files"]), findings)

    def delete_learner_scan(self, learner_id: int) -> int:
        """Forget the learner's last scan; how many findings it held."""
        with write_tx(self.con):
            count = self.con.execute("SELECT COUNT(*) FROM scan_finding WHERE learner_id = ?",
                                     (learner_id,)).fetchone()[0]
            self.con.execute("DELETE FROM scan WHERE learner_id = ?", (learner_id,))
        return int(count)

    def practice_records(self, learner_id: int) -> dict[str, PractiseRecord]:
        """Every concept the learner has a level or a finished session on."""
        levels: dict[str, dict[str, int]] = {}
        for r in self.con.execute("SELECT concept, part, level FROM level WHERE learner_id = ?", (learner_id,)):
            levels.setdefault(r["concept"], {})[r["part"]] = int(r["level"])
        out: dict[str, PractiseRecord] = {}
        rows = self.con.execute(
            """SELECT concept, COUNT(*) AS sessions, MAX(finished_at) AS last FROM session
               WHERE learner_id = ? AND status = 'finished' GROUP BY concept""", (learner_id,)).fetchall()
        for r in rows:
            last = self.con.execute(
                """SELECT prediction, score FROM session WHERE learner_id = ? AND concept = ? AND status = 'finished'
                   ORDER BY finished_at DESC LIMIT 1""", (learner_id, r["concept"])).fetchone()
            out[r["concept"]] = PractiseRecord(r["concept"], levels.get(r["concept"], {}), int(r["sessions"]),
                                               r["last"], last["prediction"], last["score"])
        for concept, found in levels.items():
            out.setdefault(concept, PractiseRecord(concept, found, 0, None, None, None))
        return out

    def paused_session_concept(self, learner_id: int) -> str | None:
        """The concept of the newest paused (or crashed-while-active) session, if any."""
        row = self.con.execute(
            """SELECT concept FROM session WHERE learner_id = ? AND status IN ('paused', 'active')
               ORDER BY updated_at DESC LIMIT 1""", (learner_id,)).fetchone()
        return row["concept"] if row else None
