"""Typed contracts shared by every provider (offline and Claude).

Inputs carry only what an agent may see: the evaluator's input has no memory
field at all, so memory cannot reach a verdict even by mistake.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lumente_cli.memory.facts import MemoryFact
from lumente_cli.parts import MAX_LEVEL, MIN_LEVEL, PartKey
from lumente_cli.session import Verdict

AgentRole = Literal["question_asker", "hint_giver", "evaluator", "question_judge", "coach", "mapper"]

MAX_ANSWER_CHARS = 8000


class _In(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    concept: str = Field(description="Concept id, e.g. 'jwt'.")


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


# question asker -------------------------------------------------------------


class AskInput(_In):
    part: PartKey
    level: int = Field(ge=MIN_LEVEL, le=MAX_LEVEL - 1)  # at the top level the student asks


class Question(_Out):
    prompt: str = Field(description="What the student is asked to do for this part.")
    cues: list[str] = Field(default_factory=list, description="Guiding cues (level 2).")
    worked_example: str | None = Field(default=None, description="The part worked out (level 1 only).")


# hint giver -------------------------------------------------------------------


class HintInput(_In):
    part: PartKey
    level: int = Field(ge=MIN_LEVEL, le=MAX_LEVEL)
    tap: int = Field(ge=1, description="Which Help tap on this part this is (1 for the first).")
    given: tuple[str, ...] = Field(default=(), max_length=12, description="Hints already given on this part, in order.")
    memory: tuple[MemoryFact, ...] = ()


class Remark(_Out):
    """A hint or a coach note: the message and the memory fact IDs it rests on."""

    message: str
    cites: list[str] = Field(default_factory=list)


# evaluator --------------------------------------------------------------------


MAX_SHOWN_CHARS = 4000


class Shown(BaseModel):
    """What this session showed the student for the part before the answer: text
    copied from here is not understanding, for any evaluator."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt: str = Field(default="", max_length=MAX_SHOWN_CHARS)
    cues: tuple[str, ...] = Field(default=(), max_length=12)
    worked_example: str = Field(default="", max_length=MAX_SHOWN_CHARS)
    hints: tuple[str, ...] = Field(default=(), max_length=12)


class EvaluateInput(_In):
    part: PartKey
    level: int = Field(ge=MIN_LEVEL, le=MAX_LEVEL)
    answer: str = Field(max_length=MAX_ANSWER_CHARS)
    shown: Shown = Field(default_factory=Shown)


class Evaluation(_Out):
    # The evidence comes first and is required, so a model writes what the answer
    # covers before the verdict that must rest on it.
    covered: list[str] = Field(description="Key point ids the answer asserts, in its own words.")
    verdict: Verdict
    feedback: str = Field(description="Short feedback that does not give the answer away.")


# question judge ---------------------------------------------------------------


class JudgeInput(_In):
    part: PartKey
    question: str = Field(max_length=MAX_ANSWER_CHARS)


class QuestionJudgement(_Out):
    verdict: Verdict
    feedback: str


# coach ------------------------------------------------------------------------


class PartResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    part: PartKey
    level: int
    new_level: int
    verdict: Verdict
    question: Verdict | None = None
    points: int
    help_taps: int


class CoachInput(_In):
    prediction: int
    score: int
    results: tuple[PartResult, ...]
    memory: tuple[MemoryFact, ...] = ()


# `lumente check`'s hint giver and coach ----------------------------------------


class CheckHintInput(_In):
    level: int = Field(ge=MIN_LEVEL, le=MAX_LEVEL)
    tap: int = Field(ge=1, description="Which hint of this round this is (1 for the first).")
    part: PartKey = Field(description="The part of the map the flaw the hint points at breaks.")
    nudge: str = Field(description="The flaw's nudge: a question pointing at its idea, never at a claim.")
    memory: tuple[MemoryFact, ...] = ()


class CheckCoachInput(_In):
    level: int = Field(ge=MIN_LEVEL, le=MAX_LEVEL)
    new_level: int = Field(ge=MIN_LEVEL, le=MAX_LEVEL)
    prediction: int
    score: int
    claims: int
    flaws: int
    caught: int
    wrong_reasons: int
    false_alarms: int
    missed_parts: tuple[PartKey, ...] = Field(default=(), description="The parts the flaws not caught break.")
    memory: tuple[MemoryFact, ...] = ()


# mapper -----------------------------------------------------------------------


class MapInput(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="The concept name as the student typed it on the command line.")
    concept_id: str = Field(description="The id the new concept file must carry, [a-z0-9_].")
