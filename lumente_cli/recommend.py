"""`lumente next`: up to three concepts to practise, each with its reason, from the
last scan of the student's project and the local practice history.

Three sources, in this order:
1. used in the scanned project and never practised (risky ones first, then by score);
2. practised, but with low levels or a wide gap between the predicted and proved score;
3. due for review: a simple spaced-review rule, the interval doubling with each level
   (level 1: 2 days ... level 5: 32 days), the most overdue first.

Only Lumente's own database is read: memory never decides what comes next.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from lumente_cli.parts import PARTS, START_LEVEL
from lumente_cli.store.scans import PractiseRecord, SavedScan
from lumente_cli.timeutil import parse_stamp

LIMIT = 3
LOW_LEVEL = 2.5  # a mean level at or below this is low
WIDE_GAP = 3  # |proved - predicted| at or above this is wide
Why = Literal["project", "weak", "gap", "review"]


@dataclass(frozen=True)
class Recommendation:
    concept: str
    name: str
    why: Why
    reason: str

    @property
    def command(self) -> str:
        return f"lumente practice {self.concept}"

    def to_json(self) -> dict[str, Any]:
        return {"concept": self.concept, "name": self.name, "why": self.why, "reason": self.reason,
                "command": self.command}


def review_interval_days(mean_level: float) -> float:
    return 2.0 ** max(1.0, mean_level)


def mean_level(record: PractiseRecord) -> float:
    return sum(record.levels.get(part, START_LEVEL) for part in PARTS) / len(PARTS)


def recommend(scan: SavedScan | None, records: dict[str, PractiseRecord], names: dict[str, str], *,
              now: datetime, limit: int = LIMIT) -> list[Recommendation]:
    """The concepts to practise next, best first; `names` holds the library's concepts (id -> name)."""
    ranked: list[tuple[tuple[Any, ...], Recommendation]] = []
    in_project = {f.concept: f for f in scan.findings} if scan else {}
    for finding in scan.findings if scan else ():
        record = records.get(finding.concept)
        if finding.concept in names and (record is None or record.sessions == 0):
            risk = " (a security risk)" if finding.risky else ""
            reason = f"your project {finding.reason}{risk}; you have never practised it"
            ranked.append(((0, not finding.risky, -finding.score),
                           Recommendation(finding.concept, names[finding.concept], "project", reason)))
    for concept, record in records.items():
        if concept not in names or record.sessions == 0:
            continue
        level = mean_level(record)
        used = " (your project uses it)" if concept in in_project else ""
        gap = abs((record.last_score or 0) - (record.last_prediction or 0))
        if gap >= WIDE_GAP or level <= LOW_LEVEL:
            if gap >= WIDE_GAP:
                why: Why = "gap"
                reason = f"last time you predicted {record.last_prediction} and proved {record.last_score}{used}"
            else:
                why = "weak"
                shown = " ".join(str(record.levels.get(part, START_LEVEL)) for part in PARTS)
                reason = f"your levels are still low ({shown}){used}"
            urgency = (5 - level) / 4 + gap / 8
            ranked.append(((1, -urgency), Recommendation(concept, names[concept], why, reason)))
        elif record.last_finished_at:
            days = (now - parse_stamp(record.last_finished_at)).total_seconds() / 86400
            interval = review_interval_days(level)
            if days >= interval:
                reason = (f"last practised {int(days)} days ago at level {level:.1f}: "
                          f"due for a review{used}")
                ranked.append(((2, -days / interval), Recommendation(concept, names[concept], "review", reason)))
    ranked.sort(key=lambda item: item[0])
    return [rec for _, rec in ranked[:limit]]


class _History:
    """What `next_for` reads from the local store (LocalStore has these methods)."""

    def last_scan(self, learner_id: int) -> SavedScan | None: ...
    def practice_records(self, learner_id: int) -> dict[str, PractiseRecord]: ...


def next_for(store: _History, learner_id: int | None, names: dict[str, str], *, now: datetime,
             limit: int = LIMIT) -> tuple[SavedScan | None, list[Recommendation]]:
    """The learner's last scan (None without one) and what to practise next."""
    if learner_id is None:
        return None, []
    scan = store.last_scan(learner_id)
    return scan, recommend(scan, store.practice_records(learner_id), names, now=now, limit=limit)
