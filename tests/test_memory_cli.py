"""`lumente memory show | history | forget` against the embedded engine, as a
student would use them after a few sessions on two concepts."""

from __future__ import annotations

import json
import time

import pytest
from helpers import JWT_SOLID, lumente, script, solid_script

from lumente_cli import paths
from lumente_cli.memory.backend import embedded_client
from lumente_cli.parts import PARTS

HELPED = script(4, "?", "?", JWT_SOLID["supraordinate"], *list(JWT_SOLID.values())[1:])


def doc(*args: str) -> dict:
    r = lumente(*args, "--json")
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def oauth_script(prediction: int) -> str:
    """Answers for oauth: whatever the verdicts, the session finishes (4 lines)."""
    return script(prediction, "It is an authorisation framework.", "Unlike OpenID Connect it is not authentication.",
                  "It uses access tokens and scopes.", "There are grant types like authorization code.")


@pytest.fixture()
def two_concepts():
    assert lumente("practice", "jwt", input=HELPED).exit_code == 0
    time.sleep(0.01)
    assert lumente("practice", "jwt", input=solid_script(7)).exit_code == 0
    assert lumente("practice", "oauth", input=oauth_script(3)).exit_code == 0


def test_show_lists_current_facts_grouped_with_ids_provenance_and_reads(two_concepts):
    shown = doc("memory", "show")
    assert {f["concept"] for f in shown["facts"]} == {"jwt", "oauth"}
    current = [f for f in shown["facts"] if f["concept"] == "jwt" and f["current"]]
    keys = [f["key"] for f in current]
    assert keys == [k for p in PARTS for k in (f"level_{p}", f"help_{p}") if k in keys][:4] + keys[4:]
    assert keys.index("level_supraordinate") < keys.index("gap")
    assert len(set(keys)) == len(keys) == 9  # one current row per key
    assert all(f["valid_until"] is None for f in current)
    assert all(f["source"] == {"kind": "upsert", "trust": 0.95} for f in shown["facts"])
    assert all(f["id"].startswith("attribute:") for f in shown["facts"])
    gap = next(f for f in current if f["key"] == "gap")
    assert gap["sentence"] == "Last time on JWT you guessed 7 and proved 8."
    assert all(f["current"] for f in shown["facts"])  # only what is remembered now
    # it names the value it replaced (what the second session's coach was
    # given), which `memory history` shows
    assert gap["supersedes"] not in {f["id"] for f in shown["facts"]}
    chain = next(c for c in doc("memory", "history", "jwt")["chains"] if c["key"] == "gap")["rows"]
    before = next(r for r in chain if r["id"] == gap["supersedes"])
    assert before["current"] is False and before["superseded_by"] == gap["id"] and before["valid_until"]
    assert before["sentence"] == "Last time on JWT you guessed 4 and proved 8." and before["reads"] >= 1
    only_jwt = doc("memory", "show", "jwt")
    assert {f["concept"] for f in only_jwt["facts"]} == {"jwt"}
    human = lumente("memory", "show")
    assert "JWT" in human.stdout and "OAuth" in human.stdout and "Calibration" in human.stdout
    assert "source upsert, trust 0.95" in human.stdout and f"replaced {gap['supersedes']}" in human.stdout
    assert "lumente memory history" in human.stdout


def test_every_id_a_session_cites_is_named_by_memory_show_and_shown_by_history():
    assert lumente("practice", "jwt", input=HELPED).exit_code == 0
    second = lumente("practice", "jwt", "--json", input=HELPED)
    cited = {c["id"]: c["sentence"] for e in second.events() if e["event"] in ("hint", "coach")
             for c in e["citations"]}
    assert cited
    named = {i for f in doc("memory", "show")["facts"] for i in (f["id"], f["supersedes"])}
    assert set(cited) <= named
    kept = {r["id"]: r["sentence"] for c in doc("memory", "history")["chains"] for r in c["rows"]}
    assert all(kept[i] == sentence for i, sentence in cited.items())


def test_history_shows_each_chain_newest_first_with_what_replaced_it(two_concepts):
    history = doc("memory", "history", "jwt", "--part", "supraordinate")
    chains = {c["key"]: c["rows"] for c in history["chains"]}
    assert set(chains) == {"level_supraordinate", "help_supraordinate"}
    level = chains["level_supraordinate"]
    assert [r["valid_until"] is None for r in level] == [True] + [False] * (len(level) - 1)
    help_rows = chains["help_supraordinate"]
    assert "took no Help" in help_rows[0]["sentence"] and "took 2 Help taps" in help_rows[1]["sentence"]
    assert help_rows[1]["superseded_by"] == help_rows[0]["id"]
    assert help_rows[0]["supersedes"] == help_rows[1]["id"]
    assert help_rows[1]["valid_until"] is not None
    human = lumente("memory", "history", "jwt", "--part", "Category")
    assert "● now" in human.stdout and "○ until" in human.stdout and "replaced by" in human.stdout


def test_as_of_shows_memory_as_it_was_before_a_change():
    assert lumente("practice", "jwt", input=HELPED).exit_code == 0
    between = doc("memory", "show", "jwt")["facts"][0]["written_at"]
    time.sleep(0.05)
    moment = lumente("memory", "show", "jwt", "--as-of", "0s", "--json")  # now, relative form
    assert moment.exit_code == 0
    time.sleep(0.05)
    assert lumente("practice", "jwt", input=solid_script(7)).exit_code == 0
    before = doc("memory", "show", "jwt", "--as-of", json.loads(moment.stdout)["as_of"])
    after = doc("memory", "show", "jwt")
    level = lambda d: next(f for f in d["facts"] if f["key"] == "level_coordinate")["sentence"]  # noqa: E731
    assert "level 3 of 5" in level(before) and "level 4 of 5" in level(after)
    gap = lambda d: next(f for f in d["facts"] if f["key"] == "gap")["sentence"]  # noqa: E731
    assert "guessed 4" in gap(before) and "guessed 7" in gap(after)
    assert doc("memory", "show", "jwt", "--as-of", "2020-01-01")["facts"] == []
    assert between


def test_forget_erases_the_scope_proves_it_and_leaves_another_learner_alone(two_concepts):
    me = doc("whoami")["pseudonym"]
    assert lumente("login", "someone-else").exit_code == 0
    assert lumente("practice", "jwt", input=solid_script(5)).exit_code == 0
    other = doc("whoami")["pseudonym"]
    other_facts = doc("memory", "show")["facts"]
    assert other_facts
    assert lumente("login", "root-again").exit_code == 0
    from lumente_cli.settings import write_setting

    # back to the first learner (the OS user name is the default sign-in)
    write_setting("sign_in", "")
    assert doc("whoami")["pseudonym"] == me

    no = lumente("memory", "forget", input="")
    assert no.exit_code == 2 and "--yes" in no.stderr
    assert doc("memory", "show")["facts"]  # nothing happened without confirmation

    result = doc("memory", "forget", "--yes")
    assert result["left"] == 0 and result["forgotten"] >= result["facts_before"] > 0
    assert doc("memory", "show")["facts"] == []
    # a direct read of the service: nothing left for this learner, the other untouched
    client = embedded_client(paths.current().memory_database, context="lumente")
    names = {e.name for e in client.list_entities("topic")}
    assert not any(n.startswith(me) for n in names)
    assert any(n.startswith(other) for n in names)
    for concept in ("jwt", "oauth"):
        assert client.entity("topic", f"{me}_{concept}") is None
        assert client.history("topic", f"{me}_{concept}", "gap") == []
    client.close()
    write_setting("sign_in", "someone-else")
    assert [f["id"] for f in doc("memory", "show")["facts"]] == [f["id"] for f in other_facts]
    write_setting("sign_in", "")
    # forgetting an empty memory is not an error
    again = doc("memory", "forget", "--yes")
    assert again["forgotten"] == 0 and again["left"] == 0
    # local sessions stay unless asked
    assert doc("progress")["concepts"]


def test_forget_with_delete_sessions_also_clears_local_history(two_concepts):
    result = doc("memory", "forget", "--yes", "--delete-sessions")
    assert result["sessions_deleted"] == 3
    assert doc("progress")["concepts"] == []
    r = lumente("practice", "jwt", "--json", input=solid_script(5))
    assert r.events()[0]["levels"] == {p: 2 for p in PARTS}  # a fresh start


def test_forget_clears_the_outbox_so_nothing_comes_back(two_concepts, monkeypatch):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = lumente("practice", "jwt", input=solid_script(6), env={"LUMENTE_MEMORY_URL": f"http://127.0.0.1:{port}"})
    assert r.exit_code == 0
    result = doc("memory", "forget", "--yes")
    assert result["local"]["outbox"] == 9
    assert doc("memory", "sync")["written"] == 0
    assert doc("memory", "show")["facts"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("memory", "show", "nosuchconcept"), "unknown concept"),
        (("memory", "history", "jwt", "--part", "elbow"), "unknown part"),
        (("memory", "show", "--as-of", "last tuesday-ish"), "cannot read the time"),
    ],
)
def test_bad_input_is_a_usage_error(args, message):
    r = lumente(*args)
    assert r.exit_code == 2 and message in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("command", [("memory", "show"), ("memory", "history"), ("memory", "forget", "--yes")])
def test_unreachable_memory_says_where_it_tried(command):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = lumente(*command, env={"LUMENTE_MEMORY_URL": f"http://127.0.0.1:{port}"})
    assert r.exit_code == 4
    assert f"127.0.0.1:{port}" in r.stderr and "Traceback" not in r.stderr


def test_empty_memory_reads_are_friendly():
    assert doc("memory", "show")["facts"] == []
    assert "remembers nothing" in lumente("memory", "show").stdout
    assert doc("memory", "history")["chains"] == []


def test_memory_output_reads_at_80_columns_and_without_color(two_concepts):
    coloured = lumente("memory", "history", env={"FORCE_COLOR": "1", "COLUMNS": "80"})
    assert "\x1b[" in coloured.stdout  # so the plain run below is a real comparison
    r = lumente("memory", "history", env={"NO_COLOR": "1", "FORCE_COLOR": "1", "COLUMNS": "80"})
    assert "\x1b[" not in r.stdout
    assert max(len(line) for line in r.stdout.splitlines()) <= 80


def test_forget_on_screen_says_why_rows_outnumber_facts(two_concepts):
    facts = len(doc("memory", "show")["facts"])
    r = lumente("memory", "forget", "--yes")
    assert r.exit_code == 0
    assert f"{facts} remembered facts" in r.stdout
    rows = int(r.stdout.split("erased ")[1].split()[0])
    assert rows > facts and "earlier versions" in r.stdout


@pytest.mark.parametrize(
    ("typed", "part"),
    [("category", "supraordinate"), ("similar", "coordinate"), ("Similar concepts", "coordinate"),
     ("features", "attributes"), ("classification", "subordinate"), ("coordinate", "coordinate"), ("sub", "subordinate")],
)
def test_history_takes_the_screen_names_of_the_parts(two_concepts, typed, part):
    chains = doc("memory", "history", "jwt", "--part", typed)["chains"]
    assert chains and {c["part"] for c in chains} == {part}


def test_as_of_takes_relative_and_zone_less_times(two_concepts):
    for when in ("30m", "1w", "2d ago", "2026-11-28", "2026-11-28T14:00"):
        r = lumente("memory", "show", "--as-of", when, "--json")
        assert r.exit_code == 0, (when, r.stderr)
