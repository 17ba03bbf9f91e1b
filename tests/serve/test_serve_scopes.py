"""Two learners on one served memory, each with a key minted by the admin key
for `learner/<p>/*` only (contract §4): neither can write or forget the
other's scope (403), and reads of the other come back empty (404 / [])."""

from __future__ import annotations

import httpx2
import pytest
from servehelpers import CONTEXT

from memhelpers import me, mint_key
from lumente_cli.agent_memory.client import MemoryAuthError, MemoryForbidden, MemoryRequestError, remote_client
from lumente_cli.agent_memory.wire import FactsRequest, MintKeyBody, Triple, TripleEntity


def fact(pseudo: str, key: str, value: str) -> FactsRequest:
    return FactsRequest(infer="triples", scopes=[[f"learner/{pseudo}"]], memory_category="knowledge",
                        triples=[Triple(entity=TripleEntity(type="topic", name=f"{pseudo}_jwt"), key=key, value=value)])


@pytest.fixture
def learners(server):
    clients = {}
    for p in ("p_ada", "p_bo"):
        key = server.mint(f"learner/{p}", name=f"learner-{p}")
        clients[p] = remote_client(server.url, context=CONTEXT, api_key=key)
        clients[p].register_scope(f"learner/{p}")
        clients[p].write_facts(fact(p, "gap", f"{p} guessed 4"), idempotency_key=f"{p}-1")
        clients[p].write_facts(fact(p, "gap", f"{p} guessed 5"), idempotency_key=f"{p}-2")
    yield clients
    for c in clients.values():
        c.close()


def test_each_learner_reads_and_writes_only_their_own_scope(server, learners):
    ada, bo = learners["p_ada"], learners["p_bo"]
    # own scope: everything works
    assert [r.value for r in ada.history("topic", "p_ada_jwt", "gap")] == ["p_ada guessed 4", "p_ada guessed 5"]
    # writing into the other's scope: 403, and nothing is written
    with pytest.raises(MemoryForbidden) as caught:
        ada.write_facts(fact("p_bo", "gap", "ada was here"), idempotency_key="sneak")
    assert caught.value.status == 403
    with pytest.raises(MemoryForbidden):  # nor a write that touches both
        ada.write_facts(FactsRequest(infer="triples", scopes=[["learner/p_ada", "learner/p_bo"]],
                                     triples=fact("p_ada", "gap", "x").triples), idempotency_key="both")
    with pytest.raises(MemoryForbidden):  # nor the shared root
        ada.write_facts(FactsRequest(infer="triples", triples=fact("p_ada", "gap", "x").triples),
                        idempotency_key="root")
    # forgetting the other's scope, or everything: 403
    for path in ("learner/p_bo", "learner", "/"):
        with pytest.raises(MemoryForbidden):
            ada.forget_scope(path)
    with pytest.raises(MemoryForbidden):
        ada.register_scope("learner/p_bo/sub")
    # reads of the other come back empty, never 403
    assert ada.entity("topic", "p_bo_jwt") is None
    assert ada.history("topic", "p_bo_jwt", "gap") == []
    assert [e.name for e in ada.list_entities("topic")] == ["p_ada_jwt"]
    assert all(not n.path.startswith("learner/p_bo") for n in ada.list_scopes())
    # a learner key cannot mint keys at all, and a key that may manage grants only narrower ones
    with pytest.raises(MemoryForbidden) as mint:
        mint_key(ada, MintKeyBody(name="wider", grants={"memory:read": ["/*"]}))
    assert mint.value.status == 403 and "grant:manage" in mint.value.message
    manager = remote_client(server.url, context=CONTEXT,
                            api_key=server.mint("learner/p_ada", verbs=("memory:read", "grant:manage")))
    with pytest.raises(MemoryRequestError) as widen:
        mint_key(manager, MintKeyBody(name="wider", grants={"memory:read": ["/*"]}))
    manager.close()
    assert widen.value.status == 400 and "widen" in widen.value.message
    # nothing of Bo's moved
    assert [r.value for r in bo.history("topic", "p_bo_jwt", "gap")] == ["p_bo guessed 4", "p_bo guessed 5"]
    assert ada.forget_scope("learner/p_ada") == 2 * 3 + 1
    assert ada.entity("topic", "p_ada_jwt") is None
    assert [r.value for r in bo.history("topic", "p_bo_jwt", "gap")] == ["p_bo guessed 4", "p_bo guessed 5"]


def test_a_minted_key_is_bound_to_its_context(server, learners):
    key = server.mint("learner/p_ada", name="ctx-bound")
    other = remote_client(server.url, context="elsewhere", api_key=key)
    with pytest.raises(MemoryAuthError):
        me(other)
    other.close()
    with httpx2.Client(base_url=server.url) as http:
        r = http.get(f"/api/v1/{CONTEXT}/me", headers={"Authorization": f"Bearer {key}"})
        assert r.json()["tokenGrants"]["memory:write"] == ["learner/p_ada/*"]
