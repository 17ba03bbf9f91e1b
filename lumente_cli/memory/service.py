"""One learner's memory for one concept: recall within a budget, and writing
a finished session's facts through the outbox. The runner talks to this."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from lumente_cli.memory import facts as F
from lumente_cli.memory import writer
from lumente_cli.memory.backend import MemoryBackend
from lumente_cli.memory.pseudonym import scope_of
from lumente_cli.memory.recall import Focus, Recall, facts_of
from lumente_cli.parts import PartKey
from lumente_cli.session import SessionState
from lumente_cli.store import LocalStore
from lumente_cli.store.memory_log import OutboxFact

# What a session may spend on memory, in the worst case (docs/serve.md has the
# fault cases): recall, then writing, with less for writing when recall already
# found memory unreachable this session. What is not written in time waits in
# the outbox for the next run or `lumente memory sync`.
RECALL_BUDGET_S = 1.5
WRITE_BUDGET_S = 2.0
WRITE_BUDGET_AFTER_FAILED_RECALL_S = 1.0


@dataclass
class LearnerMemory:
    backend: MemoryBackend
    store: LocalStore
    pseudonym: str
    concept_id: str
    clock: Callable[[], float] = time.monotonic
    unreachable: bool = field(default=False, init=False)  # recall got no usable answer this session

    @property
    def scope(self) -> str:
        return scope_of(self.pseudonym)

    @property
    def entity(self) -> str:
        return writer.entity_name(self.pseudonym, self.concept_id)

    def recall(self, session_id: str, focus: Focus = "practice") -> Recall:
        from lumente_cli.agent_memory.client import MemoryError, MemoryUnavailable

        if not self.backend.enabled:
            return Recall("off", reason="memory is off")
        started = self.clock()
        try:
            facts = facts_of(
                self.backend.client(),
                writer.ENTITY_TYPE,
                self.entity,
                exclude_ids=self.store.fact_ids_of_session(session_id),
                deadline=started + RECALL_BUDGET_S,
                focus=focus,
            )
        except MemoryError as exc:
            self.unreachable = isinstance(exc, MemoryUnavailable)
            if self.clock() - started >= RECALL_BUDGET_S:
                return Recall("unavailable", reason=f"memory did not answer within {RECALL_BUDGET_S:g} s")
            return Recall("unavailable", reason=exc.message)
        return Recall("recalled" if facts else "empty", tuple(facts))

    def queue_session(self, session_id: str, concept_name: str, state: SessionState, observed_at: str) -> int:
        """Queue the finished session's facts locally (always succeeds or raises StorageError)."""
        def first_level_write(part: PartKey) -> bool:
            return not self.store.has_fact_key(self.scope, self.entity, f"level_{part}")

        facts = writer.session_facts(concept_name, state, first_level_write=first_level_write)
        turn = len(state.parts) + sum(p.help_taps for p in state.parts)
        return self._queue(session_id, facts, turn, observed_at)

    def queue_check(self, round_id: str, concept_name: str, *, caught: int, flaws: int, false_alarms: int,
                    level: int, new_level: int, claims: int, observed_at: str) -> int:
        """Queue a finished check round's facts locally, as `queue_session` does a session's."""
        facts = writer.check_facts(
            concept_name, caught=caught, flaws=flaws, false_alarms=false_alarms, level=level, new_level=new_level,
            first_level_write=not self.store.has_fact_key(self.scope, self.entity, F.CHECK_LEVEL_KEY))
        return self._queue(round_id, facts, claims, observed_at)

    def _queue(self, session_id: str, facts: list[writer.FactWrite], turn: int, observed_at: str) -> int:
        return self.store.queue_facts(
            OutboxFact(
                idempotency_key=writer.idempotency_key(self.pseudonym, session_id, turn, fact, self.entity),
                scope=self.scope,
                session_id=session_id,
                entity=self.entity,
                key=fact.key,
                body=writer.request_body(
                    fact, scope=self.scope, entity=self.entity, session_id=session_id, turn=turn,
                    observed_at=observed_at,
                ),
            )
            for fact in facts
        )

    def deliver(self, budget_s: float | None = WRITE_BUDGET_S) -> writer.Delivery:
        from lumente_cli.agent_memory.client import MemoryError

        pending = self.store.count_pending(self.scope)
        if not pending:
            return writer.Delivery(0, 0)
        if not self.backend.enabled:
            return writer.Delivery(0, pending, "memory is off")
        try:
            client = self.backend.client()
        except MemoryError as exc:
            return writer.Delivery(0, pending, exc.message)
        if self.unreachable and budget_s is not None:
            budget_s = min(budget_s, WRITE_BUDGET_AFTER_FAILED_RECALL_S)
        return writer.deliver(self.store, client, self.scope, budget_s=budget_s, clock=self.clock)
