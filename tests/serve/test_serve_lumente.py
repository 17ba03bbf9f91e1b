"""Lumente pointed at `lumente memory serve` (LUMENTE_MEMORY_URL, _CONTEXT,
_API_KEY) behaves exactly as with the embedded default: the same scenario runs
on both, as real processes, and gives the same results."""

from __future__ import annotations

import json
from typing import Any

from helpers import JWT_SOLID, lumente_process, script, solid_script
from servehelpers import assert_stored_exactly_once, check_chains, learner_env, pseudonym_of


def run(*args: str, env: dict[str, str], input: str | None = None) -> Any:  # noqa: A002 - as lumente_process
    r = lumente_process(*args, env=env, input=input)
    assert r.exit_code == 0, (args, r.stderr)
    assert "Traceback" not in r.stderr
    return r


def show(env: dict[str, str]) -> dict[str, Any]:
    return json.loads(run("memory", "show", "--json", env=env).stdout)


def scenario(ada: dict[str, str], bo: dict[str, str]) -> dict[str, Any]:
    """Two sessions for Ada, one for Bo, then Ada forgets. Returns what a user could see."""
    first = run("practice", "jwt", "--json", env=ada, input=solid_script(6)).events()
    after_first = show(ada)
    ids_first = {f["id"] for f in after_first["facts"]}
    # Second session: one Help tap on the first part, then solid answers (levels are 3 now).
    lines = ["?", *JWT_SOLID.values()]
    second = run("practice", "jwt", "--json", env=ada, input=script(5, *lines)).events()
    kinds = [e["event"] for e in second]
    assert "memory_unavailable" not in kinds and kinds.count("memory_recalled") == 1
    recalled = next(e for e in second if e["event"] == "memory_recalled")["facts"]
    cited = [c for e in second if e["event"] in ("hint", "coach") for c in e["citations"]]
    assert cited, "the second session should rest on remembered facts"
    assert {c["id"] for c in cited} <= ids_first  # every citation is a fact from the first session
    assert {f["id"] for f in recalled} <= ids_first
    written = [e for e in (*first, *second) if e["event"] == "memory_written"]
    assert [(w["queued"], w["reason"]) for w in written] == [(0, None), (0, None)]

    shown = show(ada)
    history = json.loads(run("memory", "history", "--json", env=ada).stdout)
    chains = check_chains(history)
    run("practice", "jwt", "--json", env=bo, input=solid_script(3))
    bo_before = show(bo)["facts"]
    forgot = json.loads(run("memory", "forget", "--yes", "--json", env=ada).stdout)
    return {
        "recalled": [(f["key"], f["sentence"]) for f in recalled],
        "cited": [c["sentence"] for c in cited],
        "first_written": written[0]["written"],
        "second_written": written[1]["written"],
        "shown": [(f["concept"], f["key"], f["kind"], f["sentence"], f["source"]["kind"], f["source"]["trust"],
                   f["valid_until"] is None, f["current"]) for f in shown["facts"]],
        "chains": {key: [r["sentence"] for r in rows] for key, rows in chains.items()},
        "forget": (forgot["facts_before"], forgot["forgotten"], forgot["left"]),
        "ada_after": show(ada)["facts"],
        "bo_before": [(f["key"], f["sentence"], f["id"]) for f in bo_before],
        "bo_after": [(f["key"], f["sentence"], f["id"]) for f in show(bo)["facts"]],
    }


def test_served_memory_gives_the_same_results_as_the_embedded_default(tmp_path, server):
    embedded_home = tmp_path / "embedded"
    ada_e = {"LUMENTE_HOME": str(embedded_home), "LUMENTE_SIGN_IN": "ada", "COLUMNS": "80"}
    bo_e = {**ada_e, "LUMENTE_SIGN_IN": "bo"}
    embedded = scenario(ada_e, bo_e)

    home = tmp_path / "served"  # one machine, two learners, each with a key for their own scope only
    ada_s = learner_env(home, server.url, "", sign_in="ada")
    bo_s = learner_env(home, server.url, "", sign_in="bo")
    ada_p, bo_p = pseudonym_of(ada_s), pseudonym_of(bo_s)
    ada_s["LUMENTE_MEMORY_API_KEY"] = server.mint(f"learner/{ada_p}")
    bo_s["LUMENTE_MEMORY_API_KEY"] = server.mint(f"learner/{bo_p}")
    served = scenario(ada_s, bo_s)

    assert served["recalled"] == embedded["recalled"]
    assert served["cited"] == embedded["cited"]
    assert served["shown"] == embedded["shown"]
    assert served["chains"] == embedded["chains"]
    assert served["forget"] == embedded["forget"]
    assert (served["first_written"], served["second_written"]) == (embedded["first_written"],
                                                                   embedded["second_written"])
    # forget leaves nothing of Ada, and every fact of Bo's
    assert served["ada_after"] == [] and embedded["ada_after"] == []
    assert served["bo_after"] == served["bo_before"] and len(served["bo_after"]) > 0
    assert embedded["bo_after"] == embedded["bo_before"]
    # the chains the scenario builds: the gap changed (6/8 → 5/8), levels rose twice
    assert len(served["chains"]["gap"]) == 2 and len(served["chains"]["level_coordinate"]) == 2
    # Bo's writes are on the served file exactly once each, and nothing is queued
    assert_stored_exactly_once(server.db, home, bo_p)
    assert "Authorization" not in server.stderr() and ada_s["LUMENTE_MEMORY_API_KEY"] not in server.stderr()


def test_a_wrong_key_keeps_the_facts_in_the_outbox_with_one_notice(tmp_path, server):
    home = tmp_path / "home"
    env = learner_env(home, server.url, "not-a-key-of-this-server")
    r = lumente_process("practice", "jwt", env=env, input=solid_script(6))
    assert r.exit_code == 0, r.stderr
    notices = [line for line in r.stdout.splitlines() if line.startswith("Memory")]
    assert len(notices) == 1 and "401" in notices[0] and "wait in the outbox" in notices[0], r.stdout
    assert "not-a-key-of-this-server" not in r.stdout + r.stderr
    env["LUMENTE_MEMORY_API_KEY"] = server.key
    synced = json.loads(lumente_process("memory", "sync", "--json", env=env).stdout)
    assert synced["queued"] == 0 and synced["written"] > 0
    assert_stored_exactly_once(server.db, home, pseudonym_of(env))
