"""Content that stays honest: every concept in the library, shipped or added later, is
held to the rules of `lumente_cli.concepts.lint` (the same rules `lumente concepts check`
applies to a user's file). The reference is solid by its own rubric; cues and early hints
point without telling; the question pasted back earns nothing; the concept's own
misconception answers are missing and its informal paraphrases solid; no accepted phrasing
is so broad that a common word or a neighbour's name covers a key point; every part names
its sources and its misconceptions.

Run one concept while writing it: python -m pytest tests/test_concept_content.py -k jwt
"""

from __future__ import annotations

import pytest

from lumente_cli.concepts import lint
from lumente_cli.concepts.library import load_library
from lumente_cli.concepts.schema import Confusion

LIBRARY = load_library()
IDS = LIBRARY.ids()


@pytest.mark.parametrize("cid", IDS)
def test_the_concept_keeps_every_content_rule(cid: str) -> None:
    source = LIBRARY.concepts[cid]
    found = lint.problems(source.concept, IDS, shipped=source.origin == "library")
    assert found == [], "\n".join(found)


def test_the_rules_catch_what_they_are_for():
    """A concept made to break each rule is reported for each, so the test above can fail."""
    jwt = LIBRARY.resolve("jwt")
    part = jwt.supraordinate
    broken = jwt.model_copy(update={"supraordinate": part.model_copy(update={
        "cues": [part.reference, *part.cues],  # a cue that hands over the answer
        "hints": [part.hints[-1], *part.hints],  # the first hint tells everything
        "guided": [*part.guided, f"{part.key_points[0].point} Why?"],  # a question that tells
        "sources": [],
        "confusions": [],
    }), "links": ["nope"]})
    found = "\n".join(lint.problems(broken, IDS, shipped=True))
    for expected in ("hands over a solid answer", "first hint already covers", "no `sources`", "no `confusions`",
                     "'nope' is not another concept", f"the guided question {part.key_points[0].point + ' Why?'!r} holds"):
        assert expected in found, expected


def test_a_key_points_own_statement_may_not_fire_its_parts_grader():
    """A correct answer in the rubric's own words is judged wrong: the rule finds it."""
    part = LIBRARY.resolve("jwt").supraordinate
    wrong = Confusion(match=["carries claims"], nudge="What does the token carry?")
    broken = part.model_copy(update={"confusions": [*part.confusions, wrong]})
    found = "\n".join(lint.part_problems(LIBRARY.resolve("jwt"), "supraordinate", broken))
    assert "claims: its own statement fires misconceptions ['carries claims']" in found
    assert "its own statement" not in "\n".join(lint.part_problems(LIBRARY.resolve("jwt"), "supraordinate", part))
