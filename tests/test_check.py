"""`lumente check` end to end through the real command tree: scripted rounds,
levels, hints, memory (the embedded engine) and what the local database keeps."""

from __future__ import annotations

import re
import sqlite3

import pytest
from helpers import data_dir, lumente, script, solid_script

from lumente_cli import paths
from lumente_cli.concepts.explanations import load_explanations

EXPLANATIONS = {e.id: e for e in load_explanations("jwt")}
BASICS, IN_PRACTICE = EXPLANATIONS["jwt_basics"], EXPLANATIONS["jwt_in_practice"]
# Reasons the judge must accept, by explanation and claim number.
GOOD = {
    ("jwt_basics", 3): "The payload is not encrypted: it is only base64url encoded, so anyone can decode it.",
    ("jwt_basics", 7): "OAuth is a framework for delegating access, while a JWT is a token format.",
    ("jwt_in_practice", 3): "The server must fix the algorithm itself, because an attacker writes the header.",
    ("jwt_in_practice", 6): "The refresh token only goes to the authorization server to get a new access token.",
}
QUESTIONS = {
    ("jwt_in_practice", 3): "What stops an attacker who writes the header from choosing the algorithm none?",
    ("jwt_in_practice", 6): "Shouldn't only the authorization server see the refresh token, to get a new access token?",
}


def events_of(r, kind):
    return [e for e in r.events() if e["event"] == kind]


def one(r, kind):
    (event,) = events_of(r, kind)
    return event


def exact(explanation, prediction: int | None = None, *, questions: bool = False) -> str:
    """A round flagging exactly the flaws, each with a good reason (and question)."""
    lines = [" ".join(map(str, explanation.flaws))]
    for n in explanation.flaws:
        lines.append(GOOD[(explanation.id, n)])
        if questions:
            lines.append(QUESTIONS[(explanation.id, n)])
    return script(len(explanation.claims) if prediction is None else prediction, *lines)


def check(*args: str, input: str):  # noqa: A002 - as helpers.lumente
    return lumente("check", "jwt", "--json", *args, input=input)


def set_check_level(level: int) -> None:
    """As if earlier rounds had left this level, for the learner the CLI will derive."""
    from lumente_cli.sqlite_tx import write_tx
    from lumente_cli.workspace import Workspace

    ws = Workspace()
    try:
        learner = ws.store.learner_id(ws.pseudonym)
        with write_tx(ws.store.con):
            ws.store.con.execute("INSERT OR REPLACE INTO check_level VALUES (?, 'jwt', ?, '')", (learner, level))
    finally:
        ws.close()


# --- scripted rounds ----------------------------------------------------------------------------


def test_flagging_exactly_the_flaws_with_good_reasons_scores_every_claim_and_levels_up():
    r = check("--no-memory", input=exact(BASICS, 5))
    assert r.exit_code == 0, r.stderr
    started = one(r, "check_started")
    assert started["level"] == 1 and started["explanation"] == "jwt_basics" and started["flaws"] == 2
    assert [c["number"] for c in started["claims"]] == list(range(1, 8))
    assert [c["text"] for c in started["claims"]] == [c.text for c in BASICS.claims]
    judged = events_of(r, "claim_judged")
    assert [j["number"] for j in judged] == list(range(1, 8))
    assert {j["number"]: j["verdict"] for j in judged if j["verdict"] != "sound"} == {3: "caught", 7: "caught"}
    assert all(j["why"] for j in judged if j["flawed"]) and not any(j["why"] for j in judged if not j["flawed"])
    finished = one(r, "check_finished")
    assert finished == {**finished, "caught": 2, "missed": 0, "wrong_reasons": 0, "false_alarms": 0, "flaws": 2,
                        "score": 7, "prediction": 5, "claims": 7, "level": 1, "new_level": 2}
    assert all(type(finished[k]) is int for k in ("caught", "missed", "false_alarms", "score", "prediction"))
    assert r.kinds()[-2:] == ["check_finished", "coach"]
    assert "Score 7/7" in r.stderr and "you predicted 5" in r.stderr


def test_flagging_everything_scores_badly_and_flagging_nothing_catches_nothing():
    everything = script(7, " ".join(str(n) for n in range(1, 8)),
                        *[GOOD.get(("jwt_basics", n), "This claim sounds wrong to me.") for n in range(1, 8)])
    r = check("--no-memory", input=everything)
    assert r.exit_code == 0, r.stderr
    finished = one(r, "check_finished")
    assert (finished["caught"], finished["false_alarms"], finished["score"]) == (2, 5, 2)
    assert 2 * finished["score"] < finished["claims"]  # under half: no way up by flagging all

    r = check("--no-memory", input=script(5, "none"))
    assert r.exit_code == 0, r.stderr
    finished = one(r, "check_finished")
    assert (finished["caught"], finished["missed"], finished["false_alarms"], finished["score"]) == (0, 2, 0, 5)
    assert {j["verdict"] for j in events_of(r, "claim_judged") if j["flawed"]} == {"missed"}


@pytest.mark.parametrize("reason, feedback", [
    ("Because it is not correct.", "does not say what is wrong"),
    ("I read somewhere that this is false.", "does not say what is wrong"),
    # the claim pasted back: a copy, not a reason
    (BASICS.claims[2].text, "repeats the claim"),
    # the misconception itself, restated
    ("The payload is encrypted so nobody can read it.", "restates the mistake"),
])
def test_the_right_claim_with_a_reason_that_does_not_hold_is_not_caught(reason, feedback):
    r = check("--no-memory", input=script(6, "3 7", reason, GOOD[("jwt_basics", 7)]))
    assert r.exit_code == 0, r.stderr
    third = next(j for j in events_of(r, "claim_judged") if j["number"] == 3)
    assert third["verdict"] == "wrong_reason" and feedback in third["feedback"]
    finished = one(r, "check_finished")
    assert (finished["caught"], finished["missed"], finished["wrong_reasons"], finished["score"]) == (1, 1, 1, 6)
    assert finished["new_level"] == 1  # one claim not right: no level up


def test_flags_may_be_comma_separated_repeated_and_in_any_order():
    r = check("--no-memory", input=script(7, "7, 3,3", GOOD[("jwt_basics", 3)], GOOD[("jwt_basics", 7)]))
    assert r.exit_code == 0, r.stderr
    assert one(r, "check_finished")["caught"] == 2


def test_the_predict_option_replaces_the_first_line():
    r = check("--no-memory", "--predict", "2", input="3 7\n" + GOOD[("jwt_basics", 3)] + "\n" + GOOD[("jwt_basics", 7)] + "\n")
    assert r.exit_code == 0, r.stderr
    assert one(r, "predicted")["prediction"] == 2


# --- hints --------------------------------------------------------------------------------------


def test_hints_point_at_a_part_and_never_at_a_claim_number():
    claim_number = re.compile(r"\b([1-9]|10)\b")
    for _ in range(2):  # the second round recalls the first, so a hint may cite it
        lines = ["?", "5", "?", "?", "?", "3 7", "?", GOOD[("jwt_basics", 3)], GOOD[("jwt_basics", 7)]]
        r = check(input=script(None, *lines))
        assert r.exit_code == 0, r.stderr
        hints = events_of(r, "hint")
        assert [h["tap"] for h in hints] == [1, 2, 3, 4, 5]
        nudges = [c.flaw.nudge for c in BASICS.claims if c.flaw]
        assert hints[1]["message"].endswith(f"Similar concepts and differences: {nudges[1]}")
        assert hints[0]["message"].endswith(f"Defining features: {nudges[0]}")
        for hint in hints:
            assert not claim_number.search(hint["message"]), hint["message"]
            assert not any(c.text in hint["message"] for c in BASICS.claims)
        assert one(r, "check_finished")["hints"] == 5
    cited = hints[0]["citations"]
    assert cited and "flaws in an AI's explanation" in cited[0]["sentence"]


# --- levels -------------------------------------------------------------------------------------


def test_levels_go_up_with_every_claim_right_and_hide_the_count_from_level_three():
    assert one(check("--no-memory", input=exact(BASICS)), "check_finished")["new_level"] == 2
    second = check("--no-memory", input=exact(BASICS))
    assert one(second, "check_started")["flaws"] == 2  # level 2: still plain, still counted
    assert one(second, "check_finished")["new_level"] == 3
    third = check("--no-memory", input=exact(IN_PRACTICE))
    started = one(third, "check_started")
    assert (started["level"], started["explanation"], started["flaws"]) == (3, "jwt_in_practice", None)
    assert "It answered in 7 claims.\n" in third.stderr and "of them" not in third.stderr
    assert one(third, "check_finished")["new_level"] == 4


def test_two_false_alarms_or_under_half_right_go_down():
    set_check_level(3)
    # both flaws caught, but two sound claims flagged: 5 of 7 right, and down for the false alarms
    lines = ["1 3 6 7", "I doubt this.", GOOD[("jwt_in_practice", 3)], GOOD[("jwt_in_practice", 6)], "Not so."]
    r = check("--no-memory", input=script(6, *lines))
    assert r.exit_code == 0, r.stderr
    finished = one(r, "check_finished")
    assert (finished["score"], finished["false_alarms"], finished["level"], finished["new_level"]) == (5, 2, 3, 2)
    # level 2 again: the plain explanation, least recently used first; flag everything: under half
    r = check("--no-memory", input=script(3, "1 2 3 4 5 6 7", *["Wrong."] * 7))
    assert one(r, "check_started")["explanation"] == "jwt_basics"
    finished = one(r, "check_finished")
    assert (finished["score"], finished["new_level"]) == (0, 1)
    # the level never drops below 1
    r = check("--no-memory", input=script(3, "1 2 3 4 5 6 7", *["Wrong."] * 7))
    assert one(r, "check_finished")["new_level"] == 1


def test_level_five_asks_the_question_that_exposes_each_flaw_and_judges_it():
    set_check_level(5)
    r = check("--no-memory", input=exact(IN_PRACTICE, questions=True))
    assert r.exit_code == 0, r.stderr
    assert one(r, "check_started")["questions"] is True
    flawed = [j for j in events_of(r, "claim_judged") if j["flawed"]]
    assert [(j["verdict"], j["question_verdict"]) for j in flawed] == [("caught", "solid")] * 2
    finished = one(r, "check_finished")
    assert (finished["score"], finished["new_level"]) == (7, 5)
    # a question that only repeats the claim does not hold
    set_check_level(5)
    pasted = script(7, "3 6", GOOD[("jwt_in_practice", 3)], IN_PRACTICE.claims[2].text,
                    GOOD[("jwt_in_practice", 6)], QUESTIONS[("jwt_in_practice", 6)])
    r = check("--no-memory", input=pasted)
    assert [j["question_verdict"] for j in events_of(r, "claim_judged") if j["flawed"]] == ["missing", "solid"]


def test_the_least_recently_used_explanation_of_the_level_comes_next(tmp_path):
    from lumente_cli.checking import rules

    other = BASICS.model_copy(update={"id": "jwt_other"})
    both = [BASICS, other, IN_PRACTICE]
    assert rules.pick(both, 1, {}) is BASICS  # never used: the file's order
    assert rules.pick(both, 2, {"jwt_basics": "2026-12-01T10:00:00.000000Z"}) is other
    assert rules.pick(both, 1, {"jwt_basics": "2026-12-01T10:00:00.000000Z",
                                "jwt_other": "2026-12-01T11:00:00.000000Z"}) is BASICS
    assert rules.pick(both, 4, {}) is IN_PRACTICE and rules.pick([BASICS], 5, {}) is BASICS


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize("lines, message", [
    (["eight"], "input line 1: not a whole number from 0 to 7"),
    (["8"], "input line 1: not a whole number from 0 to 7"),
    (["5", "3 9"], "input line 2: '9', not one of the claim numbers from 1 to 7, or none"),
    (["5", "three"], "input line 2: 'three', not one of the claim numbers"),
    (["5", "3", ""], "input line 3: an empty answer"),
])
def test_bad_scripted_input_is_a_usage_error_and_saves_nothing(lines, message):
    r = check("--no-memory", input=script(None, *lines))
    assert r.exit_code == 2
    assert message in r.stderr and "Traceback" not in r.stderr + r.stdout
    assert sqlite3.connect(data_dir() / "lumente.db").execute("SELECT COUNT(*) FROM check_round").fetchone() == (0,)


def test_input_that_ends_early_stops_the_round_with_exit_3_and_saves_nothing():
    r = check("--no-memory", input=script(5, "3 7", GOOD[("jwt_basics", 3)]))
    assert r.exit_code == 3
    assert r.events()[-1]["event"] == "check_stopped" and r.events()[-1]["reason"] == "end_of_input"
    con = sqlite3.connect(data_dir() / "lumente.db")
    assert con.execute("SELECT COUNT(*) FROM check_round").fetchone() == (0,)
    assert con.execute("SELECT COUNT(*) FROM check_level").fetchone() == (0,)


def test_a_prediction_above_the_claims_and_a_concept_without_explanations_are_usage_errors():
    r = lumente("check", "jwt", "--predict", "9", input="")
    assert r.exit_code == 2 and "this explanation has 7 claims" in r.stderr
    r = lumente("check", "jwtt", input="")
    assert r.exit_code == 2 and "unknown concept 'jwtt'" in r.stderr
    user = paths.current().user_concepts_dir
    user.mkdir(parents=True)
    jwt = (paths.Path(__file__).resolve().parent.parent / "lumente_cli/concepts/library/jwt.toml").read_text()
    (user / "mine.toml").write_text(jwt.replace('id = "jwt"', 'id = "mine"', 1).replace('name = "JWT"', 'name = "Mine"', 1))
    r = lumente("check", "mine", input="")
    assert r.exit_code == 2 and "no AI explanations to check on Mine yet" in r.stderr
    assert "Concepts you can check:" in r.stderr and "jwt" in r.stderr


# --- memory, the local database, progress ---------------------------------------------------------


def test_two_rounds_the_coach_cites_the_first_rounds_fact_among_the_facts_sent():
    first = check(input=script(5, "3 5", GOOD[("jwt_basics", 3)], "It sounds off."))
    assert first.exit_code == 0, first.stderr
    assert one(first, "memory_written")["written"] == 2  # the result, and the check level (first time)
    second = check(input=exact(BASICS, 6))
    assert second.exit_code == 0, second.stderr
    recalled = one(second, "memory_recalled")["facts"]
    assert [f["key"] for f in recalled] == ["check_result", "check_level"]
    assert recalled[0]["sentence"] == "On JWT, you caught 1 of 2 flaws in an AI's explanation and flagged 1 sound claim."
    coach = one(second, "coach")
    assert [c["id"] for c in coach["citations"]] == [recalled[0]["id"]]
    assert "(2 of 2 now, 1 of 2 then)" in coach["message"] and "fewer sound claims" in coach["message"]
    # the citation is among the facts the coach was sent, as the local log recorded it
    con = sqlite3.connect(data_dir() / "lumente.db")
    sent = {f for (f,) in con.execute(
        "SELECT fact_id FROM agent_call_fact JOIN agent_call ON id = call_id WHERE agent = 'coach'")}
    assert recalled[0]["id"] in sent
    shown = lumente("memory", "show", "jwt")
    assert "Check the AI" in shown.stdout and "you caught 2 of 2 flaws" in shown.stdout
    history = lumente("memory", "history", "jwt", "--json").stdout
    assert '"key": "check_result"' in history and "caught 1 of 2" in history


def test_practice_coach_mentions_the_last_check_round_and_cites_it():
    assert check(input=exact(BASICS, 6)).exit_code == 0
    r = lumente("practice", "jwt", "--json", input=solid_script(6))
    assert r.exit_code == 0, r.stderr
    recalled = one(r, "memory_recalled")["facts"]
    fact = next(f for f in recalled if f["key"] == "check_result")
    coach = one(r, "coach")
    assert fact["id"] in [c["id"] for c in coach["citations"]]
    assert "caught 2 of 2 flaws in an AI's explanation" in coach["message"]


def test_the_round_is_kept_locally_with_the_reasons_and_forget_delete_sessions_clears_it():
    secret = "MY-REASON-ZQX the payload is not encrypted, anyone can decode it"
    assert check(input=script(6, "3", secret)).exit_code == 0
    con = sqlite3.connect(data_dir() / "lumente.db")
    rounds = con.execute("SELECT explanation, level, new_level, caught, false_alarms, score FROM check_round").fetchall()
    assert rounds == [("jwt_basics", 1, 1, 1, 0, 6)]
    assert con.execute("SELECT reason FROM check_claim WHERE number = 3").fetchone() == (secret,)
    assert con.execute("SELECT level FROM check_level").fetchone() == (1,)
    memory = b"".join(p.read_bytes() for p in paths.current().data_dir.glob("memory.db*"))
    assert memory and b"MY-REASON" not in memory
    assert not [b for (b,) in con.execute("SELECT body FROM memory_fact") if "MY-REASON" in b]

    r = lumente("memory", "forget", "--yes", "--delete-sessions", "--json")
    assert r.exit_code == 0, r.stderr
    for table in ("check_round", "check_claim", "check_level"):
        assert con.execute(f"SELECT COUNT(*) FROM {table}").fetchone() == (0,), table
    assert "Lumente remembers nothing" in lumente("memory", "show").stdout


def test_progress_shows_the_check_trend_next_to_practice():
    assert check("--no-memory", input=exact(BASICS)).exit_code == 0
    assert check("--no-memory", input=script(3, "1 2 3 4 5 6 7", *["Wrong."] * 7)).exit_code == 0
    import json

    (jwt,) = json.loads(lumente("progress", "jwt", "--json").stdout)["concepts"]
    assert jwt["sessions"] == [] and jwt["check_level"] == 1
    assert [(c["score"], c["claims"], c["level"], c["new_level"]) for c in jwt["checks"]] == [(7, 7, 1, 2), (0, 7, 2, 1)]
    assert jwt["check_trend"] == "slipping"
    human = lumente("progress", "jwt").stdout
    assert "Check the AI" in human and "2 rounds" in human and "slipping" in human


# --- every shipped explanation, and privacy with the memory traffic recorded -----------------------


# Flaws whose own `why` the offline judge reads as stating the misconception it argues against
# (a clause that names the mistake to contrast it: 'stealing the session ID ... is a different
# attack'). A student who writes the same is told their reason restates the mistake. Kept
# exact, so a fix to the judge or to the wording shows here and the entry goes.
KNOWN_MISREAD_WHYS = {
    "ci_cd_pipeline_design claim 3", "apis_basics claim 6", "csrf_basics claim 3", "tokens_costs_limits claim 7",
    "designing_rest_apis claim 1", "xss_basics claim 3",
}


@pytest.mark.parametrize("concept_id", sorted(p.stem for p in paths.Path(__file__).resolve().parent.parent.joinpath(
    "lumente_cli/concepts/explanations").glob("*.toml")))
def test_every_flaws_own_why_is_a_reason_that_holds_and_the_pasted_claim_is_not(concept_id):
    from lumente_cli.checking.rubric import judge_reason
    from lumente_cli.concepts.library import load_default

    concept = load_default().resolve(concept_id)
    problems = []
    for e in load_explanations(concept_id):
        for n, claim in enumerate(e.claims, 1):
            if claim.flaw is None:
                continue
            misread = f"{e.id} claim {n}" in KNOWN_MISREAD_WHYS
            if judge_reason(concept, e, claim, claim.flaw.why).holds == misread:
                problems.append(f"{e.id} claim {n}: its own `why` is {'now' if misread else 'not'} judged a reason "
                                "that holds")
            if judge_reason(concept, e, claim, claim.text).holds:
                problems.append(f"{e.id} claim {n}: the claim pasted back is judged a reason that holds")
    assert problems == [], "\n".join(problems)


def test_no_reason_or_question_reaches_memory(tmp_path):
    """Two recorded rounds (the second recalls and supersedes): no typed text in any request
    or in the memory database; every value written is a check template sentence."""
    import io
    import json

    from sessions import Rig

    from lumente_cli.checking.runner import CHECK_EVENT_KINDS, CheckRun
    from lumente_cli.memory import facts as F
    from lumente_cli.memory.backend import MemoryBackend
    from lumente_cli.memory.service import LearnerMemory
    from lumente_cli.practice.events import Emitter
    from lumente_cli.practice.student_io import ScriptedIO

    rig = Rig(tmp_path)
    typed = ["SECRET-REASON-ONE the payload is not encrypted, anyone can decode it",
             "SECRET-REASON-TWO it is only a claim I dislike", "SECRET-QUESTION-THREE why would anyone trust alg?"]
    try:
        for level, lines in ((1, ["5", "?", "3 5", typed[0], typed[1]]), (5, ["4", "?", "3", typed[0], typed[2]])):
            with rig.store.con:
                rig.store.con.execute("INSERT OR REPLACE INTO check_level VALUES (?, 'jwt', ?, '')",
                                      (rig.learner_id, level))
            backend = MemoryBackend("embedded", "recorded embedded memory", rig.client, context="lumente")
            emitter = Emitter(kinds=CHECK_EVENT_KINDS)
            emitter.add(rig.events.append)
            explanation = BASICS if level == 1 else IN_PRACTICE
            run = CheckRun(concept=rig.concept, explanation=explanation, level=level, store=rig.store,
                           learner_id=rig.learner_id, io=ScriptedIO(io.BytesIO("\n".join(lines).encode() + b"\n")),
                           emitter=emitter, memory=LearnerMemory(backend, rig.store, rig.pseudonym, "jwt"))
            assert int(run.run()) == 0
        sentences = {F.check_sentence("JWT", c, f, a) for c in range(4) for f in range(4) for a in range(11)}
        sentences |= {F.check_level_sentence("JWT", n) for n in range(1, 6)}
        written = [json.loads(r.body)["triples"][0] for r in rig.recorder.requests if r.url.endswith("/facts")]
        assert len(written) == 3 and all(t["value"] in sentences and t["key"] in F.CHECK_KEYS for t in written)
        sent = "\n".join(r.text() for r in rig.recorder.requests)
        rig.engine.close()
        stored = b"".join(p.read_bytes() for p in rig.root.glob("memory.db*"))
        for text in typed:
            assert text not in sent and text.split()[0] not in sent
            assert text.split()[0].encode() not in stored
        kept = {t for row in rig.store.con.execute("SELECT reason, question FROM check_claim") for t in row if t}
        assert set(typed) <= kept  # the local database is where student text belongs
    finally:
        rig.close()


def test_every_event_and_field_printed_is_in_docs_json():
    doc = (paths.Path(__file__).resolve().parent.parent / "docs" / "json.md").read_text("utf-8")
    section = doc[doc.index("## `lumente check CONCEPT --json`"):]
    section = section[:section.index("\n## ")]
    rows = {}
    for line in section.splitlines():
        cells = line.split(" | ")
        if line.startswith("| `") and len(cells) == 2:
            names = set(re.findall(r"`([a-z_]+)`", cells[1]))
            for kind in re.findall(r"`([a-z_]+)`", cells[0]):
                rows[kind] = names
    r = check(input=script(5, "?", "3 5", GOOD[("jwt_basics", 3)], "It sounds off."))
    stopped = check("--no-memory", input=script(5))
    common = {"event", "session_id", "at"}
    for event in r.events() + stopped.events():
        assert event["event"] in rows, event["event"]
        if event["event"] in ("memory_recalled", "memory_written"):
            continue  # documented with `lumente practice`
        assert set(event) - common <= rows[event["event"]], event["event"]
    from lumente_cli.checking.runner import CHECK_EVENT_KINDS

    assert set(CHECK_EVENT_KINDS) == set(rows)


def test_no_escape_bytes_with_no_color_and_errors_are_one_line_with_a_hint():
    for env, flags in (({"FORCE_COLOR": "1", "NO_COLOR": "1"}, ()), ({"FORCE_COLOR": "1"}, ("--no-color",))):
        r = lumente(*flags, "check", "jwt", "--no-memory", input=exact(BASICS), env=env)
        assert r.exit_code == 0, r.stderr
        assert "Every claim" in r.stdout and "\x1b" not in r.stdout + r.stderr
    r = lumente("check")
    assert r.exit_code == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert lines[0].startswith("lumente: missing argument 'CONCEPT'.") and len(lines) == 2


def test_an_interactive_round_asks_again_on_bad_input_and_ctrl_c_stops_it():
    import signal

    from test_terminal import Terminal

    t = Terminal("check", "jwt", "--no-memory")
    t.expect("It answered in 7 claims; 2 of them are wrong.")
    t.expect("(0-7)")
    t.send("eleven")
    t.expect("That was not a whole number from 0 to 7.")
    t.send("6")
    t.expect("Which claims are wrong?")
    t.send("3 9")
    t.expect("'9', not one of the claim numbers from 1 to 7, or none.")
    t.send("?")
    t.expect("Defining features: If you base64-decode")
    t.send("3 7")
    t.expect("Why is claim 3 wrong? >")
    t.send("")
    t.expect("That was an empty answer")
    t.send(GOOD[("jwt_basics", 3)])
    t.expect("Why is claim 7 wrong? >")
    t.send(GOOD[("jwt_basics", 7)])
    t.expect("Score 7/7")
    assert t.wait() == 0

    t = Terminal("check", "jwt", "--no-memory")
    t.expect("(0-7)")
    t.send("5")
    t.expect("Which claims are wrong?")
    t.proc.send_signal(signal.SIGINT)
    t.expect("nothing was saved")
    assert t.wait() == 130
    con = sqlite3.connect(data_dir() / "lumente.db")
    assert con.execute("SELECT COUNT(*) FROM check_round").fetchone() == (1,)  # only the finished one


@pytest.mark.parametrize("concept_id", sorted(p.stem for p in paths.Path(__file__).resolve().parent.parent.joinpath(
    "lumente_cli/concepts/explanations").glob("*.toml")))
def test_a_scripted_round_on_every_concept_catches_the_flaws_and_flagging_all_does_not_pay(concept_id, tmp_path):
    from lumente_cli.checking import rules

    plain = rules.pick(load_explanations(concept_id), 1, {})  # what a first round shows
    reasons = [plain.claims[n - 1].flaw.why for n in plain.flaws]
    r = lumente("check", concept_id, "--json", "--no-memory", env={"LUMENTE_HOME": str(tmp_path / "exact")},
                input=script(len(plain.claims), " ".join(map(str, plain.flaws)), *reasons))
    assert r.exit_code == 0, r.stderr
    assert one(r, "check_started")["explanation"] == plain.id
    misread = sum(f"{plain.id} claim {n}" in KNOWN_MISREAD_WHYS for n in plain.flaws)
    finished = one(r, "check_finished")
    assert (finished["caught"], finished["false_alarms"]) == (len(plain.flaws) - misread, 0)

    everything = script(0, " ".join(str(n) for n in range(1, len(plain.claims) + 1)),
                        *[c.flaw.why if c.flaw else "This one is wrong too." for c in plain.claims])
    r = lumente("check", concept_id, "--json", "--no-memory", env={"LUMENTE_HOME": str(tmp_path / "all")},
                input=everything)
    finished = one(r, "check_finished")
    assert finished["false_alarms"] == len(plain.claims) - len(plain.flaws)
    assert finished["score"] == finished["caught"] <= finished["flaws"]  # only the flaws explained count
