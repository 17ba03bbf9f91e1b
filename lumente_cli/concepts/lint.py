"""The rules a concept file is held to beyond its schema: the ones that keep content
honest and the offline judge fair. `lumente concepts check FILE` runs them on a
student's or a teacher's own file; the test suite runs them on every shipped one.

Each rule returns problems as sentences naming the part and the field.
"""

from __future__ import annotations

from collections.abc import Iterable

from lumente_cli.concepts.schema import Concept, Part
from lumente_cli.parts import LABELS, PartKey

# Words too common in answers to stand for an idea on their own.
TOO_COMMON = frozenset(
    """data date time thing things way message tail sometimes counter value values server client
    code function user users request requests call calls work works run runs change changes state
    type types key keys token tokens system program file page web app apps old new fresh same
    different one two first last start end part parts example examples kind kinds group""".split()
)
MIN_MISCONCEPTION_CHECKS = 3
MIN_PARAPHRASE_CHECKS = 3


def problems(concept: Concept, library_ids: Iterable[str] = (), *, shipped: bool = False) -> list[str]:
    """Every rule on one concept; `library_ids` are the concepts its links may name."""
    found: list[str] = []
    for key, part in concept.parts():
        found += [f"{LABELS[key]}: {p}" for p in part_problems(concept, key, part)]
    found += check_problems(concept)
    ids = set(library_ids)
    for link in concept.links:
        if link == concept.id or (ids and link not in ids):
            found.append(f"links: {link!r} is not another concept of the library")
    if shipped and concept.area is None:
        found.append("area: a shipped concept says where `lumente concepts` lists it")
    return found


def part_problems(concept: Concept, key: PartKey, part: Part) -> list[str]:
    from lumente_cli.agents.contracts import Shown
    from lumente_cli.agents.offline import evaluator

    def covered(text: str) -> list[str]:
        return [kp.id for kp in evaluator.analyse(part, text).covered]

    def solid(text: str) -> bool:
        return evaluator.verdict_for(part, evaluator.analyse(part, text)) == "solid"

    out: list[str] = []
    for field in ("reference", "worked_example"):
        text = getattr(part, field)
        judged = evaluator.analyse(part, text)
        if evaluator.verdict_for(part, judged) != "solid":
            out.append(f"{field} is not solid by its own rubric (it covers {[kp.id for kp in judged.covered]}; "
                       f"misconceptions {[c.match[0] for c in judged.confusions]}, denied "
                       f"{[kp.id for kp in judged.denied]})")
    # A key point's own statement is a correct answer in the rubric's words: if it fires a
    # misconception or reads as denying an idea, so does every student who says it that way.
    for kp in part.key_points:
        judged = evaluator.analyse(part, kp.point)
        if judged.confusions or judged.denied:
            out.append(f"{kp.id}: its own statement fires misconceptions {[c.match[0] for c in judged.confusions]} "
                       f"and denies {[k.id for k in judged.denied]}")
    for cue in part.cues:
        if solid(cue):
            out.append(f"the cue {cue!r} hands over a solid answer: a cue says where to look")
    if solid(" ".join(part.cues)):
        out.append(f"the cues together give a solid answer ({covered(' '.join(part.cues))})")
    if solid(" ".join(part.guided)):
        out.append("the guided questions together give a solid answer")
    # A text shown before the answer that holds a key idea's words tells instead of
    # pointing, and a student who answers in its words cannot earn that idea.
    for field, texts in (("question", [part.question]), ("guided question", part.guided), ("cue", part.cues)):
        for text in texts:
            if given := sorted(evaluator.gives(part, text)):
                out.append(f"the {field} {text!r} holds the words of {', '.join(given)}: read as a statement it "
                           "covers the idea (reword it to point, or make the phrasing need the idea itself)")
    if solid(part.question):
        out.append("the question itself is a solid answer")
    elif evaluator.evaluate(concept, key, 3, part.question, Shown(prompt=part.question)).verdict != "missing":
        out.append("the question pasted back is not missing")
    counts = [len(covered(h)) for h in part.hints]
    if counts and counts[0]:
        out.append(f"the first hint already covers {counts[0]} key point(s): it should point, not tell")
    if any(b - a > 1 for a, b in zip(counts, counts[1:], strict=False)) or counts != sorted(counts):
        out.append(f"hints should add at most one key point each, never fewer (they cover {counts})")
    for hint in part.hints[:-1]:
        if solid(hint):
            out.append(f"the hint {hint!r} reaches a solid answer before the last one")
    for kp in part.key_points:
        if kp.id in covered(kp.nudge):
            out.append(f"the nudge of {kp.id} states the idea it should point at")
        if not kp.nudge.rstrip().endswith("?"):
            out.append(f"the nudge of {kp.id} is not a question")
        if key in ("coordinate", "subordinate") and not kp.names:
            out.append(f"{kp.id} has no `names` (the neighbour or kind it is about)")
        out += _accept_problems(part, kp.id, kp.accept)
    for confusion in part.confusions:
        if evaluator.analyse(part, confusion.nudge).confusions:
            out.append(f"the nudge {confusion.nudge!r} itself states a misconception")
    if key in ("coordinate", "subordinate"):
        names = " ".join([concept.name, concept.full_name or "", *concept.aliases,
                          *(n.replace("|", " ") for kp in part.key_points for n in kp.names)])
        if covered(names + "."):
            out.append(f"naming alone covers {covered(names + '.')}: accept phrasings must need the difference")
    if not part.confusions:
        out.append("no `confusions`: list the misconceptions students really hold")
    if not part.sources:
        out.append("no `sources`: name what each fact was checked against")
    return out


def _accept_problems(part: Part, kp_id: str, accept: list[str]) -> list[str]:
    from lumente_cli.agents.offline import language as lang

    confusion_words = {w for c in part.confusions for m in c.match for w in lang.words(m.replace("|", " "))}
    out = []
    for phrasing in accept:
        terms = phrasing.split()
        if len(terms) != 1:
            continue
        for alt in terms[0].split("|"):
            ws = lang.words(alt)
            if len(ws) != 1:
                continue
            word = ws[0]
            if word in lang.FUNCTION_WORDS or word in TOO_COMMON:
                out.append(f"{kp_id}: the phrasing {phrasing!r} lets a common word ({word!r}) stand for an idea")
            elif word in confusion_words:
                out.append(f"{kp_id}: the phrasing {phrasing!r} uses a word of this part's misconceptions")
    return out


def check_problems(concept: Concept) -> list[str]:
    """The concept's own example answers get the verdicts they expect."""
    from lumente_cli.agents.offline import evaluator

    out = []
    misconceptions = paraphrases = 0
    for key, part in concept.parts():
        for check in part.checks:
            got = evaluator.evaluate(concept, key, 3, check.answer).verdict
            if got != check.expect:
                out.append(f"{LABELS[key]}: the check {check.answer[:60]!r} is judged {got}, expected {check.expect}")
            misconceptions += check.kind == "misconception" and check.expect == "missing"
            paraphrases += check.kind == "paraphrase" and check.expect == "solid"
    if misconceptions < MIN_MISCONCEPTION_CHECKS:
        out.append(f"checks: at least {MIN_MISCONCEPTION_CHECKS} misconception answers expected missing "
                   f"(there are {misconceptions})")
    if paraphrases < MIN_PARAPHRASE_CHECKS:
        out.append(f"checks: at least {MIN_PARAPHRASE_CHECKS} informal paraphrases expected solid (there are {paraphrases})")
    return out
