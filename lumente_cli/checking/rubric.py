"""How a reason for flagging a real flaw is judged: the offline evaluator, on a
rubric of one required key point built from the flaw.

The key point's phrasings are the flaw's `objection` (its idea is `why`, its nudge
the flaw's `nudge`); the confusions are those of the part the claim is about, so
restating the misconception is not a reason; and what was shown (the question
the student asked the AI and the hints of this round) is what a pasted reason is
a copy of, compared as word pairs in order. The claim itself is compared apart
(`pasted_claim`), with negations kept: a practice answer's copy check drops
'not' and 'no', and an objection is often the claim denied in its own words. The same rules as a practice answer follow: only what
the reason asserts counts, not under a negation, not copied, not a bare list."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lumente_cli.agents.contracts import MAX_SHOWN_CHARS, Shown
from lumente_cli.agents.offline import evaluator
from lumente_cli.agents.offline import language as lang
from lumente_cli.concepts.explanations import Claim, Explanation
from lumente_cli.concepts.schema import Concept, KeyPoint, Part
from lumente_cli.session import Verdict


# A reason is the claim pasted back when this share of its consecutive word pairs is
# the claim's (and it has at least this many pairs: 'it is wrong' is no copy of anything).
PASTED_SHARE = 0.7
PASTED_MIN_PAIRS = 4


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
        question="", guided=[], cues=[], worked_example="", reference="", hints=[],
        key_points=[point], solid_needs=1, confusions=list(concept.part(claim.part).confusions), sources=[],
        checks=[],
    )


def judge_reason(concept: Concept, explanation: Explanation, claim: Claim, text: str,
                 hints: Sequence[str] = ()) -> ReasonJudgement:
    """Whether `text` says what is wrong with the flawed `claim`."""
    part = flaw_rubric(concept, explanation, claim)
    shown = Shown(hints=tuple(h[:MAX_SHOWN_CHARS] for h in (explanation.asked, *hints[-11:])))
    own = [concept.id, concept.name, concept.full_name or "", *concept.aliases]
    j = evaluator.analyse(part, text, shown=shown, own=own)
    pasted = pasted_claim(claim.text, text)
    verdict = "missing" if pasted else evaluator.verdict_for(part, j)
    if verdict == "solid":
        feedback = "Your reason holds."
    elif pasted or j.copied:
        feedback = "That repeats the claim (or the question), so it is not a reason yet."
    elif j.listed:
        feedback = "That is a list of terms; say in a sentence what the claim gets wrong."
    elif j.confusions or j.denied:
        feedback = "That restates the mistake instead of saying what is wrong with it."
    else:
        feedback = "Right claim, but that reason does not say what is wrong with it."
    return ReasonJudgement(verdict, feedback)


def pasted_claim(claim: str, text: str) -> bool:
    """The claim given back as the reason, whole or lightly edited. Its word pairs are
    compared with every word kept, 'not' and 'no' included: an objection that denies the
    claim in the claim's own words ('JSON allows no comments') is not a copy of it."""
    def pairs(words: list[str]) -> list[tuple[str, str]]:
        return list(zip(words, words[1:], strict=False))

    mine, theirs = pairs(lang.words(text)), set(pairs(lang.words(claim)))
    return len(mine) >= PASTED_MIN_PAIRS and sum(p in theirs for p in mine) / len(mine) >= PASTED_SHARE
