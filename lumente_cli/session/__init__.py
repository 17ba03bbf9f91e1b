"""The session engine: plain data and `advance()`, with no I/O and no model.

It is the only code that sets points and levels, so memory and agents cannot
change a score: they never reach it.
"""

from lumente_cli.session.engine import (
    MAX_PART_POINTS,
    MAX_SCORE,
    POINTS,
    AnswerJudged,
    Event,
    HelpTapped,
    InvalidEvent,
    PartProgress,
    Predicted,
    QuestionJudged,
    SessionState,
    Verdict,
    advance,
    level_change,
    part_points,
    replay,
    start,
)

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
