"""Supersession chains, identical values, scopes, asOf, history order,
provenance and ids (contract §2.9, §11.4–§11.7, §11.11, §11.12, §11.15)."""

from __future__ import annotations

import hashlib
import re
from datetime import timedelta

from memhelpers import ENTITY, LEARNER, fact, utc

ATTRIBUTE_ID = re.compile(r"^attribute:[a-z0-9]{20}$")


def write(client, key, value, **kw):
    request = fact(key, value, **kw)
    return client.write_facts(request, idempotency_key=hashlib.sha256(request.model_dump_json().encode()).hexdigest())


def test_first_write_creates_an_open_row_with_provenance(client, clock):
    resp = write(client, "gap", "Last time on JWT you guessed 4 and proved 2.")
    attr = resp.extraction.attributes[0]
    assert ATTRIBUTE_ID.match(attr.id)
    assert resp.extraction.corrections == []
    assert resp.extraction.entities[0].is_new is True
    [row] = client.entity("topic", ENTITY).attributes
    assert row.id == attr.id and row.entity == "entity:topic/p_abc_jwt"
    assert row.value == "Last time on JWT you guessed 4 and proved 2."
    assert row.memory_category == "knowledge" and row.importance == 1.0
    assert utc(row.created_at) == clock.now and row.valid_from == row.created_at
    assert row.valid_until is None and row.supersedes is None and row.superseded_by is None
    src = row.source
    assert src.kind == "upsert" and src.trust == 0.95 and src.span is None and src.derived_from == []
    assert src.ref == resp.turn_id and src.session_id == resp.session_id
    assert src.turn_at == row.created_at and src.valid_from == row.valid_from


def test_a_new_value_supersedes_the_old_row(client, clock):
    first = write(client, "level_supraordinate", "level 2").extraction.attributes[0].id
    t = clock.advance(minutes=5)
    resp = write(client, "level_supraordinate", "level 3")
    second = resp.extraction.attributes[0].id
    assert second != first and ATTRIBUTE_ID.match(second)
    assert resp.extraction.entities[0].is_new is False
    [corr] = resp.extraction.corrections
    assert (corr.entity_id, corr.key, corr.old_value, corr.new_value) == (
        "entity:topic/p_abc_jwt", "level_supraordinate", "level 2", "level 3")
    old, new = client.history("topic", ENTITY, "level_supraordinate")
    assert (old.id, new.id) == (first, second)
    assert old.superseded_by == second and new.supersedes == first
    assert utc(old.valid_until) == t and utc(new.valid_from) == t and old.valid_until == new.valid_from
    assert new.valid_until is None and new.superseded_by is None
    assert old.value == "level 2"  # the old row is closed, not rewritten
    current = client.entity("topic", ENTITY).attributes
    assert [a.id for a in current] == [second]


def test_identical_value_writes_nothing_and_returns_the_existing_id(client, clock):
    first = write(client, "gap", "same").extraction.attributes[0].id
    clock.advance(minutes=1)
    resp = client.write_facts(fact("gap", "same"), idempotency_key="again")
    assert resp.extraction.attributes[0].id == first
    assert resp.extraction.corrections == []
    assert [r.id for r in client.history("topic", ENTITY, "gap")] == [first]


def test_same_key_in_another_scope_is_a_separate_chain(client):
    client.register_scope("learner/p_other")
    a = write(client, "gap", "one").extraction.attributes[0].id
    b = write(client, "gap", "two", scope="learner/p_other").extraction.attributes[0].id
    rows = client.history("topic", ENTITY, "gap")
    assert {r.id for r in rows} == {a, b}
    assert all(r.valid_until is None and r.supersedes is None for r in rows)
    assert {a.value for a in client.entity("topic", ENTITY).attributes} == {"one", "two"}
    c = write(client, "gap", "three").extraction.attributes[0].id
    by_id = {r.id: r for r in client.history("topic", ENTITY, "gap")}
    assert by_id[a].superseded_by == c and by_id[b].superseded_by is None


def test_as_of_returns_what_was_current_then(client, clock):
    t0 = clock.now
    write(client, "gap", "before")
    t1 = clock.advance(hours=1)
    write(client, "gap", "after")
    clock.advance(hours=1)
    mid = (t0 + (t1 - t0) / 2).isoformat()
    assert [a.value for a in client.entity("topic", ENTITY, as_of=mid).attributes] == ["before"]
    assert [a.value for a in client.entity("topic", ENTITY, as_of=t1.isoformat()).attributes] == ["after"]
    assert [a.value for a in client.entity("topic", ENTITY).attributes] == ["after"]
    assert client.entity("topic", ENTITY, as_of="2000-01-01T00:00:00Z") is None  # did not exist yet


def test_observed_at_sets_created_at_and_drives_as_of(client, clock):
    write(client, "gap", "old news", observed_at="2026-01-01T10:00:00Z")
    write(client, "gap", "newer", observed_at="2026-02-01T10:00:00+01:00")
    old, new = client.history("topic", ENTITY, "gap")
    assert old.created_at == "2026-01-01T10:00:00.000000Z"
    assert new.created_at == "2026-02-01T09:00:00.000000Z"  # stored in UTC
    assert old.valid_until == new.valid_from == new.created_at
    assert old.source.turn_at == old.created_at
    at = client.entity("topic", ENTITY, as_of="2026-01-15T00:00:00Z")
    assert [a.value for a in at.attributes] == ["old news"]


def test_a_back_dated_write_never_runs_an_interval_backwards(client):
    write(client, "gap", "now-ish", observed_at="2026-03-01T00:00:00Z")
    write(client, "gap", "late delivery", observed_at="2026-02-01T00:00:00Z")
    old, new = sorted(client.history("topic", ENTITY, "gap"), key=lambda r: r.supersedes or "")
    assert new.supersedes == old.id and old.superseded_by == new.id
    assert old.valid_until == new.valid_from == "2026-03-01T00:00:00.000000Z"
    assert new.created_at == "2026-02-01T00:00:00.000000Z"
    assert [a.value for a in client.entity("topic", ENTITY).attributes] == ["late delivery"]


def test_history_is_every_row_oldest_first(engine, client, clock):
    values = ["a", "b", "a", "c"]
    for v in values:
        clock.advance(seconds=10)
        client.write_facts(fact("gap", v), idempotency_key=f"h-{clock.now.isoformat()}")
    rows = client.history("topic", ENTITY, "gap")
    assert [r.value for r in rows] == values
    from memhelpers import raw

    _, _, data = raw(engine, "GET", f"/api/v1/local/entities/topic/{ENTITY}/history/gap")
    assert [r["value"] for r in data["history"]] == values  # the engine itself sends them oldest first
    assert [r["createdAt"] for r in data["history"]] == sorted(r["createdAt"] for r in data["history"])


def test_one_request_can_touch_several_keys(client):
    from lumente_cli.agent_memory.wire import FactsRequest, Triple, TripleEntity

    topic = TripleEntity(type="topic", name=ENTITY)
    req = FactsRequest(infer="triples", scopes=[[LEARNER]], memory_category="knowledge", triples=[
        Triple(entity=topic, key="gap", value="g"), Triple(entity=topic, key="help_attributes", value="h"),
    ])
    resp = client.write_facts(req, idempotency_key="multi")
    assert [a.key for a in resp.extraction.attributes] == ["gap", "help_attributes"]
    assert len(resp.extraction.entities) == 1
    assert {a.key for a in client.entity("topic", ENTITY).attributes} == {"gap", "help_attributes"}


def test_category_defaults_to_knowledge_and_request_overrides_triple(engine, client):
    from memhelpers import raw

    triple = {"entity": {"type": "topic", "name": ENTITY}, "key": "k", "value": "v", "memory_category": "identity"}
    _, _, data = raw(engine, "POST", "/api/v1/local/facts",
                     {"infer": "triples", "scopes": [[LEARNER]], "triples": [triple]})
    assert data["extraction"]["attributes"][0]["memoryCategory"] == "identity"
    triple2 = {**triple, "key": "k2"}
    _, _, data = raw(engine, "POST", "/api/v1/local/facts",
                     {"infer": "triples", "scopes": [[LEARNER]], "memory_category": "context", "triples": [triple2]})
    assert data["extraction"]["attributes"][0]["memoryCategory"] == "context"
    triple3 = {k: v for k, v in triple.items() if k != "memory_category"} | {"key": "k3"}
    _, _, data = raw(engine, "POST", "/api/v1/local/facts",
                     {"infer": "triples", "scopes": [[LEARNER]], "triples": [triple3]})
    assert data["extraction"]["attributes"][0]["memoryCategory"] == "knowledge"


def test_context_rows_lapse_after_seven_days(client, clock):
    write(client, "mood", "tired", memory_category="context")
    write(client, "gap", "kept")
    clock.advance(days=6, hours=23)
    assert {a.key for a in client.entity("topic", ENTITY).attributes} == {"mood", "gap"}
    clock.advance(hours=2)
    assert {a.key for a in client.entity("topic", ENTITY).attributes} == {"gap"}
    written_at = clock.now.replace(microsecond=0)
    assert client.entity("topic", ENTITY, as_of=written_at.isoformat()).attributes[0].key == "gap"
    [row] = client.history("topic", ENTITY, "mood")
    assert utc(row.valid_until) == utc(row.created_at) + timedelta(days=7)
    # writing the same value again brings it back as a new row
    resp = client.write_facts(fact("mood", "tired", memory_category="context"), idempotency_key="mood-again")
    assert resp.extraction.attributes[0].id != row.id
    assert {a.key for a in client.entity("topic", ENTITY).attributes} == {"mood", "gap"}
