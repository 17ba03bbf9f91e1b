"""What every provider offers: the `Agents` protocol, one typed method per
session agent, and the `Usage` it reports."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from lumente_cli.agents.contracts import (
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

