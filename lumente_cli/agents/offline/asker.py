"""The offline question asker: presents a part at its level from the concept file."""

from __future__ import annotations

from lumente_cli.agents.contracts import AskInput, Question
from lumente_cli.concepts.schema import Concept
from lumente_cli.parts import ASKS, LABELS


def ask(concept: Concept, inp: AskInput) -> Question:
    part = concept.part(inp.part)
    label = LABELS[inp.part]
    if inp.level == 1:
        return Question(
            prompt=f"Here is {label} for {concept.name}, worked out. Read it, then explain it back in your own words.",
            worked_example=part.worked_example.strip(),
        )
    if inp.level == 2:
        return Question(prompt="\n".join(part.guided), cues=list(part.cues))
    if inp.level == 3:
        return Question(prompt=part.question)
    return Question(prompt=f"{label} of {concept.name}: write {ASKS[inp.part]}.")
