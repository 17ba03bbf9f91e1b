"""`memory sync`'s procedure below the CLI: one time budget for every scope,
and an empty outbox that never opens memory. The CLI tests reach the rest."""

from __future__ import annotations

import pytest
from helpers import lumente, solid_script

from lumente_cli import paths
from lumente_cli.memory.backend import embedded_client
from lumente_cli.memory.sync import sync_outbox
from lumente_cli.store import LocalStore

UNREACHABLE = {"LUMENTE_MEMORY_URL": "http://127.0.0.1:9"}
BUDGET_S = 2.0


@pytest.fixture()
def two_learners_waiting():
    """Two learners' sessions whose facts could not be delivered: two scopes in the outbox."""
    for who in ("ada", "grace"):
        assert lumente("login", who).exit_code == 0
        assert lumente("practice", "jwt", input=solid_script(5), env=UNREACHABLE).exit_code == 0
    store = LocalStore(paths.current().database)
    yield store
    store.close()


def test_an_empty_outbox_never_opens_memory():
    store = LocalStore(paths.current().database)

    def no_client():
        raise AssertionError("memory was opened with nothing to deliver")

    result = sync_outbox(store, no_client, budget_s=5.0)
    store.close()
    assert result.scopes == () and result.written == result.queued == 0


def test_every_scope_is_delivered_in_order_within_one_budget(two_learners_waiting):
    import time

    store = two_learners_waiting
    first, second = sorted({p.scope for p in store.pending_facts()})
    each = store.count_pending(first)
    assert each > 0 and store.count_pending(second) == each

    with embedded_client(paths.current().memory_database, context="lumente") as client:
        opened = []

        def slow_second_open():
            opened.append(True)
            if len(opened) == 2:
                time.sleep(BUDGET_S + 0.1)  # the first scope's delivery and this wait use up the budget
            return client

        spent = sync_outbox(store, slow_second_open, budget_s=BUDGET_S)
        assert [(s.scope, s.written, s.queued) for s in spent.scopes] == [(first, each, 0), (second, 0, each)]
        assert len(spent.errors) == 1 and "ran out" in spent.errors[0]  # one budget for all, not one per scope

        again = sync_outbox(store, lambda: client, budget_s=BUDGET_S)
    assert [(s.scope, s.written, s.queued, s.error) for s in again.scopes] == [(second, each, 0, None)]
    assert store.count_pending() == 0
