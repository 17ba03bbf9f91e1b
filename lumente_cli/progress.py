"""Progress over sessions, from Lumente's local database only: each part's
level after every finished session, and prediction against score."""

from __future__ import annotations

from dataclasses import dataclass, field

from lumente_cli.parts import PARTS, PartKey
from lumente_cli.store import LocalStore

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
class ConceptProgress:
    concept: str
    sessions: list[SessionPoint] = field(default_factory=list)
    current_levels: dict[PartKey, int] = field(default_factory=dict)

    @property
    def gap_trend(self) -> str:
        """'shrinking', 'growing', 'steady', or 'too few sessions' (by mean |gap|)."""
        gaps = [abs(s.gap) for s in self.sessions]
        if len(gaps) < 2:
            return "too few sessions"
        recent = gaps[-TREND_WINDOW:] if len(gaps) > TREND_WINDOW else gaps[len(gaps) // 2 :]
        earlier = gaps[: len(gaps) - len(recent)]
        before, now = sum(earlier) / len(earlier), sum(recent) / len(recent)
        if now < before:
            return "shrinking"
        if now > before:
            return "growing"
        return "steady"

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
        }


def progress(store: LocalStore, learner_id: int, concept: str | None = None) -> list[ConceptProgress]:
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
    return [
        ConceptProgress(c, points, store.levels(learner_id, c)) for c, points in sorted(by_concept.items())
    ]
