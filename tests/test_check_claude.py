"""`lumente check --provider claude`: Claude writes the explanation, Lumente checks its
planted flaws before showing it, and the judging stays offline. Against the local
stand-in for the Messages API on loopback, with the real CLI and the real SDK."""

from __future__ import annotations

import json

import pytest

from fake_messages_api import FakeMessagesAPI, RawText, error
from helpers import lumente_process, script

from lumente_cli.concepts.explanations import load_explanations

KEY = "sk-ant-test-CHECK-SECRET-5b1d"
BASICS = {e.id: e for e in load_explanations("jwt")}["jwt_basics"]
ASKED = "Claude, what is a JWT for?"
# Reasons the judge accepts for jwt_basics' flaws (claims 3 and 7), as tests/test_check.py has them.
REASON_3 = "The payload is not encrypted: it is only base64url encoded, so anyone can decode it."
REASON_7 = "OAuth is a framework for delegating access, while a JWT is a token format."
EXACT = script(7, "3 7", REASON_3, REASON_7)


def generated(**changes) -> dict:
    """A reply in the explainer's format: jwt_basics' claims under another question."""
    claims = [c.model_dump(mode="json") for c in BASICS.claims]
    for n, text in changes.items():
        claims[int(n.removeprefix("claim")) - 1]["text"] = text
    return {"asked": ASKED, "claims": claims}


def claude_env(api: FakeMessagesAPI) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": api.url, "LUMENTE_MODEL": "claude-haiku-5-5"}


def run(api: FakeMessagesAPI, stdin: str = EXACT):
    return lumente_process("check", "jwt", "--json", "--no-memory", "--provider", "claude", input=stdin,
                           env=claude_env(api))


def events(r, kind: str) -> list[dict]:
    return [e for e in r.events() if e["event"] == kind]


def test_a_checked_explanation_from_claude_is_shown_and_judged_offline():
    with FakeMessagesAPI(lambda role, body, n: (200, generated())) as api:
        r = run(api)
    assert r.exit_code == 0, r.stderr
    assert api.roles() == ["explainer"]  # one call: the judging and the coach stay offline
    (started,) = events(r, "check_started")
    assert started["provider"] == "claude" and started["explanation"] == "claude" and started["asked"] == ASKED
    assert [c["text"] for c in started["claims"]] == [c.text for c in BASICS.claims]
    assert events(r, "notice") == []
    judged = {j["number"]: j["verdict"] for j in events(r, "claim_judged")}
    assert judged == {1: "sound", 2: "sound", 3: "caught", 4: "sound", 5: "sound", 6: "sound", 7: "caught"}
    (finished,) = events(r, "check_finished")
    assert (finished["caught"], finished["score"], finished["prediction"]) == (2, 7, 7)
    body = api.seen[0].body
    assert body["output_config"]["format"]["type"] == "json_schema" and body["max_tokens"] <= 12000
    assert KEY not in r.stdout + r.stderr


def test_the_request_carries_the_concept_map_and_the_level_and_nothing_the_student_typed():
    secret = "my-own-words-zebra-quartz"
    with FakeMessagesAPI(lambda role, body, n: (200, generated())) as api:
        first = run(api, script(5, "3", f"{REASON_3} {secret}"))
        second = run(api, script(5, "none"))
    assert first.exit_code == 0 and second.exit_code == 0, first.stderr + second.stderr
    assert len(api.seen) == 2
    for seen in api.seen:
        sent = json.dumps(seen.body)
        assert secret not in sent and "zebra" not in sent  # the first round's reason never goes back
        assert "Difficulty wanted: 1 of 5" in sent or "Difficulty wanted: 2 of 5" in sent
        (message,) = seen.body["messages"]
        text = message["content"] if isinstance(message["content"], str) else message["content"][0]["text"]
        assert text.startswith("Concept: JWT") and "## Part `coordinate`" in text
        assert "Reference answer:" in text and "Misconceptions" in text


def test_a_planted_flaw_that_is_no_misconception_falls_back_to_a_shipped_explanation():
    # Claim 3 made true, but still marked as a flaw: the judge would mark a good reason wrong.
    honest = "The payload of a signed JWT is only base64url encoded, so anyone can read the claims inside it."
    with FakeMessagesAPI(lambda role, body, n: (200, generated(claim3=honest))) as api:
        r = run(api)
    assert r.exit_code == 0, r.stderr
    (started,) = events(r, "check_started")
    assert started["provider"] == "offline" and started["explanation"] == "jwt_basics"
    assert started["asked"] == BASICS.asked
    (notice,) = events(r, "notice")
    assert "failed Lumente's check of its flaws" in notice["message"] and "claim 3" in notice["message"]
    assert "a shipped explanation is shown instead" in notice["message"]
    assert honest not in r.stdout + r.stderr
    assert events(r, "check_finished")[0]["score"] == 7
    assert "Traceback" not in r.stderr


def test_text_from_claude_reaches_the_terminal_sanitised():
    with FakeMessagesAPI(lambda role, body, n: (200, generated(claim1="A JWT \x1b]2;pwned\x07(JSON Web Token) is a "
                                                                      "compact security token defined by RFC 7519."))) as api:
        r = lumente_process("check", "jwt", "--no-memory", "--provider", "claude", input=EXACT, env=claude_env(api))
    assert r.exit_code == 0, r.stderr
    assert "\x1b]" not in r.stdout and "\x07" not in r.stdout
    assert "compact security token defined by RFC 7519" in r.stdout


@pytest.mark.parametrize(("reply", "said", "calls"), [
    (error(500, "api_error", "boom"), "server error (HTTP 500)", 1),
    ((200, RawText("Here is my explanation: {")), "did not fit the format", 2),
    ((200, {"asked": ASKED, "claims": []}), "did not fit the format", 2),
])
def test_a_server_error_or_a_malformed_reply_falls_back_with_a_notice(reply, said, calls):
    with FakeMessagesAPI(lambda role, body, n: reply) as api:
        r = run(api)
    assert r.exit_code == 0, r.stderr
    assert len(api.seen) == calls  # a reply that does not fit is asked for once more
    assert events(r, "check_started")[0]["explanation"] == "jwt_basics"
    (notice,) = events(r, "notice")
    assert said in notice["message"] and notice["message"].endswith("a shipped explanation is shown instead."), notice
    assert "Traceback" not in r.stderr and KEY not in r.stdout + r.stderr


def test_provider_claude_without_a_key_is_a_usage_error():
    r = lumente_process("check", "jwt", "--provider", "claude", input=EXACT)
    assert r.exit_code == 2 and "needs an API key" in r.stderr and "Traceback" not in r.stderr


def test_provider_offline_never_calls_claude_even_with_a_key():
    with FakeMessagesAPI(lambda role, body, n: (200, generated())) as api:
        r = lumente_process("check", "jwt", "--json", "--no-memory", "--provider", "offline", input=EXACT,
                            env=claude_env(api))
    assert r.exit_code == 0, r.stderr
    assert api.seen == [] and events(r, "check_started")[0]["provider"] == "offline"
