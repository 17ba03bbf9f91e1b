"""The offline hint giver: the concept's hints from vague to specific, and,
when memory holds a fact about this part, a remark built on it (and cited)."""

from __future__ import annotations

from lumente_cli.agents.contracts import HintInput, Remark
from lumente_cli.concepts.schema import Concept
from lumente_cli.memory.facts import MemoryFact
from lumente_cli.parts import LABELS


def hint(concept: Concept, inp: HintInput) -> Remark:
    hints = concept.part(inp.part).hints
    index = min(inp.tap, len(hints)) - 1
    text = hints[index]
    if inp.tap > len(hints):
        text = f"That was the last hint for this part; here it is again. {text}"
    remark, cites = _from_memory(inp, concept)
    if remark:
        return Remark(message=f"{remark} {text}", cites=cites)
    return Remark(message=text)


def _from_memory(inp: HintInput, concept: Concept) -> tuple[str, list[str]]:
    """One remark that compares with an earlier session, only on the first tap."""
    if inp.tap != 1:
        return "", []
    label = LABELS[inp.part]
    help_fact = _find(inp.memory, "help", inp)
    if help_fact is not None and help_fact.help_taps is not None:
        taps = help_fact.help_taps
        if taps == 0:
            return f"Last time you did {label} without any Help, so trust what you already know.", [help_fact.id]
        if taps == 1:
            return f"Last time {label} took one hint; see whether you need more than this one.", [help_fact.id]
        return (
            f"Last time {label} needed {_count(taps)} hints; start from this one and see if fewer will do.",
            [help_fact.id],
        )
    level_fact = _find(inp.memory, "level", inp)
    if level_fact is not None and level_fact.level is not None:
        if level_fact.level < inp.level:
            return f"You have moved up on {label} since memory last noted level {level_fact.level}.", [level_fact.id]
        return f"Memory has {label} at level {level_fact.level} for you on {concept.name}.", [level_fact.id]
    return "", []


def _find(facts: tuple[MemoryFact, ...], kind: str, inp: HintInput) -> MemoryFact | None:
    return next((f for f in facts if f.kind == kind and f.part == inp.part), None)


def _count(n: int) -> str:
    words = {2: "two", 3: "three", 4: "four", 5: "five"}
    return words.get(n, str(n))
