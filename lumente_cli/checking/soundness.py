"""Whether an explanation's planted flaws are what they claim to be, as the offline
judge reads them. The shipped explanations are held to these rules by a test, and a
generated one by the round before it is shown: a flaw that is not one of its part's
misconceptions, or an objection its own `why` does not make, would teach the student
to doubt something true or mark a good reason wrong."""

from __future__ import annotations

from lumente_cli.agents.offline import evaluator
from lumente_cli.agents.offline import language as lang
from lumente_cli.concepts.explanations import MAX_CLAIMS, MAX_FLAWS, MIN_CLAIMS, MIN_FLAWS, Explanation
from lumente_cli.concepts.schema import Concept


def asserts_any(phrasings: list[str], text: str) -> bool:
    """`text` asserts one of the key-point `phrasings` (not under a negation)."""
    return any(lang.asserts(lang.compile_phrasing(p), clauses) for p in phrasings for clauses in lang.read(text))


def reads_as_misconception(concept: Concept, part: str, text: str) -> bool:
    """The judge reads `text` as a misconception of the part: one of its confusions, or a
    key point denied."""
    j = evaluator.analyse(concept.part(part), text)  # type: ignore[arg-type]  # a PartKey, validated by Claim
    return bool(j.confusions or j.denied)


def explanation_problems(concept: Concept, explanation: Explanation) -> list[str]:
    """What is wrong with the explanation's claims and flaws ([] when it may be shown)."""
    e = explanation
    problems = []
    if not MIN_CLAIMS <= len(e.claims) <= MAX_CLAIMS:
        problems.append(f"{e.id}: {len(e.claims)} claims, not {MIN_CLAIMS} to {MAX_CLAIMS}")
    if not MIN_FLAWS <= len(e.flaws) <= MAX_FLAWS:
        problems.append(f"{e.id}: {len(e.flaws)} flawed claims, not {MIN_FLAWS} to {MAX_FLAWS}")
    for n, claim in enumerate(e.claims, 1):
        wrong = reads_as_misconception(concept, claim.part, claim.text)
        where = f"{e.id} claim {n}"
        if claim.flaw is None and wrong:
            problems.append(f"{where}: a sound claim the judge reads as a misconception")
        if claim.flaw is not None:
            if not wrong:
                problems.append(f"{where}: the flaw is none of the part's misconceptions as the judge reads them")
            if not asserts_any(claim.flaw.objection, claim.flaw.why):
                problems.append(f"{where}: `why` does not state its own objection")
            if asserts_any(claim.flaw.objection, claim.text):
                problems.append(f"{where}: the flawed claim itself passes as an objection")
    return problems
