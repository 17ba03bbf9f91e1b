"""The offline evaluator: judges an answer by the part's rubric key points.

Robust to case, punctuation, word order and simple inflections (stems, prefix
matches) and to listed synonyms ('a|b'). It refuses to be fooled by a bare list of
keywords, by text copied from the reference, or by an answer that states a
common confusion. Feedback points at what is missing with the key point's
nudge (a question), never with the idea itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from lumente_cli.agents.contracts import Evaluation
from lumente_cli.agents.offline import language as lang
from lumente_cli.concepts.schema import Concept, Confusion, KeyPoint, Part
from lumente_cli.parts import PartKey
from lumente_cli.session import Verdict

# Below this share of function words ("is", "the", "because"...), text is a keyword
# list rather than an explanation. Ordinary prose sits around 0.4-0.5.
STUFFING_RATIO = 0.2
STUFFING_MIN_WORDS = 3
# Share of an answer's 4-word runs found in the shipped text that marks a copy.
COPY_RATIO = 0.6
COPY_MIN_WORDS = 10
_DONT_KNOW = (
    "i do not know", "i dont know", "no idea", "not sure", "i have no clue", "idk", "pass", "skip",
)


@dataclass(frozen=True)
class Judgement:
    covered: list[KeyPoint]
    confusions: list[Confusion]
    stuffed: bool
    copied: bool

    @property
    def listed(self) -> bool:
        return self.stuffed


def verdict_for(part: Part, j: Judgement) -> Verdict:
    n = len(j.covered)
    if n == 0:
        return "missing"
    if n >= part.needed_for_solid and all(kp in j.covered for kp in part.required) and not (j.stuffed or j.copied or j.confusions):
        return "solid"
    return "partial"


def analyse(part: Part, answer: str, *, shipped_text: str = "") -> Judgement:
    bags = [frozenset(lang.stems(s)) for s in lang.sentences(answer)]
    covered = [
        kp for kp in part.key_points if any(lang.compile_phrasing(p).matches(bag) for p in kp.accept for bag in bags)
    ]
    confusions = [c for c in part.confusions if _states(c, answer)]
    tokens = lang.words(answer)
    stuffed = len(tokens) >= STUFFING_MIN_WORDS and lang.function_word_ratio(answer) < STUFFING_RATIO
    if len(tokens) < STUFFING_MIN_WORDS and len(covered) >= 2:
        stuffed = True  # two ideas in one or two words is a list, not an explanation
    copied = False
    if shipped_text and len(tokens) >= COPY_MIN_WORDS:
        runs = lang.shingles(tokens)
        copied = bool(runs) and len(runs & lang.shingles(lang.words(shipped_text))) / len(runs) >= COPY_RATIO
    return Judgement(covered, confusions, stuffed, copied)


def _states(confusion: Confusion, answer: str) -> bool:
    """True when a clause states the confusion without negating it.

    A confusion is a short assertion, so its words must stand close together
    ('REST is a protocol'), not merely share a long clause ('REST is a style that
    uses the HTTP protocol'). A confusion may itself be a negative ('idempotent means
    no side effects'); then the clause must carry more negation words than the
    phrasing to count as denying it.
    """
    for sentence in lang.sentences(answer):
        for clause in lang.clauses(sentence):
            negations = lang.negation_count(clause)
            stems = lang.stems(clause)
            for m in confusion.match:
                if negations > lang.phrasing_negations(m):
                    continue
                if lang.compile_phrasing(m).matches_nearby(stems):
                    return True
    return False


def evaluate(concept: Concept, key: PartKey, level: int, answer: str, shown: tuple[str, ...] = ()) -> Evaluation:
    part = concept.part(key)
    text = answer.strip()
    if not text or lang.normalise(text).strip(" .!") in _DONT_KNOW:
        first = part.key_points[0]
        return Evaluation(verdict="missing", feedback=f"Nothing to judge yet. A place to start: {first.nudge}")
    # At level 1 the worked example is on screen, so copying it back is not explaining it.
    shipped = "\n".join([part.reference, part.worked_example, *shown])
    j = analyse(part, text, shipped_text=shipped)
    need = part.needed_for_solid
    n = len(j.covered)
    covered_ids = [kp.id for kp in j.covered]
    missing = [kp for kp in part.key_points if kp not in j.covered]
    total = len(part.key_points)

    verdict: Verdict
    if n == 0:
        verdict = "missing"
    elif n >= need and not (j.stuffed or j.copied or j.confusions):
        verdict = "solid"
    else:
        verdict = "partial"

    if verdict == "missing":
        feedback = f"This does not reach the key ideas yet. Ask yourself: {part.key_points[0].nudge}"
    elif j.copied:
        feedback = "That repeats the text shown. Put it in your own words: what does each idea mean to you?"
    elif j.stuffed:
        feedback = "That reads like a list of keywords. Explain in a sentence or two how the ideas fit together."
    elif j.confusions:
        feedback = f"Careful, one statement here is a common mix-up. {j.confusions[0].nudge}"
    elif verdict == "partial":
        feedback = f"On the right track: {n} of {total} key ideas. {missing[0].nudge}"
    elif missing:
        feedback = f"Solid: {n} of {total} key ideas. To go further: {missing[0].nudge}"
    else:
        feedback = f"Solid: all {total} key ideas, in your own words."
    return Evaluation(verdict=verdict, feedback=feedback, covered=covered_ids)
