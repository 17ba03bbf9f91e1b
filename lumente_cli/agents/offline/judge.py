"""The offline question judge: is the student's own question a real, open
question about this concept and part?"""

from __future__ import annotations

from lumente_cli.agents.contracts import JudgeInput, QuestionJudgement
from lumente_cli.agents.offline import language as lang
from lumente_cli.concepts.schema import Concept
from lumente_cli.parts import LABELS, PartKey

OPEN_STARTS = frozenset({"why", "how", "what", "when", "which", "where", "who", "compare", "explain", "describe"})
CLOSED_STARTS = frozenset(
    {"is", "are", "does", "do", "did", "can", "could", "will", "would", "should", "has", "have", "was", "were", "may", "must", "shall"}
)
MIN_WORDS = 4


_TOPIC_CACHE: dict[tuple[int, str], tuple[frozenset[str], frozenset[str]]] = {}


def _topic_stems(concept: Concept, key: PartKey) -> tuple[frozenset[str], frozenset[str]]:
    """Stems that tie a question to the concept, and to this part in particular."""
    cached = _TOPIC_CACHE.get((id(concept), key))
    if cached is not None:
        return cached
    general = {lang.stem(w) for t in (concept.id, concept.name, concept.full_name or "", *concept.aliases, *concept.terms) for w in lang.words(t)}
    part_stems: set[str] = set()
    for k, part in concept.parts():
        found = {
            lang.stem(w)
            for kp in part.key_points
            for phrasing in kp.accept
            for w in lang.words(phrasing.replace("|", " "))
            if w not in lang.FUNCTION_WORDS and len(w) > 2
        }
        general |= found
        if k == key:
            part_stems |= found
    result = frozenset(general), frozenset(part_stems)
    _TOPIC_CACHE[(id(concept), key)] = result
    return result


def judge(concept: Concept, inp: JudgeInput) -> QuestionJudgement:
    text = inp.question.strip()
    tokens = lang.words(text)
    if not tokens:
        return QuestionJudgement(verdict="missing", feedback="No question yet. What would you still like to know about this part?")
    is_question = text.endswith("?") or tokens[0] in OPEN_STARTS | CLOSED_STARTS
    if not is_question:
        return QuestionJudgement(
            verdict="missing", feedback="That is a statement. Turn it into a question you would like answered."
        )
    general, specific = _topic_stems(concept, inp.part)
    bag = set(lang.stems(text))
    touches = {s for s in bag if any(lang.word_matches(t, s) for t in general)}
    if not touches:
        return QuestionJudgement(
            verdict="missing", feedback=f"That question is not about {concept.name}. Ask something this part made you wonder."
        )
    on_part = any(lang.word_matches(t, s) for s in bag for t in specific)
    open_question = tokens[0] in OPEN_STARTS or any(w in ("why", "how", "difference", "differ", "compare", "versus", "vs") for w in tokens)
    if len(tokens) < MIN_WORDS:
        return QuestionJudgement(verdict="partial", feedback="A real question, but a short one. Say exactly what you want to find out.")
    if open_question and on_part:
        return QuestionJudgement(verdict="solid", feedback="A good open question: answering it would deepen this part.")
    if not open_question:
        return QuestionJudgement(
            verdict="partial", feedback="A yes/no question. Try asking why or how, so the answer teaches you something."
        )
    return QuestionJudgement(
        verdict="partial", feedback=f"An open question about {concept.name}; tie it to {LABELS[inp.part]} to make it sharper."
    )
