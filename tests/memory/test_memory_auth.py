"""Bearer keys and grants for the served engine (contract §1.2, §4, §11.1)."""

from __future__ import annotations

import pytest
from memhelpers import ENTITY, client_for, fact, me, mint_key, raw

from lumente_cli.agent_memory.client import MemoryAuthError, MemoryConflict, MemoryForbidden, MemoryRequestError
from lumente_cli.memory_engine import KeyRing, MemoryEngine
from lumente_cli.agent_memory.wire import MintKeyBody

ME = "/api/v1/ctx/me"


def learner_grants(p: str) -> dict[str, list[str]]:
    region = [f"learner/{p}/*"]
    return {"memory:read": region, "memory:write": region, "memory:forget": region, "scope:create": region}


@pytest.fixture
def admin(served):
    engine, key = served
    c = client_for(engine, context="ctx", api_key=key)
    yield c
    c.close()


def learner_client(served, admin, p: str):
    engine, _ = served
    minted = mint_key(admin, MintKeyBody(name=f"learner-{p}", grants=learner_grants(p)))
    return client_for(engine, context="ctx", api_key=minted.key)


def test_missing_or_wrong_bearer_is_401_and_health_stays_open(served):
    engine, key = served
    assert raw(engine, "GET", "/api/v1/health")[0] == 200
    status, headers, data = raw(engine, "GET", ME)
    assert status == 401 and headers["WWW-Authenticate"].startswith("Bearer")
    assert raw(engine, "GET", ME, headers={"Authorization": "Bearer sp-nope-nope"})[0] == 401
    assert raw(engine, "GET", ME, headers={"Authorization": f"Basic {key}"})[0] == 401
    assert raw(engine, "GET", ME, headers={"authorization": f"bearer {key}"})[0] == 200
    anonymous = client_for(engine, context="ctx")
    assert anonymous.health() is True
    with pytest.raises(MemoryAuthError) as caught:
        anonymous.list_scopes()
    assert caught.value.status == 401


def test_admin_has_every_grant(admin):
    who = me(admin)
    assert who.principal_id == "admin" and who.enforce is True
    assert who.effective_grants["memory:write"] == ["/*"]


def test_minted_key_is_hashed_at_rest(served, admin):
    engine, admin_key = served
    minted = mint_key(admin, MintKeyBody(name="k", grants=learner_grants("p_abc")))
    assert minted.key.startswith(f"sp-{minted.id}-")
    for path in (engine.db_path, engine.db_path.with_name(engine.db_path.name + "-wal")):
        if path.exists():
            data = path.read_bytes()
            assert minted.key.encode() not in data and admin_key.encode() not in data
    _, _, keys = raw(engine, "GET", "/api/v1/ctx/keys", headers={"Authorization": f"Bearer {admin_key}"})
    named = {k["name"]: k for k in keys}
    assert named["k"]["grants"] == learner_grants("p_abc")
    assert all("key" not in k and "secretHash" not in k for k in keys)


def test_scoped_key_writes_reads_and_forgets_inside_its_region(served, admin):
    mine = learner_client(served, admin, "p_abc")
    mine.register_scope("learner/p_abc")
    mine.write_facts(fact("gap", "v"), idempotency_key="w")
    assert [a.value for a in mine.entity("topic", ENTITY).attributes] == ["v"]
    who = me(mine)
    assert who.token_grants == learner_grants("p_abc") and who.effective_grants == learner_grants("p_abc")
    assert mine.forget_scope("learner/p_abc") == 4
    mine.close()


def test_writes_and_forgets_outside_the_grant_are_403(served, admin):
    admin.register_scope("learner/p_other")
    mine = learner_client(served, admin, "p_abc")
    with pytest.raises(MemoryForbidden) as caught:
        mine.write_facts(fact("gap", "v", scope="learner/p_other"), idempotency_key="x")
    assert caught.value.status == 403
    with pytest.raises(MemoryForbidden):
        mine.write_facts(fact("gap", "v", scope=None), idempotency_key="root")  # default region is "/"
    with pytest.raises(MemoryForbidden):
        mine.forget_scope("learner/p_other")
    with pytest.raises(MemoryForbidden):
        mine.forget_scope("learner")  # wider than the grant
    with pytest.raises(MemoryForbidden):
        mine.register_scope("learner/p_other/x")
    mine.close()


def test_reads_outside_the_grant_come_back_empty_not_403(served, admin):
    admin.register_scope("learner/p_other")
    admin.write_facts(fact("gap", "theirs", scope="learner/p_other"), idempotency_key="t")
    mine = learner_client(served, admin, "p_abc")
    assert mine.entity("topic", ENTITY) is None
    assert mine.history("topic", ENTITY, "gap") == []
    assert [n.path for n in mine.list_scopes()] == []  # learner/p_abc/ is not registered yet
    mine.register_scope("learner/p_abc")
    assert [n.path for n in mine.list_scopes()] == ["learner/p_abc/"]
    engine, _ = served
    _, _, listed = raw(engine, "GET", "/api/v1/ctx/entities", headers={"Authorization": f"Bearer {mine._api_key}"})
    assert listed == {"entities": []}
    mine.close()


def manager_client(served, admin, p: str):
    """A key that may manage keys for one learner's region (grant:manage), as a teacher's tool would hold."""
    engine, _ = served
    grants = {**learner_grants(p), "grant:manage": [f"learner/{p}/*"]}
    minted = mint_key(admin, MintKeyBody(name=f"manager-{p}", grants=grants))
    return client_for(engine, context="ctx", api_key=minted.key)


def test_minting_cannot_widen_grants(served, admin):
    mine = manager_client(served, admin, "p_abc")
    with pytest.raises(MemoryRequestError) as caught:
        mint_key(mine, MintKeyBody(grants={"memory:read": ["learner/*"]}))
    assert caught.value.status == 400 and "widen" in caught.value.message
    with pytest.raises(MemoryRequestError):
        mint_key(mine, MintKeyBody(grants={"grant:manage": ["learner/*"]}))
    with pytest.raises(MemoryRequestError):
        mint_key(mine, MintKeyBody(grants={"memory:fly": ["learner/p_abc/*"]}))
    narrower = mint_key(mine, MintKeyBody(grants={"memory:read": ["learner/p_abc/device/*"]}))
    engine, _ = served
    reader = client_for(engine, context="ctx", api_key=narrower.key)
    assert me(reader).effective_grants == {"memory:read": ["learner/p_abc/device/*"]}
    inherited = mint_key(mine, MintKeyBody())  # no grants: a copy of the caller's, never wider
    copy = client_for(engine, context="ctx", api_key=inherited.key)
    assert me(copy).effective_grants == me(mine).effective_grants
    for c in (mine, reader, copy):
        c.close()


def test_a_learner_key_can_neither_mint_nor_see_other_keys(served, admin):
    engine, _ = served
    ada = learner_client(served, admin, "p_ada")
    bob = learner_client(served, admin, "p_bob")
    with pytest.raises(MemoryForbidden) as caught:
        mint_key(ada, MintKeyBody())
    assert caught.value.status == 403 and "grant:manage" in caught.value.message
    status, _, listed = raw(engine, "GET", "/api/v1/ctx/keys", headers={"Authorization": f"Bearer {ada._api_key}"})
    assert status == 200 and [k["name"] for k in listed] == ["learner-p_ada"]  # itself, nothing else
    text = str(listed)
    assert "p_bob" not in text and "lastUsedAt" not in text or all(k["name"] == "learner-p_ada" for k in listed)
    _, _, everything = raw(engine, "GET", "/api/v1/ctx/keys", headers={"Authorization": f"Bearer {served[1]}"})
    assert {k["name"] for k in everything} >= {"learner-p_ada", "learner-p_bob"}  # the admin sees all
    for c in (ada, bob):
        c.close()


def test_keys_can_be_revoked_by_an_admin_or_by_themselves(served, admin):
    engine, admin_key = served
    ada = learner_client(served, admin, "p_ada")
    bob = learner_client(served, admin, "p_bob")
    ada_id = me(ada).principal_id and next(k["id"] for k in raw(engine, "GET", "/api/v1/ctx/keys", headers={
        "Authorization": f"Bearer {ada._api_key}"})[2])
    bob_id = next(k["id"] for k in raw(engine, "GET", "/api/v1/ctx/keys", headers={
        "Authorization": f"Bearer {bob._api_key}"})[2])
    # Ada cannot revoke Bob's key: it is not hers to see.
    assert raw(engine, "DELETE", f"/api/v1/ctx/keys/{bob_id}", headers={"Authorization": f"Bearer {ada._api_key}"})[0] == 404
    assert raw(engine, "DELETE", f"/api/v1/ctx/keys/{bob_id}", headers={"Authorization": f"Bearer {admin_key}"})[0] == 204
    with pytest.raises(MemoryAuthError):
        me(bob)  # revoked: 401 from now on
    assert raw(engine, "DELETE", f"/api/v1/ctx/keys/{ada_id}", headers={"Authorization": f"Bearer {ada._api_key}"})[0] == 204
    with pytest.raises(MemoryAuthError):
        me(ada)
    for c in (ada, bob):
        c.close()


def test_idempotency_keys_belong_to_the_key_that_sent_them(served, admin):
    """Learner B reusing the Idempotency-Key value learner A used is a new write, not a 409."""
    ada = learner_client(served, admin, "p_ada")
    bob = learner_client(served, admin, "p_bob")
    ada.register_scope("learner/p_ada")
    bob.register_scope("learner/p_bob")
    ada.write_facts(fact("gap", "ada's", scope="learner/p_ada"), idempotency_key="same-value")
    bob.write_facts(fact("gap", "bob's", scope="learner/p_bob"), idempotency_key="same-value")
    assert [a.value for a in bob.entity("topic", ENTITY).attributes] == ["bob's"]
    assert [a.value for a in ada.entity("topic", ENTITY).attributes] == ["ada's"]
    # ...while the same key resending the same body is still a replay
    again = ada.write_facts(fact("gap", "ada's", scope="learner/p_ada"), idempotency_key="same-value")
    assert [a.value for a in ada.entity("topic", ENTITY).attributes] == ["ada's"] and again is not None
    for c in (ada, bob):
        c.close()


def test_key_names_are_unique_and_keys_are_bound_to_their_context(served, admin):
    mint_key(admin, MintKeyBody(name="dup"))
    with pytest.raises(MemoryConflict):
        mint_key(admin, MintKeyBody(name="dup"))
    minted = mint_key(admin, MintKeyBody(name="ctx-only"))
    engine, _ = served
    elsewhere = client_for(engine, context="elsewhere", api_key=minted.key)
    with pytest.raises(MemoryAuthError):
        me(elsewhere)
    elsewhere.close()


def test_expired_keys_are_401(served, admin, clock):
    engine, admin_key = served
    status, _, minted = raw(engine, "POST", "/api/v1/ctx/keys", {"name": "short"}, query={"ttlSeconds": "60"},
                            headers={"Authorization": f"Bearer {admin_key}"})
    assert status == 201 and minted["validUntil"] == "2026-03-02T14:01:00.000000Z"
    short = client_for(engine, context="ctx", api_key=minted["key"])
    assert me(short).principal_id == "admin"
    clock.advance(seconds=61)
    with pytest.raises(MemoryAuthError) as caught:
        me(short)
    assert "expired" in caught.value.message


def test_configured_admin_keys_survive_restarts(tmp_path, clock):
    path = tmp_path / "served.db"
    for _ in range(2):
        engine = MemoryEngine(path, auth=KeyRing(admin_keys=["sk-operator-secret"]), clock=clock)
        assert raw(engine, "GET", ME, headers={"Authorization": "Bearer sk-operator-secret"})[0] == 200
        engine.close()
    assert "sk-operator-secret" not in repr(KeyRing(admin_keys=["sk-operator-secret"]))


def test_embedded_mode_needs_no_key_and_has_no_key_minting(client):
    assert me(client).principal_id == "local" and me(client).enforce is False
    with pytest.raises(MemoryForbidden):
        mint_key(client, MintKeyBody())


def test_a_grant_stops_at_its_own_segment_not_at_a_sibling_whose_name_extends_it(served, admin):
    """`learner/p_abc/*` covers learner/p_abc and below, never learner/p_abcd."""
    admin.register_scope("learner/p_abcd")
    admin.write_facts(fact("gap", "theirs", scope="learner/p_abcd"), idempotency_key="theirs")
    mine = learner_client(served, admin, "p_abc")
    with pytest.raises(MemoryForbidden):
        mine.write_facts(fact("gap", "mine", scope="learner/p_abcd"), idempotency_key="x")
    with pytest.raises(MemoryForbidden):
        mine.forget_scope("learner/p_abcd")
    with pytest.raises(MemoryForbidden):
        mine.register_scope("learner/p_abcd/device")
    assert mine.entity("topic", ENTITY) is None
    assert mine.history("topic", ENTITY, "gap") == []
    assert [n.path for n in mine.list_scopes()] == []
    mine.register_scope("learner/p_abc")  # its own region still works
    mine.write_facts(fact("gap", "mine"), idempotency_key="mine")
    assert [a.value for a in mine.entity("topic", ENTITY).attributes] == ["mine"]
    assert [h.value for h in admin.history("topic", ENTITY, "gap")] == ["mine", "theirs"] or \
        sorted(h.value for h in admin.history("topic", ENTITY, "gap")) == ["mine", "theirs"]
    mine.close()


def test_a_node_grant_covers_that_node_and_nothing_below_it(served, admin):
    """`learner/p_abc` (no '/*') is the node itself; `learner/p_abc/device` is outside it."""
    admin.register_scope("learner/p_abc/device")
    admin.write_facts(fact("gap", "deep", scope="learner/p_abc/device"), idempotency_key="deep")
    engine, _ = served
    node_only = {"memory:read": ["learner/p_abc"], "memory:write": ["learner/p_abc"]}
    minted = mint_key(admin, MintKeyBody(name="node", grants=node_only))
    node = client_for(engine, context="ctx", api_key=minted.key)
    with pytest.raises(MemoryForbidden):
        node.write_facts(fact("gap", "below", scope="learner/p_abc/device"), idempotency_key="below")
    assert node.entity("topic", ENTITY) is None  # the only row lives below the node
    node.write_facts(fact("gap", "on the node"), idempotency_key="on")
    assert [a.value for a in node.entity("topic", ENTITY).attributes] == ["on the node"]
    node.close()
