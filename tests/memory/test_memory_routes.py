"""Routes, status codes, casing, error bodies and validation (contract §11.1,
§11.2, §11.3, §11.13, §11.14), through the real client where it can express
the request and straight into the engine where it cannot."""

from __future__ import annotations

import re

import pytest
from memhelpers import ENTITY, LEARNER, fact, raw

from lumente_cli.agent_memory.client import MemoryRequestError
from lumente_cli.agent_memory.wire import FactsRequest, Triple, TripleEntity

BASE = "/api/v1/local"
TRIPLE = {"entity": {"type": "topic", "name": ENTITY}, "key": "gap", "value": "v"}


def body(**extra):
    return {"infer": "triples", "scopes": [[LEARNER]], "triples": [TRIPLE], **extra}


def test_health_needs_nothing_and_is_200(engine, client):
    status, headers, _ = raw(engine, "GET", "/api/v1/health")
    assert status == 200 and headers["X-Trace-Id"]
    assert client.health() is True


def test_facts_is_200_with_camel_case_response(engine, client):
    status, headers, data = raw(engine, "POST", f"{BASE}/facts", body())
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    assert set(data) == {"mode", "sessionId", "turnId", "extraction"}  # no null chunkId/preview
    ex = data["extraction"]
    assert set(ex) == {"turnId", "entities", "attributes", "relations", "instructions", "uncertainties",
                       "corrections"}
    assert ex["entities"][0] == {"id": "entity:topic/p_abc_jwt", "name": ENTITY, "entityType": "topic",
                                 "memoryCategory": "knowledge", "isNew": True}
    assert set(ex["attributes"][0]) == {"id", "entityId", "key", "value", "memoryCategory"}
    assert ex["turnId"] == data["turnId"]
    assert re.fullmatch(r"session:[a-z0-9]{20}", data["sessionId"])
    assert re.fullmatch(r"turn:[a-z0-9]{20}", data["turnId"])


def test_every_response_has_a_trace_id_and_errors_carry_both_shapes(engine, client):
    for method, path in [("GET", f"{BASE}/scopes"), ("GET", f"{BASE}/entities/topic/nobody"),
                         ("GET", f"{BASE}/nowhere"), ("POST", f"{BASE}/facts")]:
        status, headers, data = raw(engine, method, path)
        assert re.fullmatch(r"req_[a-z0-9]{24}", headers["X-Trace-Id"])
        if status >= 400:
            assert headers["Content-Type"] == "application/problem+json"
            assert {"type", "title", "status", "detail", "instance", "message"} <= set(data)
            assert data["status"] == status and data["message"] == data["detail"]
            assert data["instance"] == path


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", f"{BASE}/nowhere", 404),
        ("GET", "/somewhere/else", 404),
        ("GET", f"{BASE}/entities/topic", 404),
        ("PUT", f"{BASE}/facts", 405),
        ("POST", "/api/v1/health", 405),
        ("GET", "/api/v1/bad%20ctx/me", 422),
        ("GET", "/api/v1/" + "x" * 65 + "/me", 422),
        ("GET", "/api/v1/ctx.dots/me", 422),
    ],
)
def test_unknown_routes_methods_and_contexts(engine, method, path, status):
    got, headers, data = raw(engine, method, path)
    assert got == status, data
    if status == 405:
        assert headers["Allow"]


@pytest.mark.parametrize(
    ("payload", "needle"),
    [
        (b"{not json", "not valid JSON"),
        (b"", "empty"),
        (b"[1, 2]", "JSON object"),
        (body(bogus=1), "unknown field 'bogus'"),
        ({**body(), "triples": [{**TRIPLE, "occurred_at": "2026-01-01T00:00:00Z"}]},
         "unknown field 'triples[0].occurred_at'"),
        (body(infer="sometimes"), "'infer'"),
        (body(memory_category="forever"), "'memory_category'"),
        (body(role="teacher"), "'role'"),
        (body(observed_at="yesterday"), "observed_at"),
        (body(observed_at="2026-03-02T14:05:00"), "time zone"),
        (body(labels=["_secret=1"]), "must not start with '_'"),
        (body(labels=["nokey"]), "key=value"),
        ({"infer": "triples", "triples": [{"entity": {"type": "topic"}, "key": "k", "value": "v"}]},
         "missing field 'triples[0].entity.name'"),
        (body(infer="full", text="hello"), "only stores triples"),
        (body(infer="none", text="hello"), "only stores triples"),
        ({"infer": "triples", "triples": []}, "at least one triple"),
        ({**body(), "triples": [{"entity": {"type": "topic", "name": ENTITY}, "key": "k"}]}, "value"),
        ({**body(), "triples": [{**TRIPLE, "key": "has-hyphen"}]}, "[a-z0-9_]+"),
        ({**body(), "triples": [{**TRIPLE, "entity": {"type": "topic", "name": "ünïcode"}}]}, "[a-z0-9_]+"),
        (body(scope=[LEARNER]), "not both"),
        ({**body(), "scopes": [["learner//x"]]}, "invalid segment"),
        ({**body(), "scopes": [["learner/*"]]}, "invalid segment"),
    ],
)
def test_bad_facts_bodies_are_400_and_say_why(engine, client, payload, needle):
    status, _, data = raw(engine, "POST", f"{BASE}/facts", payload)
    assert status == 400, data
    assert needle in data["detail"], data["detail"]


def test_bad_enum_through_the_client_is_a_request_error(engine, client):
    # the client model refuses it first; the raw request proves the engine does too
    with pytest.raises(ValueError):
        FactsRequest(infer="triples", memory_category="forever")
    status, _, _ = raw(engine, "POST", f"{BASE}/facts", body(memory_category="forever"))
    assert status == 400


def test_infer_full_is_a_clear_400_through_the_client(client):
    req = FactsRequest(infer="full", text="the learner said something")
    with pytest.raises(MemoryRequestError) as caught:
        client.write_facts(req, idempotency_key="full-1")
    assert caught.value.status == 400
    assert "only stores triples" in caught.value.message


def test_scope_accepts_dnf_legacy_flat_and_bare_string(engine, client):
    for variant in ({"scopes": [[LEARNER]]}, {"scopes": LEARNER}, {"scopes": [LEARNER]},
                    {"scope": [LEARNER]}, {"scope": LEARNER}, {"scopes": [["/learner/p_abc/"]]}):
        payload = {"infer": "triples", "triples": [TRIPLE], **variant}
        status, _, data = raw(engine, "POST", f"{BASE}/facts", payload)
        assert status == 200, (variant, data)
    history = client.history("topic", ENTITY, "gap")
    assert len(history) == 1  # every spelling reached the same scope, so the same chain


def test_writes_without_scopes_go_to_the_root_region(engine, client):
    resp = client.write_facts(fact("gap", "anywhere", scope=None), idempotency_key="root-1")
    assert resp.extraction.attributes[0].value == "anywhere"
    rows = client.history("topic", ENTITY, "gap")
    assert [r.value for r in rows] == ["anywhere"]
    # root-region rows are erased by forgetting "/" but not by forgetting a learner
    assert client.forget_scope(LEARNER) == 0
    assert client.forget_scope("/") > 0
    assert client.entity("topic", ENTITY) is None


def test_entity_identity_normalises_type_name_and_key(engine, client):
    payload = {**body(), "triples": [{"entity": {"type": "Topic", "name": " P_ABC.JWT "}, "key": "Level.Sup ra",
                                      "value": "x"}]}
    status, _, data = raw(engine, "POST", f"{BASE}/facts", payload)
    assert status == 200, data
    assert data["extraction"]["entities"][0]["id"] == "entity:topic/p_abc_jwt"
    assert data["extraction"]["attributes"][0]["key"] == "level_sup_ra"
    got = client.entity("TOPIC", "p_abc.jwt")
    assert got is not None and got.entity.name == "p_abc_jwt"
    assert [a.key for a in got.attributes] == ["level_sup_ra"]
    assert [r.value for r in client.history("topic", "P_ABC_JWT", "level.sup ra")] == ["x"]


@pytest.mark.parametrize(("given", "folded"), [("topic", "topic"), ("company", "organisation"),
                                                ("ORG", "organisation"), ("place", "location"),
                                                ("spaceship", "other"), ("person", "person")])
def test_entity_types_fold_into_the_closed_set(engine, client, given, folded):
    payload = {**body(), "triples": [{"entity": {"type": given, "name": "thing"}, "key": "k", "value": "v"}]}
    _, _, data = raw(engine, "POST", f"{BASE}/facts", payload)
    assert data["extraction"]["entities"][0]["entityType"] == folded
    assert client.entity(given, "thing").entity.entity_type == folded


def test_different_type_is_a_different_entity(client):
    client.write_facts(fact("k", "as topic"), idempotency_key="a")
    client.write_facts(fact("k", "as concept", type="concept"), idempotency_key="b")
    assert [a.value for a in client.entity("topic", ENTITY).attributes] == ["as topic"]
    assert [a.value for a in client.entity("concept", ENTITY).attributes] == ["as concept"]


def test_path_parameters_are_url_decoded_and_quoted(engine, client):
    # the client sends %2F for "/", so a name with a slash is one parameter (and no entity)
    assert client.entity("topic", "a/b") is None
    assert client.history("topic", "a/b", "k/x") == []
    client.write_facts(fact("gap", "v"), idempotency_key="q")
    status, _, data = raw(engine, "GET", f"{BASE}/entities/%74opic/p%5Fabc%5Fjwt/history/g%61p")
    assert status == 200 and len(data["history"]) == 1


def test_unknown_entity_is_404_and_unknown_history_is_empty(engine, client):
    assert client.entity("topic", "nobody") is None
    assert client.history("topic", "nobody", "gap") == []
    status, _, data = raw(engine, "GET", f"{BASE}/entities/topic/nobody/history/gap")
    assert status == 200 and data == {"history": []}


def test_unsupported_temporal_filters_are_400(engine, client):
    client.write_facts(fact("gap", "v"), idempotency_key="t")
    status, _, data = raw(engine, "GET", f"{BASE}/entities/topic/{ENTITY}", query={"atInstant": "x"})
    assert status == 400 and "asOf" in data["detail"]
    status, _, data = raw(engine, "GET", f"{BASE}/entities/topic/{ENTITY}", query={"asOf": "soon"})
    assert status == 400


def test_entity_list_filters_by_type(engine, client):
    client.write_facts(fact("k", "v"), idempotency_key="1")
    client.write_facts(fact("k", "v", name="alice", type="person"), idempotency_key="2")
    _, _, everything = raw(engine, "GET", f"{BASE}/entities")
    assert {e["id"] for e in everything["entities"]} == {"entity:topic/p_abc_jwt", "entity:person/alice"}
    _, _, people = raw(engine, "GET", f"{BASE}/entities", query={"type": "person"})
    assert [e["id"] for e in people["entities"]] == ["entity:person/alice"]
    assert set(people["entities"][0]) == {"id", "name", "entityType", "memoryCategory", "importance",
                                          "createdAt", "updatedAt"}


def test_contexts_are_separate(engine, client):
    from memhelpers import client_for

    client.write_facts(fact("gap", "local"), idempotency_key="c1")
    other = client_for(engine, context="other-ctx")
    assert other.entity("topic", ENTITY) is None
    assert other.list_scopes() == []
    other.close()


def test_relations_are_stored_and_read_back(engine, client):
    req = FactsRequest(infer="triples", scopes=[[LEARNER]], triples=[
        Triple(entity=TripleEntity(type="topic", name=ENTITY), key="related_to",
               target=TripleEntity(type="concept", name="oauth")),
    ])
    resp = client.write_facts(req, idempotency_key="rel")
    assert [e.id for e in resp.extraction.entities] == ["entity:topic/p_abc_jwt", "entity:concept/oauth"]
    assert resp.extraction.relations[0].object == "entity:concept/oauth"
    client.write_facts(req, idempotency_key="rel-again")
    got = client.entity("topic", ENTITY)
    assert len(got.relations) == 1  # the identical relation was not written twice
    assert got.relations[0].label == "related_to"
    assert client.entity("concept", "oauth").relations[0].subject == "entity:topic/p_abc_jwt"


def test_an_unexpected_failure_is_a_redacted_500_that_the_client_retries(engine, client):
    import sqlite3

    from memhelpers import client_for

    from lumente_cli.agent_memory.client import MemoryUnavailable

    con = sqlite3.connect(engine.db_path)
    con.execute("DROP TABLE attribute")  # the store breaks under the engine
    con.commit()
    con.close()
    status, headers, data = raw(engine, "POST", f"{BASE}/facts", body())
    assert status == 500
    assert headers["X-Trace-Id"] in data["detail"] and "attribute" not in data["detail"]
    slept = []
    retrying = client_for(engine, sleep=slept.append)
    with pytest.raises(MemoryUnavailable) as caught:
        retrying.write_facts(fact("gap", "v"), idempotency_key="boom")
    assert caught.value.status == 500 and slept == [0.25, 0.5, 1.0]
    assert caught.value.trace_id and caught.value.trace_id in caught.value.message
    retrying.close()


def test_a_file_that_is_not_sqlite_is_unavailable_not_a_traceback(tmp_path):
    from lumente_cli.agent_memory.client import MemoryUnavailable
    from lumente_cli.memory.backend import embedded_client

    bad = tmp_path / "memory.db"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(MemoryUnavailable) as caught:
        embedded_client(bad)
    assert "cannot be opened" in caught.value.message and str(bad) in caught.value.message
