"""How a reason for flagging a real flaw is judged: the offline evaluator, on a
rubric of one required key point built from the flaw.

The key point's phrasings are the flaw's `objection` (its idea is `why`, its nudge
the flaw's `nudge`); the confusions are those of the part the claim is about, so
restating the misconception is not a reason; and what was shown (the question
the student asked the AI, the claim itself, the hints of this round) is what a
pasted reason is a copy of. The same rules as a practice answer follow: only what
the reason asserts counts, not under a negation, not copied, not a bare list."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lumente_cli.agents.contracts import MAX_SHOWN_CHARS, Shown
from lumente_cli.agents.offline import evaluator
from lumente_cli.concepts.explanations import Claim, Explanation
from lumente_cli.concepts.schema import Concept, KeyPoint, Part
from lumente_cli.session import Verdict


@dataclass(frozen=True)
class ReasonJudgement:
    verdict: Verdict
    feedback: str

    @property
    def holds(self) -> bool:
        return self.verdict == "solid"


def flaw_rubric(concept: Concept, explanation: Explanation, claim: Claim) -> Part:
    assert claim.flaw is not None  # only a real flaw's reason is judged
    point = KeyPoint(id="objection", point=claim.flaw.why, accept=list(claim.flaw.objection),
                     nudge=claim.flaw.nudge, required=True)
    # Built without validation: the concept format asks authors for two key points and
    # the texts of a lesson; this rubric is one objection, and shows nothing of its own.
    return Part.model_construct(
        question=explanation.asked, guided=[], cues=[], worked_example="", reference="", hints=[],
        key_points=[point], solid_needs=1, confusions=list(concept.part(claim.part).confusions), sources=[],
        checks=[],
    )


def judge_reason(concept: Concept, explanation: Explanation, claim: Claim, text: str,
                 hints: Sequence[str] = ()) -> ReasonJudgement:
    """Whether `text` says what is wrong with the flawed `claim`."""
    part = flaw_rubric(concept, explanation, claim)
    shown = Shown(prompt=explanation.asked[:MAX_SHOWN_CHARS], worked_example=claim.text[:MAX_SHOWN_CHARS],
                  hints=tuple(h[:MAX_SHOWN_CHARS] for h in hints[-12:]))
    own = [concept.id, concept.name, concept.full_name or "", *concept.aliases]
    j = evaluator.analyse(part, text, shown=shown, own=own)
    verdict = evaluator.verdict_for(part, j)
    if verdict == "solid":
        feedback = "Your reason holds."
    elif j.copied:
        feedback = "That repeats the claim (or the question), so it is not a reason yet."
    elif j.listed:
        feedback = "That is a list of terms; say in a sentence what the claim gets wrong."
    elif j.confusions or j.denied:
        feedback = "That restates the mistake instead of saying what is wrong with it."
    else:
        feedback = "Right claim, but that reason does not say what is wrong with it."
    return ReasonJudgement(verdict, feedback)
