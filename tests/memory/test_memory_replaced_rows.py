"""Recall finds the one row before a row with a bounded asOf read, and gives
exactly what reading the key's full history gives: also after a late
(back-dated) delivery, and against a service that ignores asOf. `memory show`
reads only current values, naming the row each replaced."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from memhelpers import LEARNER
from sessions import RecordingTransport

from lumente_cli.memory import facts as F
from lumente_cli.agent_memory.client import MemoryClient
from lumente_cli.memory.inspection import current_facts
from lumente_cli.memory.recall import newest_rows
from lumente_cli.memory_engine.transport import EmbeddedTransport
from lumente_cli.agent_memory.wire import FactsRequest
from lumente_cli.parts import PARTS
from lumente_cli.timeutil import parse_stamp

PSEUDONYM, CONCEPT = "p_abc", "jwt"
ENTITY = f"{PSEUDONYM}_{CONCEPT}"
START = datetime(2026, 3, 1, tzinfo=timezone.utc)


class IgnoresAsOf(EmbeddedTransport):
    """A service that answers every entity read with the current view."""

    def send(self, method, path, *, params, headers, json_body, time_left=None):
        kept = {k: v for k, v in (params or {}).items() if k != "asOf"}
        return super().send(method, path, params=kept, headers=headers, json_body=json_body, time_left=time_left)


@pytest.fixture
def recorder(engine) -> RecordingTransport:
    return RecordingTransport(EmbeddedTransport(engine))


@pytest.fixture
def reader(recorder) -> MemoryClient:
    return MemoryClient(recorder, context="local", where="recorded engine")


def session(client: MemoryClient, n: int, minute: int) -> dict[str, str]:
    """One finished session's nine facts, one request each as the app sends
    them, all at the session's known time; returns key → row id. Values
    differ for sessions 1 to 5, so each write adds a row."""
    at = (START + timedelta(minutes=minute)).isoformat()
    facts = [(F.level_key(p), F.level_sentence("JWT", p, 1 + n % 5)) for p in PARTS]
    facts.append((F.GAP_KEY, F.gap_sentence("JWT", 1 + n % 5, 1 + (n + 2) % 5)))
    facts += [(F.help_key(p), F.help_sentence("JWT", p, n % 7)) for p in PARTS]
    ids = {}
    for key, value in facts:
        body = {"infer": "triples", "scopes": [[LEARNER]], "memory_category": "knowledge", "observed_at": at,
                "triples": [{"entity": {"type": "topic", "name": ENTITY}, "key": key, "value": value}]}
        done = client.write_facts(FactsRequest.model_validate(body), idempotency_key=f"s{n}-{key}")
        ids[key] = done.extraction.attributes[0].id
    return ids


def from_history(client: MemoryClient, exclude: set[str]) -> dict[str, str]:
    """What recall must give: per key the newest row not left out, from the full history."""
    out = {}
    for key in F.ALL_KEYS:
        rows = [r for r in client.history("topic", ENTITY, key) if r.id not in exclude]
        if rows:
            out[key] = max(reversed(rows), key=lambda r: parse_stamp(r.created_at)).id
    return out


def recalled(client: MemoryClient, exclude: set[str]) -> dict[str, str]:
    return {k: r.id for k, r in newest_rows(client, "topic", ENTITY, exclude_ids=exclude, deadline=None).items()}


def shown(client: MemoryClient, as_of: str | None = None) -> list[tuple[str, str | None]]:
    """(id, the id it replaced) of each fact `memory show` lists."""
    return [(s.id, s.supersedes) for s in current_facts(client, PSEUDONYM, [CONCEPT], as_of=as_of,
                                                        read_counts=lambda ids: {})]


def paths(recorder: RecordingTransport) -> list[str]:
    return [c.url.split("/entities/", 1)[1].split("?")[0] for c in recorder.requests]


def test_recall_leaving_out_this_session_reads_one_entity_as_of_and_no_history(client, reader, recorder):
    session(client, 1, 0)
    before = session(client, 2, 10)
    this = set(session(client, 3, 20).values())
    assert recalled(reader, this) == before == from_history(client, this)
    assert paths(recorder) == [f"topic/{ENTITY}", f"topic/{ENTITY}"]  # the view, then one asOf read


def test_recall_on_a_first_session_reads_nothing_more(client, reader, recorder):
    this = set(session(client, 1, 0).values())
    assert recalled(reader, this) == {} == from_history(client, this)
    assert len(recorder.requests) == 1


def test_memory_show_lists_current_values_naming_what_each_replaced_in_one_read(client, reader, recorder):
    first = session(client, 1, 0)
    before = session(client, 2, 10)
    now = session(client, 3, 20)
    got = shown(reader)
    assert {i for i, _ in got} == set(now.values())
    assert {was for _, was in got} == set(before.values())
    then = shown(reader, as_of=(START + timedelta(minutes=15)).isoformat())  # `memory show --as-of`
    assert {i for i, _ in then} == set(before.values())
    assert {was for _, was in then} == set(first.values())
    assert paths(recorder) == [f"topic/{ENTITY}", f"topic/{ENTITY}"]  # one read each, no history


def test_a_late_delivery_makes_recall_fall_back_to_the_full_history(client, reader, recorder):
    # Session 2 finished before session 3 but was delivered after it, so the
    # chain runs 1 → 3 → 2 while the known times run 1, 3, 2 (then 4).
    session(client, 1, 0)
    third = session(client, 3, 30)
    late = session(client, 2, 20)
    assert {was for _, was in shown(reader)} == set(third.values())
    this = set(session(client, 4, 40).values())
    # By known time, the newest row before this session is session 3's, not
    # the late one the chain says was replaced.
    assert recalled(reader, this) == third == from_history(client, this)
    assert {was for _, was in shown(reader)} == set(late.values())
    assert [p for p in paths(recorder) if "/history/" in p]


def test_a_back_dated_row_right_before_this_session_is_not_taken_for_the_newest(client, reader):
    # Chain: session 5 (minute 50) → late session 2 (minute 20) → this session
    # (minute 30). The row this session replaced is the late one, and the asOf
    # read just before minute 30 finds it; but session 5's row is newer.
    session(client, 1, 0)
    fifth = session(client, 5, 50)
    session(client, 2, 20)
    this = set(session(client, 3, 30).values())
    assert recalled(reader, this) == fifth == from_history(client, this)


def test_a_service_that_ignores_as_of_gives_the_same_answers(engine, client):
    session(client, 1, 0)
    before = session(client, 2, 10)
    this = set(session(client, 3, 20).values())
    ignoring = MemoryClient(IgnoresAsOf(engine), context="local", where="ignores asOf")
    assert recalled(ignoring, this) == before
    assert shown(ignoring) == shown(client)
    ignoring.close()
