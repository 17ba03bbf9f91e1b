"""The offline hint giver and coach of `lumente check`, comparing with remembered
facts (and citing them) when memory has any.

A hint names the part of the map a flaw breaks and asks the flaw's own nudge; it
never names a claim or its number, so what it remembers is said without numbers."""

from __future__ import annotations

from lumente_cli.agents.contracts import CheckCoachInput, CheckHintInput, Remark
from lumente_cli.concepts.schema import Concept
from lumente_cli.memory.facts import MemoryFact
from lumente_cli.parts import LABELS


class OfflineCheckAgents:
    name = "offline"

    def __init__(self, concept: Concept) -> None:
        self.concept = concept

    def hint(self, inp: CheckHintInput) -> Remark:
        return hint(self.concept, inp)

    def coach(self, inp: CheckCoachInput) -> Remark:
        return coach(self.concept, inp)


def hint(concept: Concept, inp: CheckHintInput) -> Remark:
    text = f"{LABELS[inp.part]}: {inp.nudge}"
    last = _fact(inp.memory, "check")
    if inp.tap != 1 or last is None or last.caught is None or last.flaws is None:
        return Remark(message=text)
    if last.false_alarms:
        remark = f"Last round on {concept.name} you flagged a sound claim: a claim can sound odd and still be right."
    elif last.caught < last.flaws:
        remark = f"Last round on {concept.name} a flaw got past you: read each claim as if you had to defend it."
    else:
        remark = f"Last round on {concept.name} you caught every flaw; the same care will do."
    return Remark(message=f"{remark} {text}", cites=[last.id])


def coach(concept: Concept, inp: CheckCoachInput) -> Remark:
    sentences = [_calibration(inp)]
    cites: list[str] = []
    last = _fact(inp.memory, "check")
    if last is not None and last.caught is not None and last.flaws and last.false_alarms is not None and inp.flaws:
        sentences.append(_against_last_round(inp, last.caught, last.flaws, last.false_alarms))
        cites.append(last.id)
    practice = _practice_level(inp)
    if practice is not None:
        sentences.append(practice[0])
        cites.append(practice[1])
    sentences.append(_next_step(concept, inp))
    return Remark(message=" ".join(sentences), cites=cites)


def _fact(memory: tuple[MemoryFact, ...], kind: str) -> MemoryFact | None:
    return next((f for f in memory if f.kind == kind), None)


def _calibration(inp: CheckCoachInput) -> str:
    head = f"You predicted {inp.prediction} and judged {inp.score} of {inp.claims} claims right"
    if inp.score == inp.prediction:
        return f"{head}: well calibrated."
    if inp.score > inp.prediction:
        return f"{head}: you judge better than you thought."
    return f"{head}: judging it was harder than it felt."


def _against_last_round(inp: CheckCoachInput, caught: int, flaws: int, false_alarms: int) -> str:
    now, then = inp.caught / inp.flaws, caught / flaws
    share = ("a larger share of the flaws than" if now > then else
             "a smaller share of the flaws than" if now < then else "the same share of the flaws as")
    alarms = ("fewer" if inp.false_alarms < false_alarms else
              "more" if inp.false_alarms > false_alarms else "as many")
    return (f"You caught {share} last round ({inp.caught} of {inp.flaws} now, {caught} of {flaws} "
            f"then) and flagged {alarms} sound claims ({inp.false_alarms} now, {false_alarms} then).")


def _practice_level(inp: CheckCoachInput) -> tuple[str, str] | None:
    """A flaw that got past the student, in a part their practice has at a low level."""
    for part in inp.missed_parts:
        fact = next((f for f in inp.memory if f.kind == "level" and f.part == part and f.level is not None), None)
        if fact is not None and fact.level is not None and fact.level <= 3:
            return (f"In practice, {LABELS[part]} is at level {fact.level} for you: working on it there "
                    f"sharpens the eye for flaws like the one you missed.", fact.id)
    return None


def _next_step(concept: Concept, inp: CheckCoachInput) -> str:
    if inp.wrong_reasons:
        return ("Next time, for each claim you flag, say what exactly it gets wrong and what is true instead: "
                "spotting that a claim is wrong is half of it.")
    if inp.missed_parts:
        return (f"Next time, read the claims about {LABELS[inp.missed_parts[0]]} twice: that is where a flaw "
                f"got past you (`lumente practice {concept.id}` works on it).")
    if inp.false_alarms:
        return "Next time, before flagging a claim, say what exactly is false in it; if you cannot, it may be sound."
    if inp.new_level > inp.level:
        return "Every claim judged right: the next round is harder."
    return "Every flaw caught: keep judging what an AI tells you this way."
