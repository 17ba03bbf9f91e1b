"""What every provider offers, and the one entry point `with_memory` wraps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel

from lumente_cli.agents.contracts import (
    AgentRole,
    AskInput,
    CoachInput,
    EvaluateInput,
    Evaluation,
    HintInput,
    JudgeInput,
    Question,
    QuestionJudgement,
    Remark,
)


@dataclass
class Usage:
    """What a provider spent in one session (all zeros offline).

    calls: Messages API requests made (a validation retry counts; the SDK's own
    transport retries do not). Tokens are summed over every reply received,
    including replies that did not fit a contract, since those are billed too.
    fallbacks: agent calls the offline agent answered instead.
    """

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    fallbacks: int = 0


class Agents(Protocol):
    """A provider: the five session agents for one concept."""

    name: str

    def ask(self, inp: AskInput) -> Question: ...
    def hint(self, inp: HintInput) -> Remark: ...
    def evaluate(self, inp: EvaluateInput) -> Evaluation: ...
    def judge(self, inp: JudgeInput) -> QuestionJudgement: ...
    def coach(self, inp: CoachInput) -> Remark: ...


_METHODS: dict[str, str] = {
    "question_asker": "ask",
    "hint_giver": "hint",
    "evaluator": "evaluate",
    "question_judge": "judge",
    "coach": "coach",
}


def call_agent(agents: Agents, role: AgentRole, inp: BaseModel) -> Any:
    """Run one agent by role; the session runner only ever calls agents this way."""
    return getattr(agents, _METHODS[role])(inp)
