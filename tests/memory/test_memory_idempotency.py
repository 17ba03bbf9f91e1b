"""Idempotency-Key on POST /facts (contract §1.4, §11.8)."""

from __future__ import annotations

import pytest
from memhelpers import ENTITY, LEARNER, fact, raw

from lumente_cli.agent_memory.client import MemoryConflict, MemoryRequestError
from lumente_cli.memory_engine import idempotency

FACTS = "/api/v1/local/facts"


def body(value: str, **extra):
    return {"infer": "triples", "scopes": [[LEARNER]],
            "triples": [{"entity": {"type": "topic", "name": ENTITY}, "key": "gap", "value": value}], **extra}


def test_same_key_same_body_replays_without_a_second_write(engine, client, clock):
    first = client.write_facts(fact("gap", "v1"), idempotency_key="coach:p_abc:s1:t7:gap")
    clock.advance(hours=23)
    again = client.write_facts(fact("gap", "v1"), idempotency_key="coach:p_abc:s1:t7:gap")
    assert again == first  # the stored response, same session, turn and row ids
    status, headers, _ = raw(engine, "POST", FACTS, body("v1", memory_category="knowledge", labels=[]),
                            headers={"Idempotency-Key": "coach:p_abc:s1:t7:gap"})
    assert status == 200 and headers["Idempotency-Replayed"] == "true"
    assert len(client.history("topic", ENTITY, "gap")) == 1
    with engine.store.read() as con:
        assert con.execute("SELECT COUNT(*) FROM turn").fetchone()[0] == 1


def test_body_hash_ignores_key_order_and_whitespace(engine, client):
    a = b'{"infer":"triples","scopes":[["learner/p_abc"]],"triples":[{"entity":{"type":"topic","name":"p_abc_jwt"},"key":"gap","value":"v"}]}'
    b = b'{ "triples": [{"value": "v", "key": "gap", "entity": {"name": "p_abc_jwt", "type": "topic"}}],\n "scopes": [["learner/p_abc"]], "infer": "triples" }'
    first = raw(engine, "POST", FACTS, a, headers={"Idempotency-Key": "k"})
    second = raw(engine, "POST", FACTS, b, headers={"Idempotency-Key": "k"})
    assert first[0] == second[0] == 200 and first[2] == second[2]


def test_same_key_different_body_is_409(client):
    client.write_facts(fact("gap", "v1"), idempotency_key="k1")
    with pytest.raises(MemoryConflict) as caught:
        client.write_facts(fact("gap", "v2"), idempotency_key="k1")
    assert caught.value.status == 409 and "different request body" in caught.value.message
    assert [r.value for r in client.history("topic", ENTITY, "gap")] == ["v1"]


def test_keys_are_per_context(engine, client):
    from memhelpers import client_for

    first = client.write_facts(fact("gap", "v1"), idempotency_key="shared")
    other = client_for(engine, context="other")
    other.register_scope(LEARNER)
    second = other.write_facts(fact("gap", "different"), idempotency_key="shared")  # no 409: another context
    # A real second write, not the first one's stored reply replayed across contexts.
    assert second.extraction.turn_id != first.extraction.turn_id
    assert [a.value for a in other.entity("topic", ENTITY).attributes] == ["different"]
    assert [a.value for a in client.entity("topic", ENTITY).attributes] == ["v1"]
    other.close()


def test_a_key_in_flight_is_409_until_its_lease_runs_out(engine, client, clock):
    digest = idempotency.body_hash(body("v1"))
    # Another process has claimed the key and is still writing (or died mid-write).
    held = idempotency.claim(engine.store, "local", "local", "busy", digest, clock.now)
    assert isinstance(held, idempotency.Claim)
    with pytest.raises(MemoryConflict) as caught:
        client.write_facts(fact("gap", "v1"), idempotency_key="busy")
    assert "still being processed" in caught.value.message
    assert client.history("topic", ENTITY, "gap") == []
    clock.advance(seconds=idempotency.LEASE.total_seconds() + 1)  # the claimant crashed
    resp = client.write_facts(fact("gap", "v1"), idempotency_key="busy")
    assert resp.extraction.attributes[0].value == "v1"
    # the crashed claimant can no longer complete over the new owner's record
    with engine.store.write() as con, pytest.raises(Exception):
        idempotency.complete(con, held, 200, b"{}", "[]")


def test_a_failed_write_frees_the_key(client):
    request = fact("gap", "v1", scope="learner/not_yet")
    with pytest.raises(MemoryRequestError) as caught:
        client.write_facts(request, idempotency_key="retry-me")
    assert caught.value.status == 400 and "not registered" in caught.value.message
    client.register_scope("learner/not_yet")
    resp = client.write_facts(request, idempotency_key="retry-me")  # same key, runs for real now
    assert resp.extraction.attributes[0].value == "v1"


def test_replays_expire_after_24_hours(engine, client, clock):
    first = client.write_facts(fact("gap", "v1"), idempotency_key="daily")
    clock.advance(hours=24, seconds=1)
    second = client.write_facts(fact("gap", "v1"), idempotency_key="daily")
    assert second.turn_id != first.turn_id  # a fresh write (identical value: no new row)
    assert second.extraction.attributes[0].id == first.extraction.attributes[0].id
    clock.advance(hours=1)
    with pytest.raises(MemoryConflict):  # the key is bound again, from the second write on
        client.write_facts(fact("gap", "v2"), idempotency_key="daily")


def test_forget_drops_stored_replays(engine, client):
    client.write_facts(fact("gap", "v1"), idempotency_key="gone")
    client.forget_scope(LEARNER)
    resp = client.write_facts(fact("gap", "v1"), idempotency_key="gone")
    assert [r.id for r in client.history("topic", ENTITY, "gap")] == [resp.extraction.attributes[0].id]


def test_idempotency_record_and_facts_commit_together(engine, client):
    client.write_facts(fact("gap", "v1"), idempotency_key="atomic")
    with engine.store.read() as con:
        row = con.execute("SELECT state, status, scope FROM idempotency WHERE key = 'atomic'").fetchone()
    assert (row["state"], row["status"], row["scope"]) == ("done", 200, '["learner/p_abc/"]')


@pytest.mark.parametrize("bad", ["has space", "x" * 256, "tab\tkey", "ünï"])
def test_malformed_keys_are_400(engine, client, bad):
    status, _, data = raw(engine, "POST", FACTS, body("v"), headers={"Idempotency-Key": bad})
    assert status == 400 and "Idempotency-Key" in data["detail"]


CLAIMANT = """
import sys, time
from datetime import datetime, timezone
from pathlib import Path
from lumente_cli.memory_engine import MemoryEngine, idempotency
engine = MemoryEngine(Path(sys.argv[1]))
held = idempotency.claim(engine.store, "local", "local", "crashy", sys.argv[2], datetime.now(timezone.utc))
print("claimed", flush=True)
time.sleep(60)  # "writing": killed with -9 before it completes
"""


def test_a_claim_whose_process_died_stops_blocking_at_once(db_path, client, clock):
    """A server killed -9 between its claim and its write: the next try must
    not wait out the 30 s lease (Lumente would leave the fact queued)."""
    import subprocess
    import sys
    from datetime import datetime, timezone

    digest = idempotency.body_hash(fact("gap", "v1").model_dump(mode="json", exclude_none=True))
    claimant = subprocess.Popen([sys.executable, "-c", CLAIMANT, str(db_path), digest], stdout=subprocess.PIPE)
    try:
        assert claimant.stdout.readline().strip() == b"claimed"
        clock.now = datetime.now(timezone.utc)  # the engine's time: inside the claim's lease
        with pytest.raises(MemoryConflict):  # alive and writing: 409, as before
            client.write_facts(fact("gap", "v1"), idempotency_key="crashy")
        claimant.kill()
        claimant.wait()
        resp = client.write_facts(fact("gap", "v1"), idempotency_key="crashy")  # at once, not after 30 s
        assert resp.extraction.attributes[0].value == "v1"
        assert [r.value for r in client.history("topic", ENTITY, "gap")] == ["v1"]
    finally:
        if claimant.poll() is None:
            claimant.kill()
            claimant.wait()


def test_claims_name_their_owner():
    token_owner = idempotency.owner()
    pid, _start, host = token_owner.split("|", 2)
    assert int(pid) == __import__("os").getpid() and host
    assert not idempotency.claimant_gone(f"tok|{token_owner}")  # this very process
    assert not idempotency.claimant_gone("legacytoken")  # an old token keeps its lease
    assert not idempotency.claimant_gone("tok|1|123|another-host")  # another host keeps its lease
