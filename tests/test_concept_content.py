"""Content that stays honest: every concept in the library, shipped or added later,
is checked against its own rubric. The reference is solid; cues and early hints
point without telling; the question pasted back earns nothing; the concept's own
misconception answers are missing and its informal paraphrases solid; no accepted
phrasing is so broad that a common word or a neighbour's name covers a key point.

Run one concept while writing it: python -m pytest tests/test_concept_content.py -k jwt
"""

from __future__ import annotations

import pytest

from lumente_cli.agents.contracts import Shown
from lumente_cli.agents.offline import evaluator
from lumente_cli.agents.offline import language as lang
from lumente_cli.concepts.library import load_library
from lumente_cli.parts import PARTS

LIBRARY = load_library()
IDS = LIBRARY.ids()
PART_CASES = [pytest.param(cid, key, id=f"{cid}.{key}") for cid in IDS for key in PARTS]

# Words too common in answers to stand for an idea on their own.
TOO_COMMON = frozenset(
    """data date time thing things way message tail sometimes counter value values server client
    code function user users request requests call calls work works run runs change changes state
    type types key keys token tokens system program file page web app apps old new fresh same
    different one two first last start end part parts example examples kind kinds group""".split()
)


def concept(cid: str):
    return LIBRARY.concepts[cid].concept


def part_of(cid: str, key: str):
    return concept(cid).part(key)


def covered(part, text: str) -> list[str]:
    return [kp.id for kp in evaluator.analyse(part, text).covered]


def solid_by_coverage(part, text: str) -> bool:
    """Would this text be solid if it were the student's own words?"""
    return evaluator.verdict_for(part, evaluator.analyse(part, text)) == "solid"


@pytest.mark.parametrize("cid,key", PART_CASES)
def test_the_reference_is_solid(cid: str, key: str) -> None:
    part = part_of(cid, key)
    judged = evaluator.analyse(part, part.reference)
    assert evaluator.verdict_for(part, judged) == "solid", (
        f"reference covers {[kp.id for kp in judged.covered]}, confusions {judged.confusions}, listed {judged.listed}"
    )


@pytest.mark.parametrize("cid,key", PART_CASES)
def test_the_worked_example_covers_the_rubric_and_states_no_confusion(cid: str, key: str) -> None:
    part = part_of(cid, key)
    judged = evaluator.analyse(part, part.worked_example)
    assert evaluator.verdict_for(part, judged) == "solid", [kp.id for kp in judged.covered]


@pytest.mark.parametrize("cid,key", PART_CASES)
def test_cues_point_instead_of_telling(cid: str, key: str) -> None:
    part = part_of(cid, key)
    for cue in part.cues:
        assert not solid_by_coverage(part, cue), f"cue tells the answer: {cue!r} covers {covered(part, cue)}"
    joined = " ".join(part.cues)
    assert not solid_by_coverage(part, joined), f"the cues together give a solid answer: {covered(part, joined)}"
    guided = " ".join(part.guided)
    assert not solid_by_coverage(part, guided), f"the guided questions give the answer: {covered(part, guided)}"


@pytest.mark.parametrize("cid,key", PART_CASES)
def test_the_question_pasted_back_earns_nothing(cid: str, key: str) -> None:
    part = part_of(cid, key)
    assert not solid_by_coverage(part, part.question), covered(part, part.question)
    verdict = evaluator.evaluate(concept(cid), key, 3, part.question, Shown(prompt=part.question)).verdict
    assert verdict == "missing"


@pytest.mark.parametrize("cid,key", PART_CASES)
def test_hints_go_from_vague_to_specific(cid: str, key: str) -> None:
    part = part_of(cid, key)
    counts = [len(covered(part, hint)) for hint in part.hints]
    assert counts[0] == 0, f"the first hint should point, not tell: {counts}"
    assert all(b - a <= 1 for a, b in zip(counts, counts[1:], strict=False)), f"each hint adds at most one idea: {counts}"
    assert counts == sorted(counts), f"hints never get vaguer: {counts}"
    for hint in part.hints[:-1]:
        assert not solid_by_coverage(part, hint), f"only the last hint may reach a solid answer: {hint!r}"


@pytest.mark.parametrize("cid,key", PART_CASES)
def test_no_nudge_gives_its_key_point_away(cid: str, key: str) -> None:
    part = part_of(cid, key)
    for kp in part.key_points:
        assert kp.id not in covered(part, kp.nudge), f"nudge of {kp.id} states the idea: {kp.nudge!r}"
    for confusion in part.confusions:
        assert not evaluator.analyse(part, confusion.nudge).confusions, f"nudge asserts a confusion: {confusion.nudge!r}"


@pytest.mark.parametrize("cid", IDS)
def test_the_concept_checks_its_misconceptions_and_paraphrases(cid: str) -> None:
    c = concept(cid)
    misconceptions = paraphrases = 0
    for key, part in c.parts():
        for check in part.checks:
            got = evaluator.evaluate(c, key, 3, check.answer).verdict
            assert got == check.expect, f"{key}: {check.answer!r} is {got}, expected {check.expect}"
            misconceptions += check.kind == "misconception" and check.expect == "missing"
            paraphrases += check.kind == "paraphrase" and check.expect == "solid"
    assert misconceptions >= 3, "each concept carries at least 3 misconception answers judged missing"
    assert paraphrases >= 3, "each concept carries at least 3 informal paraphrases judged solid"


@pytest.mark.parametrize("cid,key", PART_CASES)
def test_no_accept_phrasing_is_a_common_word_or_a_confusion_word(cid: str, key: str) -> None:
    part = part_of(cid, key)
    confusion_words = {w for c in part.confusions for m in c.match for w in lang.words(m.replace("|", " "))}
    for kp in part.key_points:
        for phrasing in kp.accept:
            terms = phrasing.split()
            if len(terms) != 1:
                continue
            for alt in terms[0].split("|"):
                ws = lang.words(alt)
                if len(ws) != 1:
                    continue
                word = ws[0]
                assert word not in lang.FUNCTION_WORDS, f"{kp.id}: {phrasing!r} is a stop word alone"
                assert word not in TOO_COMMON, f"{kp.id}: {phrasing!r} is too common a word to stand for an idea"
                assert word not in confusion_words, f"{kp.id}: {phrasing!r} also appears in this part's confusions"


@pytest.mark.parametrize("cid,key", PART_CASES)
def test_naming_a_neighbour_or_a_kind_covers_nothing(cid: str, key: str) -> None:
    c = concept(cid)
    part = c.part(key)
    if key not in ("coordinate", "subordinate"):
        return
    for kp in part.key_points:
        assert kp.names, f"{kp.id}: a {key} key point names its neighbour or kind in `names`"
    names = [n.replace("|", " ") for kp in part.key_points for n in kp.names]
    everything = " ".join([c.name, c.full_name or "", *c.aliases, *names])
    named_only = f"{everything}."
    assert covered(part, named_only) == [], f"names alone cover {covered(part, named_only)}"


@pytest.mark.parametrize("cid,key", PART_CASES)
def test_each_part_names_its_sources(cid: str, key: str) -> None:
    part = part_of(cid, key)
    assert part.sources, "name the sources (RFCs, MDN, OWASP, language docs) this part was checked against"
    for source in part.sources:
        assert len(source) > 8


@pytest.mark.parametrize("cid,key", PART_CASES)
def test_part_has_the_help_material(cid: str, key: str) -> None:
    part = part_of(cid, key)
    assert len(part.hints) >= 3
    assert len(part.guided) >= 2 and len(part.cues) >= 2
    assert 2 <= len(part.key_points) <= 5
    for kp in part.key_points:
        assert kp.nudge.rstrip().endswith("?"), f"{kp.id}: a nudge is a question"
    for confusion in part.confusions:
        assert confusion.nudge.rstrip().endswith("?")
    assert part.confusions, "every part lists the misconceptions students really hold"


@pytest.mark.parametrize("cid", IDS)
def test_the_concept_has_an_area_and_links_only_to_library_concepts(cid: str) -> None:
    c = concept(cid)
    if LIBRARY.concepts[cid].origin == "library":
        assert c.area is not None, "a shipped concept says where `lumente concepts` lists it"
    for link in c.links:
        assert link != cid and link in LIBRARY.concepts, f"link {link!r} is not a concept of the library"
