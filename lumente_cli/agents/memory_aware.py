"""`MemoryAwareAgents`: a provider with memory in front of the two agents that
may use it, and `verify_cites`, which checks citations before anything
reaches the screen.

Memory is read at most once per session, lazily, the first time the hint giver
or the coach runs. Only those two get facts; the question asker, the evaluator
and the question judge are the wrapped provider's own methods, called straight
through. If recall fails, is slow or finds nothing, the hint giver and the
coach get exactly the input they would have had without memory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from lumente_cli.agents.contracts import (
    AskInput,
    CoachInput,
    EvaluateInput,
    Evaluation,
    HintInput,
    JudgeInput,
    Question,
    QuestionJudgement,
    Remark,
)
from lumente_cli.agents.protocol import Agents
from lumente_cli.memory.facts import MemoryFact
from lumente_cli.memory.recall import Recall

MemoryRole = Literal["hint_giver", "coach"]


def verify_cites(cites: Sequence[str], given: Sequence[MemoryFact]) -> tuple[list[str], list[str]]:
    """Keep only IDs that were sent (each once, in order); return (kept, dropped)."""
    sent = {f.id for f in given}
    kept = [c for c in dict.fromkeys(cites) if c in sent]
    dropped = [c for c in cites if c not in sent]
    return kept, dropped


@dataclass(frozen=True)
class MemoryFedCall:
    """One call to the hint giver or the coach: the facts it was given, and which of
    the IDs it cited were kept (sent) or dropped (not sent)."""

    role: MemoryRole
    facts_given: tuple[MemoryFact, ...]
    cites_kept: tuple[str, ...]
    cites_dropped: tuple[str, ...]
    # The session's one read of memory, on the call that made it; None on later calls.
    recall: Recall | None = None

    @property
    def cited(self) -> tuple[MemoryFact, ...]:
        """The facts the kept citations name, in the order they were cited."""
        by_id = {f.id: f for f in self.facts_given}
        return tuple(by_id[c] for c in self.cites_kept)


@dataclass
class MemoryAwareAgents:
    """Any provider, with lazy recall and citation checking for the hint giver and
    the coach. It implements `Agents` itself, so callers cannot tell it from the
    provider it wraps, except that it keeps a record of each memory-fed call for
    whoever logs them (`take_calls`)."""

    agents: Agents
    recall: Callable[[], Recall]
    name: str = field(init=False)
    recalled: Recall | None = field(default=None, init=False)
    _calls: list[MemoryFedCall] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.name = self.agents.name

    # the three agents memory never touches ------------------------------------------

    def ask(self, inp: AskInput) -> Question:
        return self.agents.ask(inp)

    def evaluate(self, inp: EvaluateInput) -> Evaluation:
        return self.agents.evaluate(inp)

    def judge(self, inp: JudgeInput) -> QuestionJudgement:
        return self.agents.judge(inp)

    # the two that may be told what memory holds ------------------------------------------

    def hint(self, inp: HintInput) -> Remark:
        return self.fed("hint_giver", lambda facts: self.agents.hint(
            inp.model_copy(update={"memory": facts}) if facts else inp))

    def coach(self, inp: CoachInput) -> Remark:
        return self.fed("coach", lambda facts: self.agents.coach(
            inp.model_copy(update={"memory": facts}) if facts else inp))

    def fed(self, role: MemoryRole, call: Callable[[tuple[MemoryFact, ...]], Remark]) -> Remark:
        """Any hint giver or coach (`lumente check`'s too): `call` gets what memory
        recalled, and the citations of its remark are checked against those facts."""
        fresh = self._recall_once()
        facts = self._facts()
        return self._checked(role, call(facts), facts, fresh)

    def take_calls(self) -> list[MemoryFedCall]:
        """The memory-fed calls made since the last take, oldest first."""
        calls, self._calls = self._calls, []
        return calls

    # -----------------------------------------------------------------------------------

    def _recall_once(self) -> Recall | None:
        """Read memory on first need; returns the read when this call made it."""
        if self.recalled is not None:
            return None
        self.recalled = self.recall()
        return self.recalled

    def _facts(self) -> tuple[MemoryFact, ...]:
        return self.recalled.facts if self.recalled is not None else ()

    def _checked(self, role: MemoryRole, remark: Remark, facts: tuple[MemoryFact, ...],
                 fresh: Recall | None) -> Remark:
        kept, dropped = verify_cites(remark.cites, facts)
        self._calls.append(MemoryFedCall(role, facts, tuple(kept), tuple(dropped), fresh))
        return remark.model_copy(update={"cites": kept})
