"""The explainer against canned replies through the real SDK: what it sends, what it
returns, and the one line it fails with (a timeout included, without waiting for one)."""

from __future__ import annotations

import httpx2
import pytest
from claude_fakes import KEY, MODEL, FakeClaude, api_error, client_for, reply

from lumente_cli.agents.claude import Usage
from lumente_cli.agents.claude.explainer import GENERATED_ID, ExplainerFailed, explain_concept
from lumente_cli.agents.claude.prompting import load_prompt
from lumente_cli.checking.soundness import explanation_problems
from lumente_cli.concepts.explanations import load_explanations


def basics_reply(**claim1) -> dict:
    shipped = load_explanations("jwt")[0]
    claims = [c.model_dump(mode="json") for c in shipped.claims]
    claims[0].update(claim1)
    return {"asked": "What is a \x1b[31mJWT\x1b[0m?", "claims": claims}


def test_a_reply_becomes_a_sanitised_explanation_at_the_difficulty_asked(jwt):
    fake = FakeClaude(reply(basics_reply(), output_tokens=1500))
    usage = Usage()

    e = explain_concept(client_for(fake), model=MODEL, concept=jwt, difficulty=4, usage=usage)

    assert (e.id, e.difficulty, e.asked) == (GENERATED_ID, 4, "What is a JWT?")
    assert e.flaws == [3, 7] and explanation_problems(jwt, e) == []
    assert (usage.calls, usage.output_tokens) == (1, 1500)
    body = fake.bodies[0]
    assert body["system"] == load_prompt("explainer") and body["output_config"]["format"]["type"] == "json_schema"
    text = fake.user_text()
    assert "Difficulty wanted: 4 of 5" in text
    for key, part in jwt.parts():
        assert f"## Part `{key}`" in text and part.reference.strip() in text
        assert all(c.match[0] in text for c in part.confusions)


def test_a_timeout_is_one_line_without_a_retry(jwt):
    fake = FakeClaude(httpx2.ReadTimeout("no answer"))
    with pytest.raises(ExplainerFailed) as info:
        explain_concept(client_for(fake), model=MODEL, concept=jwt, difficulty=1, usage=Usage())
    assert info.value.reason == "Claude did not answer in time" and len(fake.requests) == 1


@pytest.mark.parametrize(("step", "reason"), [
    (api_error(401, "authentication_error", f"bad key {KEY}"), "Claude rejected the API key (HTTP 401)"),
    (api_error(500, "api_error"), "Claude had a server error (HTTP 500)"),
])
def test_an_api_error_is_one_line_without_the_key(jwt, step, reason):
    with pytest.raises(ExplainerFailed) as info:
        explain_concept(client_for(FakeClaude(step)), model=MODEL, concept=jwt, difficulty=1, usage=Usage())
    assert info.value.reason == reason and KEY not in str(info.value)


def test_a_reply_that_does_not_fit_twice_fails_and_a_fixed_one_is_taken(jwt):
    bad = basics_reply(part="not_a_part")
    fake = FakeClaude(reply(bad), reply("I can't.", stop_reason="refusal"))
    with pytest.raises(ExplainerFailed, match="declined"):
        explain_concept(client_for(fake), model=MODEL, concept=jwt, difficulty=1, usage=Usage())
    fake = FakeClaude(reply(bad), reply(basics_reply()))
    assert explain_concept(client_for(fake), model=MODEL, concept=jwt, difficulty=1, usage=Usage()).flaws == [3, 7]
