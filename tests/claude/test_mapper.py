"""The mapper against canned replies, and mapped concepts saved and loaded back."""

from __future__ import annotations

import copy
import tomllib

import pytest
from claude_fakes import KEY, MODEL, FakeClaude, api_error, client_for, reply

from lumente_cli.agents.claude import Usage, map_concept, save_mapped_concept
from lumente_cli.agents.claude.mapper import check_mapped, concept_toml, rubric_gaps
from lumente_cli.agents.claude.prompting import load_prompt
from lumente_cli.agents.claude.structured import ReplyProblem
from lumente_cli.agents.contracts import MapInput
from lumente_cli.concepts.library import load_file, load_library
from lumente_cli.concepts.schema import Concept
from lumente_cli.errors import ProviderError

INP = MapInput(name="JSON Web Token", concept_id="json_web_token")


def mapped(data: dict) -> dict:
    """The mapper's reply: a concept, not a refusal."""
    return {"decline": None, "concept": data}


def concept_json(concept: Concept, **changes) -> dict:
    data = copy.deepcopy(concept.model_dump(mode="json"))
    data.update(changes)
    return data


def test_a_valid_mapped_concept_is_returned_saved_and_loaded_back(jwt, tmp_path):
    fake = FakeClaude(reply(mapped(concept_json(jwt, id="whatever")), input_tokens=6000, output_tokens=3500))
    usage = Usage()

    concept = map_concept(client_for(fake), model=MODEL, inp=INP, usage=usage)

    assert concept.id == "json_web_token"  # the caller's id, whatever Claude wrote
    assert concept.model_dump(exclude={"id"}) == jwt.model_dump(exclude={"id"})
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (1, 6000, 3500)
    body = fake.bodies[0]
    assert body["model"] == MODEL
    assert body["system"] == load_prompt("mapper")
    assert body["output_config"]["format"]["type"] == "json_schema"
    assert "decline" in body["output_config"]["format"]["schema"]["properties"]
    assert body["output_config"]["effort"] == "medium"
    text = fake.user_text()
    assert "<concept_name>\nJSON Web Token\n</concept_name>" in text
    assert "`id` must be exactly: json_web_token" in text

    path = save_mapped_concept(concept, tmp_path / "mapped-concepts")
    assert path == tmp_path / "mapped-concepts" / "json_web_token.toml"
    assert load_file(path) == concept
    assert path.read_text(encoding="utf-8").startswith("# JWT: written by Claude's concept mapper")
    # The library picks it up as a mapped concept.
    lib = load_library((tmp_path / "mapped-concepts", "mapped"))
    assert lib.concepts["json_web_token"].origin == "mapped" and lib.problems == []


def test_an_invalid_concept_twice_is_a_provider_error(jwt):
    broken = concept_json(jwt)
    broken["attributes"]["hints"] = ["Only one hint."]  # at least three are required
    fake = FakeClaude(reply(mapped(broken), output_tokens=3000), reply(mapped(broken), output_tokens=3100))
    usage = Usage()

    with pytest.raises(ProviderError) as info:
        map_concept(client_for(fake), model=MODEL, inp=INP, usage=usage)

    message = info.value.message
    assert message.startswith("Claude could not write a valid concept file for 'JSON Web Token'")
    assert "attributes.hints" in message
    assert KEY not in message and KEY not in str(info.value) and KEY not in (info.value.hint or "")
    assert len(fake.requests) == 2
    assert (usage.calls, usage.output_tokens) == (2, 6100)
    # The retry carries the earlier reply and what was wrong with it.
    retry = fake.bodies[1]["messages"]
    assert [m["role"] for m in retry] == ["user", "assistant", "user"]
    assert "Only one hint." in retry[1]["content"]
    assert "attributes.hints" in retry[2]["content"]
    assert "complete, corrected concept" in retry[2]["content"]


def test_a_fixed_concept_on_the_retry_is_accepted(jwt):
    broken = concept_json(jwt)
    del broken["coordinate"]
    fake = FakeClaude(reply(mapped(broken)), reply(mapped(concept_json(jwt))))

    concept = map_concept(client_for(fake), model=MODEL, inp=INP, usage=Usage())

    assert concept.coordinate == jwt.coordinate
    assert "coordinate" in fake.bodies[1]["messages"][2]["content"]


def test_not_json_then_refusal_is_a_provider_error(jwt):
    fake = FakeClaude(reply("Here you go: {"), reply("I can't help with that.", stop_reason="refusal"))
    with pytest.raises(ProviderError, match="declined"):
        map_concept(client_for(fake), model=MODEL, inp=INP, usage=Usage())


def test_api_failures_are_provider_errors_without_the_key(jwt):
    fake = FakeClaude(api_error(401, "authentication_error", f"bad key {KEY}"))
    with pytest.raises(ProviderError) as info:
        map_concept(client_for(fake), model=MODEL, inp=INP, usage=Usage())
    assert info.value.message == "Claude rejected the API key (HTTP 401); could not map 'JSON Web Token'."
    assert "ANTHROPIC_API_KEY" in (info.value.hint or "")
    assert KEY not in str(info.value)


def test_a_bad_target_id_is_refused_before_calling(jwt):
    fake = FakeClaude()
    with pytest.raises(ProviderError):
        map_concept(client_for(fake), model=MODEL, inp=MapInput(name="X", concept_id="Not An Id"), usage=Usage())
    assert fake.requests == []


def test_rubric_gaps_are_reported(jwt):
    assert rubric_gaps(jwt) == []
    data = concept_json(jwt)
    for kp in data["subordinate"]["key_points"]:
        kp["accept"] = ["zzzqqq"]
    gaps = rubric_gaps(Concept.model_validate(data))
    assert len(gaps) == 1 and gaps[0].startswith("subordinate.reference matches the accept phrasings of 0")
    with pytest.raises(ReplyProblem):
        check_mapped(Concept.model_validate(data), concept_id="jwt")


def test_terminal_escapes_are_removed_from_mapped_text(jwt):
    data = concept_json(jwt, summary="A token \x1b]8;;http://evil\x07that carries claims\x1b[0m.")
    assert check_mapped(Concept.model_validate(data), concept_id="jwt").summary == "A token that carries claims."


AWKWARD = [
    'He said """hi""" and then ""quoted"" twice',
    "Backslashes: C:\\path\\to\\file and a trailing \\",
    "Ends with a quote: \"",
    "Ends with two quotes: \"\"",
    "Four quotes \"\"\"\" in a row, and \\\"\"\" mixed",
    "Unicode: naïve café — 日本語 — emoji 🎉 — RTL שלום",
    "Line one\nline two\n\n\tindented with a tab\r\nwindows line",
    "A line ending in a backslash \\\nnext line",
    "Control chars: \x01\x02 bell \x07 del \x7f",
    "'single' quotes and ''' triple single quotes '''",
    "#not a comment = [not, a, table] [[neither]]",
]


def test_save_round_trips_awkward_text(jwt, tmp_path):
    data = concept_json(jwt, id="awkward", name='The "awkward" one', full_name="Back\\slash \"\"\" name")
    data["aliases"] = ["a\"b", "c\\d", "é"]
    part = data["coordinate"]
    part["worked_example"] = "\n".join(AWKWARD)
    part["reference"] = AWKWARD[0] + " " + AWKWARD[4] + " " + jwt.coordinate.reference
    part["hints"] = AWKWARD[:5]
    part["cues"] = AWKWARD[5:8]
    part["key_points"][0]["point"] = AWKWARD[6]
    part["key_points"][0]["nudge"] = AWKWARD[2]
    part["confusions"][0]["nudge"] = AWKWARD[1]
    data["subordinate"]["confusions"] = []
    concept = Concept.model_validate(data)

    path = save_mapped_concept(concept, tmp_path)

    assert load_file(path) == concept
    assert load_file(path).coordinate.worked_example == "\n".join(AWKWARD).strip()


def test_concept_toml_is_plain_readable_toml(jwt):
    text = concept_toml(jwt)
    assert tomllib.loads(text)["attributes"]["solid_needs"] == 3
    assert "[supraordinate]" in text and "[[coordinate.key_points]]" in text
    assert text.index("[supraordinate]") < text.index("[coordinate]") < text.index("[attributes]")
    assert text.index("[attributes]") < text.index("[subordinate]")
    assert 'worked_example = """\n' in text
