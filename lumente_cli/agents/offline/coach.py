"""The offline coach: a short note on calibration, the parts, and what to do next,
comparing with remembered facts (and citing them) when memory has any, the last
`lumente check` round on the concept included."""

from __future__ import annotations

from lumente_cli.agents.contracts import CoachInput, PartResult, Remark
from lumente_cli.concepts.schema import Concept
from lumente_cli.memory.facts import MemoryFact
from lumente_cli.parts import LABELS


def coach(concept: Concept, inp: CoachInput) -> Remark:
    sentences: list[str] = [_calibration(inp.prediction, inp.score)]
    cites: list[str] = []

    gap = next((f for f in inp.memory if f.kind == "gap"), None)
    if gap is not None and gap.predicted is not None and gap.proved is not None:
        before, now = abs(gap.predicted - gap.proved), abs(inp.prediction - inp.score)
        if now < before:
            sentences.append(f"Your guess was closer than last time (off by {now} now, by {before} then).")
        elif now > before:
            sentences.append(f"Your guess was further off than last time (off by {now} now, by {before} then).")
        else:
            sentences.append(f"Your guess was as close as last time (off by {now} both times).")
        cites.append(gap.id)

    remark = _help_or_level_remark(inp.results, inp.memory)
    if remark:
        sentences.append(remark[0])
        cites.append(remark[1])

    check = next((f for f in inp.memory if f.kind == "check"), None)
    if check is not None and check.caught is not None and check.flaws is not None:
        sentences.append(f"In your last `lumente check` round on {concept.name} you caught {check.caught} of "
                         f"{check.flaws} flaws in an AI's explanation; the parts you prove here are what you "
                         "judge such claims with.")
        cites.append(check.id)

    sentences.append(_next_step(concept, inp.results))
    return Remark(message=" ".join(sentences), cites=cites)


def _calibration(prediction: int, score: int) -> str:
    if score == prediction:
        return f"You predicted {prediction} and proved exactly {score}: well calibrated."
    if score > prediction:
        return f"You predicted {prediction} and proved {score}: you know more than you thought."
    return f"You predicted {prediction} and proved {score}: explaining it was harder than it felt."


def _help_or_level_remark(results: tuple[PartResult, ...], memory: tuple[MemoryFact, ...]) -> tuple[str, str] | None:
    """The single most telling comparison with memory: Help first, then levels."""
    by_part = {r.part: r for r in results}
    helps = sorted(
        (f for f in memory if f.kind == "help" and f.part in by_part and f.help_taps is not None),
        key=lambda f: abs((f.help_taps or 0) - by_part[f.part].help_taps),  # type: ignore[index]
        reverse=True,
    )
    for fact in helps:
        then, now = fact.help_taps or 0, by_part[fact.part].help_taps  # type: ignore[index]
        label = LABELS[fact.part]  # type: ignore[index]
        if now < then:
            return f"{label} needed {_taps(then)} last time and {_taps(now)} today.", fact.id
        if now > then:
            return f"{label} took {_taps(now)} today against {_taps(then)} last time; worth another look.", fact.id
    for fact in memory:
        if fact.kind == "level" and fact.part in by_part and fact.level is not None:
            result = by_part[fact.part]
            if result.new_level != fact.level:
                direction = "up" if result.new_level > fact.level else "down"
                return (
                    f"{LABELS[fact.part]} moves {direction} from level {fact.level} to {result.new_level}.",
                    fact.id,
                )
    return None


def _next_step(concept: Concept, results: tuple[PartResult, ...]) -> str:
    weakest = min(results, key=lambda r: (r.points, -r.help_taps), default=None)
    if weakest is None or weakest.points == 2:
        if concept.links:  # solid here: the neighbour it is most often confused with is the next step
            return (f"Every part was solid; a good next concept is its neighbour: "
                    f"`lumente practice {concept.links[0]}`.")
        return "Every part was solid; next time, try asking sharper questions of your own."
    nudge = concept.part(weakest.part).key_points[0].nudge
    return f"Next time, start with {LABELS[weakest.part]}: {nudge}"


def _taps(n: int) -> str:
    return "no Help" if n == 0 else ("one hint" if n == 1 else f"{n} hints")
