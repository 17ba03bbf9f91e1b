"""Whole sessions on Claude, against a local stand-in for the Messages API on
loopback: the real CLI, the real anthropic SDK, the real httpx2 stack."""

from __future__ import annotations

import json

import pytest
from fake_messages_api import MADE_UP, FakeMessagesAPI, RawText, default_reply, error
from helpers import JWT_SOLID, lumente_process, script

from lumente_cli.concepts.library import load_library

KEY = "sk-ant-test-KEEP-ME-SECRET-77f1"
HELPED = script(4, "?", *JWT_SOLID.values())


def claude_env(api: FakeMessagesAPI, **extra: str) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": api.url, "LUMENTE_MODEL": "claude-haiku-5-5", **extra}


def events(result, kind: str) -> list[dict]:
    return [e for e in result.events() if e["event"] == kind]


def test_a_normal_session_runs_every_agent_on_claude():
    with FakeMessagesAPI() as api:
        r = lumente_process("-v", "practice", "jwt", "--json", input=HELPED, env=claude_env(api))
    assert r.exit_code == 0, r.stderr
    assert r.events()[0]["provider"] == "claude"
    assert set(api.roles()) == {"question_asker", "hint_giver", "evaluator", "coach"}
    assert all(s.body["model"] == "claude-haiku-5-5" for s in api.seen)
    assert all(s.headers["authorization"] == f"Bearer {KEY}" for s in api.seen)
    assert [e["verdict"] for e in events(r, "verdict")] == ["solid"] * 4
    assert events(r, "part_started")[0]["prompt"].startswith("Claude asks")
    usage = events(r, "session_finished")[0]["usage"]
    assert usage["calls"] == len(api.seen) and usage["input_tokens"] == 120 * len(api.seen)
    assert f"Claude: {len(api.seen)} calls" in r.stderr  # the -v summary
    assert KEY not in r.stdout + r.stderr


def test_only_ids_that_were_sent_reach_the_screen_and_the_rest_are_recorded():
    with FakeMessagesAPI() as api:
        env = claude_env(api)
        assert lumente_process("practice", "jwt", input=HELPED, env=env).exit_code == 0
        r = lumente_process("practice", "jwt", "--json", input=HELPED, env=env)
    assert r.exit_code == 0, r.stderr
    recalled = {f["id"] for f in events(r, "memory_recalled")[0]["facts"]}
    hint, coach = events(r, "hint")[0], events(r, "coach")[0]
    assert hint["citations"] and {c["id"] for c in hint["citations"]} <= recalled
    assert len(coach["citations"]) == 2 and {c["id"] for c in coach["citations"]} <= recalled
    assert MADE_UP not in r.stdout + r.stderr
    # the evaluator never saw a fact id, even though memory held facts
    evaluator_bodies = [json.dumps(s.body) for s in api.seen if s.role == "evaluator"]
    assert evaluator_bodies and not any("attribute:" in b for b in evaluator_bodies)
    import sqlite3

    from lumente_cli import paths

    con = sqlite3.connect(paths.current().database)
    dropped = [json.loads(d) for (d,) in con.execute("SELECT cites_dropped FROM agent_call WHERE cites_dropped != '[]'")]
    assert [MADE_UP] in dropped


@pytest.mark.parametrize(
    ("bad", "notice"),
    [
        (RawText("this is not JSON at all"), "did not fit the evaluator contract"),
        ({"verdict": "great", "feedback": "x", "covered": []}, "did not fit the evaluator contract"),
    ],
)
def test_a_reply_that_breaks_the_contract_falls_back_for_that_call(bad, notice):
    def reply(role, body, n):
        return (200, bad) if role == "evaluator" and n < 2 else default_reply(role, body)

    with FakeMessagesAPI(reply) as api:
        r = lumente_process("practice", "jwt", "--json", input=HELPED, env=claude_env(api))
    assert r.exit_code == 0, r.stderr
    assert api.roles().count("evaluator") == 2 + 3  # the first answer: one try and one retry; then Claude again
    notices = [e["message"] for e in events(r, "notice")]
    assert len(notices) == 1 and notice in notices[0]
    first = events(r, "verdict")[0]
    assert not first["feedback"].startswith("Claude says")  # the offline evaluator judged it
    assert events(r, "verdict")[1]["feedback"].startswith("Claude says")


@pytest.mark.parametrize(
    ("status", "kind", "line", "stops"),
    [
        (401, "authentication_error", "rejected the API key", True),
        (429, "rate_limit_error", "rate-limiting", False),
        (529, "overloaded_error", "overloaded", False),
    ],
)
def test_api_errors_mid_session_fall_back_with_one_line(status, kind, line, stops):
    def reply(role, body, n):
        return error(status, kind, f"nope {KEY}") if role == "evaluator" and n < 4 else default_reply(role, body)

    with FakeMessagesAPI(reply) as api:
        r = lumente_process("practice", "jwt", "--json", input=HELPED, env=claude_env(api))
    assert r.exit_code == 0, r.stderr
    notices = [e["message"] for e in events(r, "notice")]
    assert notices and line in notices[0]
    assert all(v["feedback"] and not v["feedback"].startswith("Claude says") for v in events(r, "verdict")[:1])
    if stops:
        assert len(notices) == 1  # told once; everything after ran offline
        assert api.roles().count("evaluator") == 1
    assert KEY not in r.stdout + r.stderr


def test_the_mapper_builds_saves_and_reuses_a_new_concept():
    jwt = load_library().resolve("jwt").model_dump(mode="json")
    mapped = {**jwt, "id": "event_sourcing", "name": "Event sourcing", "full_name": None, "aliases": []}

    def reply(role, body, n):
        return (200, {"decline": None, "concept": mapped}) if role == "concept_mapper" else default_reply(role, body)

    with FakeMessagesAPI(reply) as api:
        env = claude_env(api)
        r = lumente_process("practice", "event sourcing", "--json", input=HELPED, env=env)
        assert r.exit_code == 0, r.stderr
        assert r.events()[0]["concept"] == "event_sourcing"
        assert api.roles().count("concept_mapper") == 1
        assert "Mapped Event sourcing and saved it to" in r.stderr
        again = lumente_process("practice", "Event Sourcing", "--json", input=HELPED, env=env)
        assert again.exit_code == 0 and api.roles().count("concept_mapper") == 1  # saved, reused
    listed = lumente_process("concepts", "--json")
    assert any(c["id"] == "event_sourcing" and c["origin"] == "mapped" for c in json.loads(listed.stdout)["concepts"])


def test_the_mapper_producing_an_invalid_concept_is_a_clear_error():
    def reply(role, body, n):
        if role == "concept_mapper":
            return 200, {"decline": None, "concept": {"id": "event_sourcing", "name": "Event sourcing"}}
        return default_reply(role, body)

    with FakeMessagesAPI(reply) as api:
        r = lumente_process("practice", "event sourcing", input=HELPED, env=claude_env(api))
    assert r.exit_code == 5
    assert "could not write a valid concept file" in r.stderr and "Traceback" not in r.stderr
    assert api.roles().count("concept_mapper") == 2


def test_without_a_key_an_unknown_concept_is_not_mapped():
    r = lumente_process("practice", "event sourcing", input=HELPED)
    assert r.exit_code == 2 and "unknown concept" in r.stderr


def test_provider_claude_without_a_key_is_a_usage_error():
    r = lumente_process("practice", "jwt", "--provider", "claude", input=HELPED)
    assert r.exit_code == 2 and "needs an API key" in r.stderr


# the real API's ways of failing, over whole sessions --------------------------------------


def test_a_400_every_time_is_said_once_with_the_servers_message_and_stops_claude():
    def reply(role, body, n):
        return error(400, "invalid_request_error", "output_config.effort: this model does not support effort")

    with FakeMessagesAPI(reply) as api:
        r = lumente_process("practice", "jwt", "--json", input=HELPED, env=claude_env(api))
    assert r.exit_code == 0, r.stderr
    notices = [e["message"] for e in events(r, "notice")]
    assert len(notices) == 2  # the first, naming the message; the second, saying Claude is off
    assert "this model does not support effort" in notices[0]
    assert notices[1].endswith("the offline agents answer for the rest of this session.")
    assert len(api.seen) == 2  # and not one call more
    assert events(r, "session_finished")[0]["usage"]["fallbacks"] >= 8


@pytest.mark.slow
def test_an_api_that_never_answers_costs_one_timeout_for_the_whole_session():
    import threading
    import time

    release = threading.Event()

    def reply(role, body, n):
        release.wait(60)  # hold the request: the client times out first
        return default_reply(role, body)

    with FakeMessagesAPI(reply) as api:
        started = time.monotonic()
        r = lumente_process("practice", "jwt", "--json", input=HELPED, env=claude_env(api), timeout=120)
        took = time.monotonic() - started
        release.set()
    assert r.exit_code == 0, r.stderr
    assert len(api.seen) == 1
    notices = [e["message"] for e in events(r, "notice")]
    assert len(notices) == 1 and "did not answer in time" in notices[0]
    assert took < 20 + 10, took  # one 20 s timeout, then offline


def test_thinking_until_the_cap_is_retried_with_more_room_then_falls_back():
    from fake_messages_api import RawMessage

    def reply(role, body, n):
        if role == "evaluator":
            return 200, RawMessage({
                "id": "msg_fake", "type": "message", "role": "assistant", "model": body["model"],
                "content": [{"type": "thinking", "thinking": "hmm " * 50, "signature": "sig"}],
                "stop_reason": "max_tokens", "stop_sequence": None,
                "usage": {"input_tokens": 100, "output_tokens": body["max_tokens"]},
            })
        return default_reply(role, body)

    with FakeMessagesAPI(reply) as api:
        r = lumente_process("practice", "jwt", "--json", input=HELPED, env=claude_env(api))
    assert r.exit_code == 0, r.stderr
    evaluator_calls = [s.body for s in api.seen if s.role == "evaluator"]
    assert [b["max_tokens"] for b in evaluator_calls[:2]] == [6000, 12000]  # room doubled once
    assert all(b["output_config"]["effort"] == "medium" for b in evaluator_calls)
    notices = [e["message"] for e in events(r, "notice")]
    assert any("cut off" in n for n in notices)


def test_verdicts_their_evidence_does_not_support_are_lowered_and_requests_carry_what_was_shown():
    def reply(role, body, n):
        if role == "evaluator":
            return 200, {"covered": [], "verdict": "solid", "feedback": "Claude says: brilliant."}
        return default_reply(role, body)

    with FakeMessagesAPI(reply) as api:
        r = lumente_process("practice", "jwt", "--json", input=HELPED, env=claude_env(api))
    assert r.exit_code == 0, r.stderr
    assert [e["verdict"] for e in events(r, "verdict")] == ["missing"] * 4
    evaluator = next(s.body for s in api.seen if s.role == "evaluator")
    schema = evaluator["output_config"]["format"]["schema"]
    assert list(schema["properties"])[0] == "covered" and "covered" in schema["required"]
    sent = evaluator["messages"][0]["content"]
    sent = sent if isinstance(sent, str) else " ".join(b.get("text", "") for b in sent)
    assert "What this session showed the student" in sent and "Claude asks" in sent
    assert "phrasings that express it" not in sent


def test_a_deprecated_model_is_warned_about_once_in_a_session():
    from anthropic.resources.messages import DEPRECATED_MODELS

    old = next(iter(DEPRECATED_MODELS))
    with FakeMessagesAPI() as api:
        r = lumente_process("practice", "jwt", "--json", input=HELPED, env={**claude_env(api), "LUMENTE_MODEL": old})
    assert r.exit_code == 0, r.stderr
    warnings = [e["message"] for e in events(r, "notice") if "deprecated" in e["message"]]
    assert len(warnings) == 1 and DEPRECATED_MODELS[old] in warnings[0]


def test_the_mapper_can_decline_a_name_that_is_not_a_programming_concept_and_says_why():
    def reply(role, body, n):
        if role == "concept_mapper":
            return 200, {"decline": "'my cat's birthday' is not a programming concept \x1b[2J.", "concept": None}
        return default_reply(role, body)

    with FakeMessagesAPI(reply) as api:
        r = lumente_process("practice", "my cats birthday", input=HELPED, env=claude_env(api))
    assert r.exit_code == 2, r.stderr
    assert "Claude declined to map" in r.stderr and "not a programming concept" in r.stderr
    assert "\x1b" not in r.stderr and "Traceback" not in r.stderr
    assert api.roles().count("concept_mapper") == 1
    body = next(s.body for s in api.seen if s.role == "concept_mapper")
    assert body["output_config"]["effort"] == "medium" and body["max_tokens"] >= 16000


def test_doctor_online_checks_the_key_and_the_model_with_one_small_request():
    with FakeMessagesAPI() as api:
        r = lumente_process("doctor", "--online", "--json", env=claude_env(api))
    provider = next(c for c in json.loads(r.stdout)["checks"] if c["name"] == "provider")
    assert provider["status"] == "ok", provider
    assert "claude-haiku-5-5" in provider["detail"] and "effort low" in provider["detail"] and "ms" in provider["detail"]
    assert len(api.seen) == 1 and api.seen[0].body["max_tokens"] <= 32
    assert KEY not in r.stdout + r.stderr


def test_doctor_online_names_a_rejected_key_and_doctor_alone_calls_nothing():
    with FakeMessagesAPI(lambda role, body, n: error(401, "authentication_error", f"bad key {KEY}")) as api:
        r = lumente_process("doctor", "--online", "--json", env=claude_env(api))
        plain = lumente_process("doctor", "--json", env=claude_env(api))
    provider = next(c for c in json.loads(r.stdout)["checks"] if c["name"] == "provider")
    assert provider["status"] == "fail" and "401" in provider["detail"]
    assert r.exit_code == 1 and KEY not in r.stdout + r.stderr
    assert len(api.seen) == 1  # the plain doctor made no request
    assert "not checked online" in next(c for c in json.loads(plain.stdout)["checks"] if c["name"] == "provider")["detail"]
