"""State, events and the rules that move a session forward.

Rules (docs/scoring.md explains them for students):
- Points per part: solid 2, partial 1, missing 0; the score is their sum (0..8).
- A part ends with a level change of +1 for a solid answer with at most one Help
  tap, -1 for a missing answer or three or more Help taps, otherwise none.
- At level 5 the student also asks their own question. A question judged missing
  caps the part at 1 point and counts a solid answer as partial for the level rule;
  an acceptable question (solid or partial) lets the answer's verdict stand.
- Levels stay within 1..5.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from lumente_cli.parts import MAX_LEVEL, MIN_LEVEL, PARTS, PartKey
from lumente_cli.session.scoring import MAX_SCORE, POINTS

Verdict = Literal["solid", "partial", "missing"]
HELP_LIMIT_FOR_RISE = 1
HELP_TAPS_FOR_DROP = 3

Stage = Literal["predict", "answer", "question", "finished"]
PartStatus = Literal["pending", "active", "done"]


class _Frozen(BaseModel):
    # Validators are built on first use: `lumente progress` reads MAX_SCORE and never builds them.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Predicted(_Frozen):
    kind: Literal["predicted"] = "predicted"
    value: int


class HelpTapped(_Frozen):
    kind: Literal["help"] = "help"


class AnswerJudged(_Frozen):
    kind: Literal["answer"] = "answer"
    verdict: Verdict


class QuestionJudged(_Frozen):
    kind: Literal["question"] = "question"
    verdict: Verdict


Event = Annotated[Predicted | HelpTapped | AnswerJudged | QuestionJudged, Field(discriminator="kind")]


class PartProgress(_Frozen):
    part: PartKey
    level: int = Field(ge=MIN_LEVEL, le=MAX_LEVEL)
    status: PartStatus = "pending"
    help_taps: int = 0
    answer: Verdict | None = None
    question: Verdict | None = None
    points: int | None = None
    new_level: int | None = None

    @property
    def needs_question(self) -> bool:
        return self.level == MAX_LEVEL


class SessionState(_Frozen):
    concept: str
    stage: Stage = "predict"
    prediction: int | None = None
    parts: tuple[PartProgress, ...]
    current: int = 0  # index into parts; len(parts) once finished

    @property
    def score(self) -> int:
        return sum(p.points or 0 for p in self.parts)

    @property
    def finished(self) -> bool:
        return self.stage == "finished"

    @property
    def active(self) -> PartProgress | None:
        return self.parts[self.current] if self.stage in ("answer", "question") else None


class InvalidEvent(ValueError):
    """An event that the session's current stage does not accept."""


def start(concept: str, levels: dict[PartKey, int]) -> SessionState:
    """A new session; `levels` come from the local database, one per part."""
    parts = tuple(PartProgress(part=key, level=_clamp(levels[key])) for key in PARTS)
    return SessionState(concept=concept, parts=parts)


def part_points(answer: Verdict, question: Verdict | None) -> int:
    points = POINTS[answer]
    if question == "missing":
        points = min(points, 1)
    return points


def level_change(answer: Verdict, question: Verdict | None, help_taps: int) -> int:
    effective: Verdict = "partial" if (answer == "solid" and question == "missing") else answer
    if effective == "missing" or help_taps >= HELP_TAPS_FOR_DROP:
        return -1
    if effective == "solid" and help_taps <= HELP_LIMIT_FOR_RISE:
        return 1
    return 0


def advance(state: SessionState, event: Event) -> SessionState:
    """Return the state after one event. Pure and deterministic."""
    if isinstance(event, Predicted):
        if state.stage != "predict":
            raise InvalidEvent("the prediction was already made")
        if not 0 <= event.value <= MAX_SCORE:
            raise InvalidEvent(f"a prediction is a whole number from 0 to {MAX_SCORE}")
        return _activate(state.model_copy(update={"prediction": event.value}), 0)

    part = state.active
    if part is None:
        raise InvalidEvent(f"no part is waiting for an answer (stage {state.stage})")

    if isinstance(event, HelpTapped):
        return _replace_part(state, part.model_copy(update={"help_taps": part.help_taps + 1}))

    if isinstance(event, AnswerJudged):
        if state.stage != "answer":
            raise InvalidEvent("this part is waiting for the student's own question")
        part = part.model_copy(update={"answer": event.verdict})
        if part.needs_question:
            return _replace_part(state, part).model_copy(update={"stage": "question"})
        return _finish_part(state, part)

    if isinstance(event, QuestionJudged):
        if state.stage != "question":
            raise InvalidEvent("this part is not waiting for a question")
        return _finish_part(state, part.model_copy(update={"question": event.verdict}))

    raise InvalidEvent(f"unknown event {event!r}")  # pragma: no cover - the union is closed


def replay(initial: SessionState, events: Iterable[Event]) -> SessionState:
    state = initial
    for event in events:
        state = advance(state, event)
    return state


def _clamp(level: int) -> int:
    return max(MIN_LEVEL, min(MAX_LEVEL, level))


def _replace_part(state: SessionState, part: PartProgress) -> SessionState:
    parts = list(state.parts)
    parts[state.current] = part
    return state.model_copy(update={"parts": tuple(parts)})


def _activate(state: SessionState, index: int) -> SessionState:
    if index >= len(state.parts):
        return state.model_copy(update={"stage": "finished", "current": len(state.parts)})
    parts = list(state.parts)
    parts[index] = parts[index].model_copy(update={"status": "active"})
    return state.model_copy(update={"stage": "answer", "current": index, "parts": tuple(parts)})


def _finish_part(state: SessionState, part: PartProgress) -> SessionState:
    assert part.answer is not None
    done = part.model_copy(
        update={
            "status": "done",
            "points": part_points(part.answer, part.question),
            "new_level": _clamp(part.level + level_change(part.answer, part.question, part.help_taps)),
        }
    )
    return _activate(_replace_part(state, done), state.current + 1)
