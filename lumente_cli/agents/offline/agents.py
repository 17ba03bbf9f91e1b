"""The offline provider: the default when no Claude key is configured."""

from __future__ import annotations

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
from lumente_cli.agents.offline import asker, coach, evaluator, hints, judge
from lumente_cli.concepts.schema import Concept


class OfflineAgents:
    name = "offline"

    def __init__(self, concept: Concept) -> None:
        self.concept = concept

    def ask(self, inp: AskInput) -> Question:
        return asker.ask(self.concept, inp)

    def hint(self, inp: HintInput) -> Remark:
        return hints.hint(self.concept, inp)

    def evaluate(self, inp: EvaluateInput) -> Evaluation:
        return evaluator.evaluate(self.concept, inp.part, inp.level, inp.answer, inp.shown)

    def judge(self, inp: JudgeInput) -> QuestionJudgement:
        return judge.judge(self.concept, inp)

    def coach(self, inp: CoachInput) -> Remark:
        return coach.coach(self.concept, inp)
