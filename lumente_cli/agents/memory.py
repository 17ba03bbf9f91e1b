"""`with_memory` and `verify_cites`: how remembered facts reach agents, and how
citations are checked before anything reaches the screen.

Memory is read at most once per session, lazily, the first time the hint giver
or the coach runs. Only those two roles get facts; every other call passes
through untouched. If recall fails, is slow or finds nothing, the agents get
exactly the input they would have had without memory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from lumente_cli.agents.contracts import MEMORY_ROLES, AgentRole, Remark
from lumente_cli.memory.facts import MemoryFact
from lumente_cli.memory.recall import Recall


@dataclass(frozen=True)
class CallRecord:
    role: str
    facts_given: tuple[str, ...]
    cites_kept: tuple[str, ...]
    cites_dropped: tuple[str, ...]


def verify_cites(cites: Sequence[str], given: Sequence[MemoryFact]) -> tuple[list[str], list[str]]:
    """Keep only IDs that were sent (each once, in order); return (kept, dropped)."""
    sent = {f.id for f in given}
    kept = [c for c in dict.fromkeys(cites) if c in sent]
    dropped = [c for c in cites if c not in sent]
    return kept, dropped


@dataclass
class MemoryTurn:
    """Wraps a provider's `call(role, input)`; `recall` runs once, on first need."""

    call_agent: Callable[[AgentRole, BaseModel], Any]
    recall: Callable[[], Recall]
    on_recall: Callable[[Recall], None] = lambda _r: None
    on_call: Callable[[CallRecord], None] = lambda _c: None
    _result: Recall | None = field(default=None, init=False)

    @property
    def result(self) -> Recall | None:
        return self._result

    def facts(self) -> tuple[MemoryFact, ...]:
        return self._result.facts if self._result else ()

    def call(self, role: AgentRole, inp: BaseModel) -> Any:
        if role not in MEMORY_ROLES:
            return self.call_agent(role, inp)
        if self._result is None:
            self._result = self.recall()
            self.on_recall(self._result)
        facts = self._result.facts
        out = self.call_agent(role, inp.model_copy(update={"memory": facts}) if facts else inp)
        if isinstance(out, Remark):
            kept, dropped = verify_cites(out.cites, facts)
            out = out.model_copy(update={"cites": kept})
            self.on_call(CallRecord(role, tuple(f.id for f in facts), tuple(kept), tuple(dropped)))
        return out

    def cited(self, remark: Remark) -> list[MemoryFact]:
        by_id = {f.id: f for f in self.facts()}
        return [by_id[c] for c in remark.cites if c in by_id]
