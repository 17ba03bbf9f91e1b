"""`lumente memory sync`: deliver every scope's waiting facts, all within one time budget."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lumente_cli.memory.writer import deliver

if TYPE_CHECKING:
    from lumente_cli.agent_memory.client import MemoryClient
    from lumente_cli.store import LocalStore


@dataclass(frozen=True)
class ScopeSync:
    scope: str
    written: int
    queued: int
    error: str | None

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.scope, "written": self.written, "queued": self.queued, "error": self.error}


@dataclass(frozen=True)
class Synced:
    scopes: tuple[ScopeSync, ...]  # one per scope that had facts waiting, in scope order

    @property
    def written(self) -> int:
        return sum(s.written for s in self.scopes)

    @property
    def queued(self) -> int:
        return sum(s.queued for s in self.scopes)

    @property
    def errors(self) -> list[str]:
        return [s.error for s in self.scopes if s.error]


def sync_outbox(
    store: LocalStore, client: Callable[[], MemoryClient], *, budget_s: float,
    clock: Callable[[], float] = time.monotonic,
) -> Synced:
    """Deliver each scope's facts in turn; a scope left without time keeps its facts queued.

    `client` opens the memory client: it is called only when some fact is waiting,
    so an empty outbox never opens the memory database or the network."""
    deadline = clock() + budget_s
    done = []
    for scope in sorted({p.scope for p in store.pending_facts()}):
        d = deliver(store, client(), scope, budget_s=max(0.0, deadline - clock()), clock=clock)
        done.append(ScopeSync(scope, d.written, d.queued, d.error))
    return Synced(tuple(done))
