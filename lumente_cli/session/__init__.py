"""The session engine: plain data and `advance()`, with no I/O and no model.

It is the only code that sets points and levels, so memory and agents cannot
change a score: they never reach it.
"""

from typing import TYPE_CHECKING, Any

from lumente_cli.session.scoring import MAX_PART_POINTS, MAX_SCORE, POINTS

if TYPE_CHECKING:
    from lumente_cli.session.engine import (
        AnswerJudged as AnswerJudged,
        Event as Event,
        HelpTapped as HelpTapped,
        InvalidEvent as InvalidEvent,
        PartProgress as PartProgress,
        Predicted as Predicted,
        QuestionJudged as QuestionJudged,
        SessionState as SessionState,
        Verdict as Verdict,
        advance as advance,
        level_change as level_change,
        part_points as part_points,
        replay as replay,
        start as start,
    )

# The engine's names are imported on first use: its pydantic models cost even
# with their validators deferred, and some commands need only the scoring.
_ENGINE = frozenset({
    "AnswerJudged", "Event", "HelpTapped", "InvalidEvent", "PartProgress", "Predicted", "QuestionJudged",
    "SessionState", "Verdict", "advance", "level_change", "part_points", "replay", "start",
})


def __getattr__(name: str) -> Any:
    if name in _ENGINE:
        from lumente_cli.session import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MAX_PART_POINTS",
    "MAX_SCORE",
    "POINTS",
    "AnswerJudged",
    "Event",
    "HelpTapped",
    "InvalidEvent",
    "PartProgress",
    "Predicted",
    "QuestionJudged",
    "SessionState",
    "Verdict",
    "advance",
    "level_change",
    "part_points",
    "replay",
    "start",
]
