"""Progress over sessions, from Lumente's local database only: each part's
level after every finished session, prediction against score, and the
`lumente check` rounds beside them (the check level and how many claims of
the AI's explanation were judged right)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lumente_cli.parts import PARTS, PartKey

if TYPE_CHECKING:
    from lumente_cli.store import LocalStore
    from lumente_cli.store.history import HistoryReader

# How many recent sessions to compare with the earlier ones for the trend.
TREND_WINDOW = 3


@dataclass(frozen=True)
class SessionPoint:
    session_id: str
    finished_at: str
    prediction: int
    score: int
    levels: dict[PartKey, int]  # each part's level after the session

    @property
    def gap(self) -> int:
        return self.score - self.prediction


@dataclass(frozen=True)
class CheckPoint:
    round_id: str
    finished_at: str
    prediction: int
    score: int  # claims judged right
    claims: int
    caught: int
    flaws: int
    false_alarms: int
    level: int
    new_level: int


def _trend(values: list[float]) -> int | None:
    """Recent values against the earlier ones by their means: -1 lower, 1 higher, 0
    the same, None with fewer than two. From four on the last three count as recent;
    before that the later half."""
    if len(values) < 2:
        return None
    recent = values[-TREND_WINDOW:] if len(values) > TREND_WINDOW else values[len(values) // 2 :]
    earlier = values[: len(values) - len(recent)]
    before, now = sum(earlier) / len(earlier), sum(recent) / len(recent)
    return (now > before) - (now < before)


@dataclass(frozen=True)
class ConceptProgress:
    concept: str
    sessions: list[SessionPoint] = field(default_factory=list)
    current_levels: dict[PartKey, int] = field(default_factory=dict)
    checks: list[CheckPoint] = field(default_factory=list)
    check_level: int | None = None  # None before the first check round

    @property
    def gap_trend(self) -> str:
        """'shrinking', 'growing', 'steady', or 'too few sessions' (by mean |gap|)."""
        trend = _trend([abs(s.gap) for s in self.sessions])
        return "too few sessions" if trend is None else {-1: "shrinking", 1: "growing", 0: "steady"}[trend]

    @property
    def check_trend(self) -> str:
        """'sharpening', 'slipping', 'steady', or 'too few rounds' (by the share of claims judged right)."""
        trend = _trend([c.score / c.claims for c in self.checks])
        return "too few rounds" if trend is None else {1: "sharpening", -1: "slipping", 0: "steady"}[trend]

    def to_json(self) -> dict:
        return {
            "concept": self.concept,
            "sessions": [
                {"session_id": s.session_id, "finished_at": s.finished_at, "prediction": s.prediction,
                 "score": s.score, "gap": s.gap, "levels": s.levels}
                for s in self.sessions
            ],
            "current_levels": self.current_levels,
            "gap_trend": self.gap_trend,
            "checks": [
                {"round_id": c.round_id, "finished_at": c.finished_at, "prediction": c.prediction, "score": c.score,
                 "claims": c.claims, "caught": c.caught, "flaws": c.flaws, "false_alarms": c.false_alarms,
                 "level": c.level, "new_level": c.new_level}
                for c in self.checks
            ],
            "check_level": self.check_level,
            "check_trend": self.check_trend,
        }


def progress(store: LocalStore | HistoryReader, learner_id: int, concept: str | None = None) -> list[ConceptProgress]:
    sessions = store.finished_sessions(learner_id, concept)
    results = store.part_results([s.id for s in sessions])
    by_concept: dict[str, list[SessionPoint]] = {}
    for s in sessions:
        parts = results[s.id]
        by_concept.setdefault(s.concept, []).append(
            SessionPoint(
                session_id=s.id, finished_at=s.finished_at, prediction=s.prediction, score=s.score,
                levels={p: parts[p].new_level for p in PARTS if p in parts},
            )
        )
    checks: dict[str, list[CheckPoint]] = {}
    for r in store.check_rounds(learner_id, concept):
        checks.setdefault(r.concept, []).append(CheckPoint(
            round_id=r.id, finished_at=r.finished_at, prediction=r.prediction, score=r.score, claims=r.claims,
            caught=r.caught, flaws=r.flaws, false_alarms=r.false_alarms, level=r.level, new_level=r.new_level))
    check_levels = store.check_levels(learner_id)
    return [
        ConceptProgress(c, by_concept.get(c, []), store.levels(learner_id, c), checks.get(c, []), check_levels.get(c))
        for c in sorted(by_concept.keys() | checks.keys())
    ]
