"""The shipped explanations for `lumente check`: each planted flaw is one of its
concept's real misconceptions as the offline judge reads them, each sound claim is not,
and each flaw's own explanation is a correct objection while the flawed claim is not."""

from __future__ import annotations

import pytest

from lumente_cli.agents.offline import evaluator
from lumente_cli.agents.offline import language as lang
from lumente_cli.concepts.explanations import EXPLANATIONS_DIR, load_explanations
from lumente_cli.concepts.library import load_default

LIB = load_default()
FILES = sorted(p.stem for p in EXPLANATIONS_DIR.glob("*.toml"))


def _asserts_any(phrasings: list[str], text: str) -> bool:
    return any(lang.asserts(lang.compile_phrasing(p), clauses) for p in phrasings for clauses in lang.read(text))


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
        for n, claim in enumerate(e.claims, 1):
            j = evaluator.analyse(concept.part(claim.part), claim.text)
            wrong = bool(j.confusions or j.denied)
            where = f"{e.id} claim {n}"
            if claim.flaw is None and wrong:
                problems.append(f"{where}: a sound claim the judge reads as a misconception")
            if claim.flaw is not None:
                if not wrong:
                    problems.append(f"{where}: the flaw is none of the part's misconceptions as the judge reads them")
                if not _asserts_any(claim.flaw.objection, claim.flaw.why):
                    problems.append(f"{where}: `why` does not state its own objection")
                if _asserts_any(claim.flaw.objection, claim.text):
                    problems.append(f"{where}: the flawed claim itself passes as an objection")
    assert problems == [], "\n".join(problems)
