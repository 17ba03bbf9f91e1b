"""Scopes: register, list, tombstone, forget (contract §4, §11.9)."""

from __future__ import annotations

import sqlite3

import pytest
from memhelpers import ENTITY, LEARNER, fact, raw

from lumente_cli.agent_memory.wire import FactsRequest, Triple, TripleEntity

from lumente_cli.agent_memory.client import MemoryRequestError

SCOPES = "/api/v1/local/scopes"


def test_register_is_201_canonical_and_creates_ancestors(engine, clock):
    status, _, node = raw(engine, "POST", SCOPES, {"path": "/org/acme/user/alice"})
    assert status == 201
    assert node == {"path": "org/acme/user/alice/", "createdAt": "2026-03-02T14:00:00.000000Z", "tombstonedAt": None}
    _, _, nodes = raw(engine, "GET", SCOPES)
    assert isinstance(nodes, list)
    assert [n["path"] for n in nodes] == ["/", "org/", "org/acme/", "org/acme/user/", "org/acme/user/alice/"]


def test_re_registering_is_fine_and_keeps_the_node(client, clock):
    first = client.register_scope(LEARNER + "/")
    clock.advance(minutes=5)
    again = client.register_scope(LEARNER)
    assert again == first and again.path == "learner/p_abc/"


@pytest.mark.parametrize("bad", ["", "   ", "a//b", "a/*", "a/b c", "../x", "a/" + "x" * 65])
def test_invalid_paths_are_400(engine, bad):
    status, _, data = raw(engine, "POST", SCOPES, {"path": bad})
    assert status == 400, data


def test_register_needs_a_path_and_no_strangers(engine):
    assert raw(engine, "POST", SCOPES, {})[0] == 400
    status, _, data = raw(engine, "POST", SCOPES, {"path": "a", "colour": "red"})
    assert status == 400 and "colour" in data["detail"]
    assert raw(engine, "POST", SCOPES, {"path": "a", "displayName": "A", "description": "d"})[0] == 201


def test_writing_to_an_unregistered_scope_is_400(client):
    with pytest.raises(MemoryRequestError) as caught:
        client.write_facts(fact("gap", "v", scope="learner/stranger"), idempotency_key="u")
    assert caught.value.status == 400
    assert "learner/stranger/" in caught.value.message and "POST /scopes" in caught.value.message


def test_tombstone_is_204_listed_and_blocks_writes_until_re_registered(engine, client, clock):
    client.write_facts(fact("gap", "kept"), idempotency_key="w1")
    clock.advance(minutes=1)
    status, _, _ = raw(engine, "DELETE", SCOPES, query={"path": LEARNER})
    assert status == 204
    nodes = {n.path: n for n in client.list_scopes()}
    assert nodes["learner/p_abc/"].tombstoned_at == "2026-03-02T14:01:00.000000Z"
    assert nodes["learner/"].tombstoned_at is None
    assert [a.value for a in client.entity("topic", ENTITY).attributes] == ["kept"]  # data untouched
    with pytest.raises(MemoryRequestError) as caught:
        client.write_facts(fact("gap", "new"), idempotency_key="w2")
    assert "tombstoned" in caught.value.message
    assert client.register_scope(LEARNER).tombstoned_at is None
    client.write_facts(fact("gap", "new"), idempotency_key="w2")


def test_tombstone_errors(engine):
    assert raw(engine, "DELETE", SCOPES)[0] == 400
    assert raw(engine, "DELETE", SCOPES, query={"path": "/"})[0] == 400
    assert raw(engine, "DELETE", SCOPES, query={"path": "never/seen"})[0] == 404


def test_forget_erases_every_row_in_the_subtree_and_counts_them(engine, client, clock):
    related = FactsRequest(infer="triples", scopes=[[LEARNER]], triples=[
        Triple(entity=TripleEntity(type="topic", name=ENTITY), key="related_to",
               target=TripleEntity(type="concept", name="p_abc_oauth")),
    ])
    client.write_facts(related, idempotency_key="f0")                          # session, turn, 2 entities, relation
    with sqlite3.connect(engine.db_path) as con:
        assert con.execute("SELECT COUNT(*) FROM relation").fetchone()[0] == 1  # so its erasure below is tested
    client.write_facts(fact("gap", "one"), idempotency_key="f1")              # session, turn, attribute
    clock.advance(minutes=1)
    client.write_facts(fact("gap", "two"), idempotency_key="f2")              # session, turn, attribute
    client.write_facts(fact("level_coordinate", "l", name="p_abc_oauth"), idempotency_key="f3")  # 4 rows
    client.register_scope(LEARNER + "/device/laptop")
    client.write_facts(fact("gap", "deep", scope=LEARNER + "/device/laptop"), idempotency_key="f4")  # 4 rows
    assert client.forget_scope(LEARNER) == 5 + 3 + 3 + 4 + 4
    assert client.entity("topic", ENTITY) is None
    assert client.entity("topic", ENTITY, as_of="2030-01-01T00:00:00Z") is None
    assert client.entity("topic", "p_abc_oauth") is None
    assert client.history("topic", ENTITY, "gap") == []
    with engine.store.read() as con:
        for table in ("attribute", "relation", "entity", "turn", "session"):
            assert con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0, table
    assert client.forget_scope(LEARNER) == 0  # nothing left
    # the scope stays registered, so the learner can be written to again
    assert client.write_facts(fact("gap", "fresh"), idempotency_key="f5").extraction.entities[0].is_new


def test_forget_leaves_other_scopes_alone(client):
    client.register_scope("learner/p_abcd")  # a sibling whose name starts the same
    client.write_facts(fact("gap", "mine"), idempotency_key="m")
    client.write_facts(fact("gap", "sibling", scope="learner/p_abcd"), idempotency_key="s")
    assert client.forget_scope(LEARNER) == 4
    [row] = client.history("topic", ENTITY, "gap")
    assert row.value == "sibling"
    assert [a.value for a in client.entity("topic", ENTITY).attributes] == ["sibling"]


def test_forget_needs_a_valid_path(engine):
    assert raw(engine, "POST", SCOPES + "/forget", {})[0] == 400
    assert raw(engine, "POST", SCOPES + "/forget", {"path": "a//b"})[0] == 400
    assert raw(engine, "POST", SCOPES + "/forget", {"path": "x", "purge": True})[0] == 400


def test_forgotten_rows_never_reappear_in_as_of(client, clock):
    client.register_scope("learner/p_other")
    client.write_facts(fact("gap", "other", scope="learner/p_other"), idempotency_key="o")
    client.write_facts(fact("gap", "mine"), idempotency_key="m")
    then = clock.now.isoformat()
    client.forget_scope(LEARNER)
    got = client.entity("topic", ENTITY, as_of=then)
    assert [a.value for a in got.attributes] == ["other"]
