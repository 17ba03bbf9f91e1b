"""`lumente memory forget`: what forgetting would erase, then erasing it in an
order that cannot bring anything back, proved by reading memory again."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lumente_cli.memory.inspection import current_facts, learner_concepts
from lumente_cli.memory.pseudonym import scope_of

if TYPE_CHECKING:
    from lumente_cli.agent_memory.client import MemoryClient
    from lumente_cli.store import LocalStore


@dataclass(frozen=True)
class Holdings:
    """What memory and this machine hold about one learner: what forgetting would erase."""

    pseudonym: str
    scope: str
    concepts: tuple[str, ...]
    facts: int  # current facts memory holds (the values they replaced are erased with them)
    pending: int  # facts waiting in the local outbox
    learner_id: int | None  # the local learner, if they ever practised on this machine


@dataclass(frozen=True)
class Forgotten:
    scope: str
    rows: int  # what the service erased: storage rows, not facts (see `lumente memory forget`'s output)
    facts_before: int
    left: int  # facts still readable afterwards: 0 unless the service kept some
    local: dict[str, int]  # what was cleared locally: outbox, delivery log, read counts
    sessions_deleted: int | None  # None when the local sessions were kept
    scan_findings_deleted: int | None = None  # the last scan's findings, deleted with the sessions


def survey(client: MemoryClient, store: LocalStore, pseudonym: str, *, deadline: float | None = None) -> Holdings:
    concepts = learner_concepts(client, pseudonym, deadline=deadline)
    facts = current_facts(client, pseudonym, concepts, as_of=None, read_counts=store.read_counts, deadline=deadline)
    scope = scope_of(pseudonym)
    return Holdings(pseudonym, scope, tuple(concepts), len(facts), store.count_pending(scope),
                    store.find_learner(pseudonym))


def forget(holdings: Holdings, client: MemoryClient, store: LocalStore, *, delete_sessions: bool) -> Forgotten:
    """Erase the learner's whole scope in one call and read back what is left."""
    # Local caches first, so nothing queued can re-send what is about to be erased.
    local = store.forget_scope(holdings.scope)
    rows = client.forget_scope(holdings.scope)
    left = current_facts(client, holdings.pseudonym, learner_concepts(client, holdings.pseudonym), as_of=None,
                         read_counts=store.read_counts)
    sessions = scan_findings = None
    if delete_sessions and holdings.learner_id is not None:
        sessions = store.delete_learner_sessions(holdings.learner_id)
        scan_findings = store.delete_learner_scan(holdings.learner_id)
    return Forgotten(holdings.scope, rows, holdings.facts, len(left), local, sessions, scan_findings)
