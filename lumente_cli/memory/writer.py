"""Turning a finished session into memory writes, and delivering the outbox.

Facts are built from the engine's numbers only. Every write is queued in the
local database first, then delivered one request at a time with a stable
Idempotency-Key; whatever cannot be delivered now stays queued for the next
run or `lumente memory sync`, and a replay can never write a fact twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lumente_cli.memory import facts as F
from lumente_cli.parts import PartKey

if TYPE_CHECKING:
    from lumente_cli.agent_memory.client import MemoryClient
    from lumente_cli.agent_memory.wire import FactsResponse
    from lumente_cli.session import SessionState
    from lumente_cli.store import LocalStore, OutboxFact

ENTITY_TYPE = F.ENTITY_TYPE
MEMORY_CATEGORY = "knowledge"


@dataclass(frozen=True)
class FactWrite:
    key: str
    value: str
    writer: str
    numbers: tuple[tuple[str, int], ...]


def entity_name(pseudonym: str, concept_id: str) -> str:
    return f"{pseudonym}_{concept_id}"


def session_facts(
    concept_name: str, state: SessionState, *, first_level_write: Callable[[PartKey], bool]
) -> list[FactWrite]:
    """The facts one finished session produces, in the order they are written.

    `first_level_write(part)` says whether memory has no level fact for the part
    yet (first time finished, or after a forget); a level fact is written then,
    and whenever the level changed.
    """
    assert state.finished and state.prediction is not None
    out: list[FactWrite] = []
    for p in state.parts:
        assert p.new_level is not None
        if p.new_level != p.level or first_level_write(p.part):
            out.append(
                FactWrite(F.level_key(p.part), F.level_sentence(concept_name, p.part, p.new_level), "advance",
                          (("level", p.new_level), ("previous", p.level)))
            )
    out.append(
        FactWrite(F.GAP_KEY, F.gap_sentence(concept_name, state.prediction, state.score), "coach",
                  (("predicted", state.prediction), ("score", state.score)))
    )
    for p in state.parts:
        out.append(
            FactWrite(F.help_key(p.part), F.help_sentence(concept_name, p.part, p.help_taps), "hint_giver",
                      (("help", p.help_taps),))
        )
    return out


def check_facts(
    concept_name: str, *, caught: int, flaws: int, false_alarms: int, level: int, new_level: int,
    first_level_write: bool,
) -> list[FactWrite]:
    """The facts one finished `lumente check` round produces: its result, and the check
    level when it changed or memory has none yet."""
    out = [FactWrite(F.CHECK_KEY, F.check_sentence(concept_name, caught, flaws, false_alarms), "check",
                     (("caught", caught), ("flaws", flaws), ("false_alarms", false_alarms)))]
    if new_level != level or first_level_write:
        out.append(FactWrite(F.CHECK_LEVEL_KEY, F.check_level_sentence(concept_name, new_level), "check",
                             (("level", new_level), ("previous", level))))
    return out


def request_body(
    fact: FactWrite, *, scope: str, entity: str, session_id: str, turn: int, observed_at: str
) -> dict[str, Any]:
    labels = [f"session={session_id}", f"turn={turn}", f"writer={fact.writer}"]
    labels += [f"{name}={value}" for name, value in fact.numbers]
    return {
        "infer": "triples",
        "scopes": [[scope]],
        "memory_category": MEMORY_CATEGORY,
        "labels": labels,
        "observed_at": observed_at,
        "triples": [{"entity": {"type": ENTITY_TYPE, "name": entity}, "key": fact.key, "value": fact.value}],
    }


def idempotency_key(pseudonym: str, session_id: str, turn: int, fact: FactWrite, entity: str) -> str:
    """Stable across crashes and reruns: the same session's fact always gets the same key."""
    return f"lumente:{pseudonym}:{session_id}:t{turn}:{fact.writer}:{entity}:{fact.key}"


@dataclass(frozen=True)
class Delivery:
    written: int
    queued: int
    error: str | None = None
    # The service refused this key (401/403): sending again with the same key cannot help.
    refused: bool = False

    @property
    def out_of_time(self) -> bool:
        """The service was answering, only too slowly for the session's budget."""
        return self.error == OUT_OF_TIME


OUT_OF_TIME = "time ran out"
DEADLINE_SLACK_S = 0.05


def deliver(
    store: LocalStore,
    client: MemoryClient,
    scope: str,
    *,
    budget_s: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Delivery:
    """Send the queued facts of one scope, oldest first, one request at a time.

    Stops at the first failure (the service is likely down; later writes would
    fail too) or when the budget runs out; what is left stays queued.
    """
    from lumente_cli.agent_memory.client import MemoryAuthError, MemoryConflict, MemoryError, MemoryForbidden
    from lumente_cli.agent_memory.wire import FactsRequest

    refused = (MemoryAuthError, MemoryForbidden)  # sending again with this key cannot help

    pending = store.pending_facts(scope)
    if not pending:
        return Delivery(0, 0)
    deadline = clock() + budget_s if budget_s is not None else None
    written = 0
    try:
        client.register_scope(scope, deadline=deadline)
    except MemoryError as exc:
        return Delivery(0, len(pending), exc.message, isinstance(exc, refused))
    for item in pending:
        if deadline is not None and clock() >= deadline:
            return Delivery(written, len(pending) - written, OUT_OF_TIME)
        try:
            response = client.write_facts(
                FactsRequest.model_validate(item.body), idempotency_key=item.idempotency_key, deadline=deadline
            )
        except MemoryConflict as exc:
            # The same key is still in flight on the service (a crashed earlier run):
            # leave it queued; the next delivery replays the stored response.
            store.mark_failed(item.idempotency_key, exc.message)
            return Delivery(written, len(pending) - written, exc.message)
        except MemoryError as exc:
            store.mark_failed(item.idempotency_key, exc.message)
            # A write cut short by the budget, after others went through, is a slow
            # service rather than a broken one.
            slow = written > 0 and deadline is not None and clock() >= deadline - DEADLINE_SLACK_S
            return Delivery(written, len(pending) - written, OUT_OF_TIME if slow else exc.message,
                            isinstance(exc, refused))
        store.mark_delivered(item.idempotency_key, _attribute_id(response, item))
        written += 1
    return Delivery(written, 0)


def _attribute_id(response: FactsResponse, fact: OutboxFact) -> str | None:
    """The id the service gave the row it wrote for this fact, if it says."""
    if response.extraction is None:
        return None
    for attribute in response.extraction.attributes:
        if attribute.key == fact.key:
            return attribute.id
    return None
