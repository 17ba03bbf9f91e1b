"""The shipped explanations for `lumente check`: each planted flaw is one of its
concept's real misconceptions as the offline judge reads them, each sound claim is not,
and each flaw's own explanation is a correct objection while the flawed claim is not."""

from __future__ import annotations

import pytest

from lumente_cli.checking.soundness import explanation_problems
from lumente_cli.concepts.explanations import EXPLANATIONS_DIR, load_explanations
from lumente_cli.concepts.library import load_default

LIB = load_default()
FILES = sorted(p.stem for p in EXPLANATIONS_DIR.glob("*.toml"))


def test_every_explanation_file_is_for_a_library_concept() -> None:
    assert FILES, "no explanation files"
    assert set(FILES) <= set(LIB.ids())


@pytest.mark.parametrize("concept_id", FILES)
def test_flaws_are_real_misconceptions_and_sound_claims_are_not(concept_id: str) -> None:
    concept = LIB.resolve(concept_id)
    problems = []
    explanations = load_explanations(concept_id)
    assert len(explanations) >= 2, "at least two explanations per concept"
    assert min(e.difficulty for e in explanations) <= 2 < max(e.difficulty for e in explanations), \
        "one plain explanation and one subtler one"
    for e in explanations:
        problems += explanation_problems(concept, e)
    assert problems == [], "\n".join(problems)
