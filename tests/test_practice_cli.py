"""`lumente practice` end to end through the real command tree, offline."""

from __future__ import annotations

import json
import sqlite3
import stat

import pytest
from helpers import JWT_SOLID, data_dir, lumente, script, solid_script

from lumente_cli.parts import PARTS


def test_scripted_json_session_prints_only_ndjson_and_finishes():
    r = lumente("practice", "jwt", "--json", "--no-memory", input=solid_script(6))
    assert r.exit_code == 0, r.stderr
    events = r.events()  # every stdout line parses as JSON
    kinds = [e["event"] for e in events]
    assert kinds[0] == "session_started" and kinds[1] == "predicted"
    assert kinds.count("part_started") == 4 and kinds.count("part_finished") == 4
    assert kinds[-2:] == ["session_finished", "coach"]
    finished = next(e for e in events if e["event"] == "session_finished")
    assert finished["score"] == 8 and finished["prediction"] == 6 and finished["gap"] == 2
    assert set(finished["reference"]) == set(PARTS)
    assert all(e["session_id"] == events[0]["session_id"] for e in events)
    verdicts = [e["verdict"] for e in events if e["event"] == "verdict"]
    assert verdicts == ["solid"] * 4
    # the human view went to stderr
    assert "Score 8/8" in r.stderr


def test_second_session_starts_from_the_levels_the_first_left():
    first = lumente("practice", "jwt", "--json", "--no-memory", input=solid_script(5))
    assert first.exit_code == 0
    changed = {e["part"]: e["to"] for e in first.events() if e["event"] == "level_changed"}
    assert changed == {p: 3 for p in PARTS}
    second = lumente("practice", "jwt", "--json", "--no-memory", input=solid_script(7))
    started = second.events()[0]
    assert started["levels"] == {p: 3 for p in PARTS}
    assert [e["level"] for e in second.events() if e["event"] == "part_started"] == [3, 3, 3, 3]


def test_help_taps_give_hints_from_vague_to_specific_and_count():
    lines = ["?", "?", JWT_SOLID["supraordinate"], *list(JWT_SOLID.values())[1:]]
    r = lumente("practice", "jwt", "--json", "--no-memory", input=script(4, *lines))
    assert r.exit_code == 0, r.stderr
    hints = [e for e in r.events() if e["event"] == "hint"]
    assert [h["tap"] for h in hints] == [1, 2]
    assert hints[0]["message"] != hints[1]["message"]
    first_part = next(e for e in r.events() if e["event"] == "part_finished")
    assert first_part["help_taps"] == 2
    assert first_part["new_level"] == first_part["level"]  # solid with two taps: no change


def test_predict_option_replaces_the_first_line():
    r = lumente("practice", "jwt", "--json", "--no-memory", "--predict", "3", input=solid_script(None))
    assert r.exit_code == 0, r.stderr
    assert next(e for e in r.events() if e["event"] == "predicted")["prediction"] == 3


def test_level_five_takes_an_answer_then_a_question():
    for _ in range(3):  # 2 -> 3 -> 4 -> 5
        assert lumente("practice", "jwt", "--no-memory", input=solid_script(6)).exit_code == 0
    levels = {p: 5 for p in PARTS}
    r = lumente("practice", "jwt", "--json", "--no-memory", input=solid_script(8, levels))
    assert r.exit_code == 0, r.stderr
    events = r.events()
    assert all(e["own_question"] for e in events if e["event"] == "part_started")
    kinds = [(e["kind"], e["verdict"]) for e in events if e["event"] == "verdict"]
    assert kinds == [("answer", "solid"), ("question", "solid")] * 4
    assert next(e for e in events if e["event"] == "session_finished")["score"] == 8


@pytest.mark.parametrize("bad", ["nine", "9", "-1", "", "4.5"])
def test_bad_prediction_in_a_script_is_a_usage_error(bad):
    r = lumente("practice", "jwt", "--no-memory", input=script(None, bad, *JWT_SOLID.values()))
    assert r.exit_code == 2
    assert "prediction must be a whole number from 0 to 8" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout


def test_predict_option_out_of_range_is_a_usage_error():
    r = lumente("practice", "jwt", "--predict", "12", input="")
    assert r.exit_code == 2


def test_end_of_input_pauses_and_resume_continues_where_it_stopped():
    r = lumente("practice", "jwt", "--json", "--no-memory", input=script(5, JWT_SOLID["supraordinate"]))
    assert r.exit_code == 3
    paused = r.events()[-1]
    assert paused["event"] == "session_paused" and paused["reason"] == "end_of_input"
    assert paused["part"] == "coordinate"

    # Without --resume a script gets a new session; this one fails at its prediction, and
    # leaves nothing behind that could stand in the way of resuming the paused one.
    stray = lumente("practice", "jwt", "--no-memory", input=script(None, JWT_SOLID["coordinate"]))
    assert stray.exit_code == 2 and "prediction" in stray.stderr

    rest = list(JWT_SOLID.values())[1:]
    resumed = lumente("practice", "jwt", "--json", "--no-memory", "--resume", input=script(None, *rest))
    assert resumed.exit_code == 0, resumed.stderr
    events = resumed.events()
    assert events[0]["resumed"] is True and events[0]["session_id"] == paused["session_id"]
    assert [e["part"] for e in events if e["event"] == "part_started"] == list(PARTS[1:])
    assert next(e for e in events if e["event"] == "session_finished")["score"] == 8


def test_restart_sets_the_paused_session_aside():
    paused = lumente("practice", "jwt", "--no-memory", input=script(5, JWT_SOLID["supraordinate"]))
    assert paused.exit_code == 3  # the input ended: paused, as the test needs
    r = lumente("practice", "jwt", "--json", "--no-memory", "--restart", input=solid_script(4))
    assert r.exit_code == 0
    assert r.events()[0]["resumed"] is False
    con = sqlite3.connect(data_dir() / "lumente.db")
    statuses = sorted(s for (s,) in con.execute("SELECT status FROM session"))
    assert statuses == ["abandoned", "finished"]
    # the abandoned session's answer is still there: nothing the student wrote is lost
    assert con.execute("SELECT COUNT(*) FROM answer").fetchone()[0] == 5


def test_resume_and_restart_together_is_a_usage_error():
    r = lumente("practice", "jwt", "--resume", "--restart", input="")
    assert r.exit_code == 2 and "cannot be used together" in r.stderr


def test_unknown_concept_suggests_close_names():
    r = lumente("practice", "jwtt", input="")
    assert r.exit_code == 2
    assert "unknown concept 'jwtt'" in r.stderr and "jwt" in r.stderr.split("unknown concept")[1]


def test_concept_names_are_forgiving():
    r = lumente("practice", "JSON Web Token", "--json", "--no-memory", input=solid_script(6))
    assert r.exit_code == 0 and r.events()[0]["concept"] == "jwt"


def test_empty_answer_line_in_a_script_is_a_usage_error_and_saves_the_session():
    r = lumente("practice", "jwt", "--no-memory", input=script(5, JWT_SOLID["supraordinate"], "   "))
    assert r.exit_code == 2 and "empty answer" in r.stderr
    con = sqlite3.connect(data_dir() / "lumente.db")
    assert con.execute("SELECT status FROM session").fetchone()[0] == "paused"
    assert con.execute("SELECT COUNT(*) FROM answer").fetchone()[0] == 1


def test_a_100_kb_answer_is_refused_cleanly():
    r = lumente("practice", "jwt", "--no-memory", input=script(5, "x" * 100_000))
    assert r.exit_code == 2 and "limit is 8,000" in r.stderr
    assert "Traceback" not in r.stderr


def test_non_utf8_input_is_refused_cleanly():
    r = lumente("practice", "jwt", "--no-memory", input=b"5\n\xff\xfe not utf-8\n")
    assert r.exit_code == 2 and "not valid UTF-8" in r.stderr


def test_unwritable_data_dir_is_a_clear_error(tmp_path, monkeypatch):
    # A path under a regular file cannot be created, even by root (as CI runs).
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setenv("LUMENTE_HOME", str(blocker / "lumente"))
    r = lumente("practice", "jwt", "--no-memory", input=solid_script(5))
    assert r.exit_code == 1
    assert "cannot create" in r.stderr and "Traceback" not in r.stderr


def test_corrupt_database_is_a_clear_error_and_is_left_alone():
    db = data_dir() / "lumente.db"
    db.parent.mkdir(parents=True)
    junk = b"this is not a database" * 100
    db.write_bytes(junk)
    r = lumente("practice", "jwt", "--no-memory", input=solid_script(5))
    assert r.exit_code == 1
    assert "damaged or is not a Lumente database" in r.stderr
    assert db.read_bytes() == junk


def test_database_is_private_and_uses_wal():
    assert lumente("practice", "jwt", "--no-memory", input=solid_script(5)).exit_code == 0
    db = data_dir() / "lumente.db"
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("PRAGMA user_version").fetchone()[0] >= 1


def test_answers_events_and_levels_are_saved_locally():
    r = lumente("practice", "jwt", "--json", "--no-memory", input=solid_script(5))
    sid = r.events()[0]["session_id"]
    con = sqlite3.connect(data_dir() / "lumente.db")
    answers = [t for (t,) in con.execute("SELECT text FROM answer WHERE session_id = ? ORDER BY id", (sid,))]
    assert answers == list(JWT_SOLID.values())
    logged = [k for (k,) in con.execute("SELECT kind FROM event WHERE session_id = ? ORDER BY id", (sid,))]
    assert logged == r.kinds()
    levels = dict(con.execute("SELECT part, level FROM level"))
    assert levels == {p: 3 for p in PARTS}
    # Each verdict and its feedback are kept once, in the answer row; the logged verdict event points at it.
    rows = {i: (v, f) for i, v, f in con.execute("SELECT id, verdict, feedback FROM answer WHERE session_id = ?", (sid,))}
    logged_verdicts = [json.loads(d) for (d,) in con.execute(
        "SELECT data FROM event WHERE session_id = ? AND kind = 'verdict' ORDER BY id", (sid,))]
    shown = [e for e in r.events() if e["event"] == "verdict"]
    assert [rows[e["answer_id"]] for e in logged_verdicts] == [(e["verdict"], e["feedback"]) for e in shown]
    assert not [e for e in logged_verdicts if "verdict" in e or "feedback" in e]
    assert [e["covered"] for e in logged_verdicts] == [e["covered"] for e in shown]


def test_an_answer_is_saved_whole_or_not_at_all(tmp_path):
    """Its row, its events, the engine step and the new state are one transaction: a write
    that fails at the last of them leaves none of them behind."""
    from lumente_cli.session import AnswerJudged, Predicted, advance, start
    from lumente_cli.store import JudgedAnswer, LocalStore

    store = LocalStore(tmp_path / "lumente.db")
    learner = store.learner_id("p_0123456789abcdef01234567")
    state = advance(start("jwt", store.levels(learner, "jwt")), Predicted(value=4))
    record = store.create_session(learner, "jwt", "offline", state)
    step = AnswerJudged(verdict="solid")
    answer = JudgedAnswer("supraordinate", "answer", 3, JWT_SOLID["supraordinate"], "solid", "Well put.")
    events = [{"event": "verdict", "session_id": record.id, "at": "t", "part": "supraordinate", "kind": "answer",
               "verdict": "solid", "feedback": "Well put.", "covered": []},
              {"event": "part_finished", "session_id": record.id, "at": "t", "part": "supraordinate"}]
    con = store.con
    con.execute("CREATE TEMP TRIGGER no_room BEFORE UPDATE ON session BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
    with pytest.raises(sqlite3.Error, match="full"):
        store.record_answer(record.id, answer, step, advance(state, step), events)
    counts = [con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("answer", "event", "engine_event")]
    assert counts == [0, 0, 0]
    assert store.session(record.id).state == state
    con.execute("DROP TRIGGER no_room")
    store.record_answer(record.id, answer, step, advance(state, step), events)
    assert [tuple(row) for row in con.execute("SELECT text, verdict, feedback FROM answer")] == [
        (JWT_SOLID["supraordinate"], "solid", "Well put.")]
    assert [row[0] for row in con.execute("SELECT kind FROM event ORDER BY id")] == ["verdict", "part_finished"]
    assert store.session(record.id).events == (step,) and store.session(record.id).state == advance(state, step)
    store.close()


def test_human_output_has_score_reference_and_coach():
    r = lumente("practice", "jwt", "--no-memory", input=solid_script(5))
    assert r.exit_code == 0
    assert "Score 8/8" in r.stdout and "The reference map" in r.stdout and "Coach" in r.stdout
    assert "Predict your score" in r.stderr  # prompts stay off stdout


def test_level_one_shows_the_worked_example_and_wants_it_in_your_own_words():
    miss = script(2, "no idea", "no idea", "no idea", "no idea")
    assert lumente("practice", "jwt", "--no-memory", input=miss).exit_code == 0  # every part drops to 1
    from lumente_cli.concepts.library import load_library

    example = load_library().resolve("jwt").supraordinate.worked_example.strip()
    copied = " ".join(example.split())
    r = lumente("practice", "jwt", "--json", "--no-memory",
                input=script(3, copied, *list(JWT_SOLID.values())[1:]))
    assert r.exit_code == 0, r.stderr
    started = [e for e in r.events() if e["event"] == "part_started"]
    assert all(e["level"] == 1 and e["worked_example"] for e in started)
    assert "explain it back in your own words" in started[0]["prompt"]
    verdicts = [e for e in r.events() if e["event"] == "verdict"]
    assert verdicts[0]["verdict"] == "missing" and "own words" in verdicts[0]["feedback"]  # a copy covers nothing
    assert [v["verdict"] for v in verdicts[1:]] == ["solid"] * 3


# --- what the judge will not credit, through a whole scripted session ---------------------------


def _session_verdicts(lines: list[str], concept: str = "jwt") -> list[str]:
    r = lumente("practice", concept, "--json", "--no-memory", input=script(4, *lines))
    assert r.exit_code == 0, r.stderr
    return [e["verdict"] for e in r.events() if e["event"] == "verdict"]


@pytest.mark.parametrize("concept", ["jwt", "cors", "idempotency"])
def test_pasting_back_the_cues_or_the_guided_questions_scores_nothing(concept):
    from lumente_cli.concepts.library import load_library

    c = load_library().resolve(concept)
    cues = [" ".join(part.cues) for _, part in c.parts()]
    guided = [" ".join(part.guided) for _, part in c.parts()]
    assert _session_verdicts(cues, concept) == ["missing"] * 4
    assert _session_verdicts(guided, concept) == ["missing"] * 4


def test_pasting_back_the_hint_just_shown_scores_nothing():
    r = lumente("practice", "jwt", "--json", "--no-memory", input=script(4, "?", "?", "?", "?", "?"))
    hints = [e["message"] for e in r.events() if e["event"] == "hint"]
    lines = ["?", "?", "?", "?", hints[-1], *["I don't know"] * 3]
    r = lumente("practice", "jwt", "--json", "--no-memory", "--restart", input=script(4, *lines))
    assert r.exit_code == 0, r.stderr
    assert [e["verdict"] for e in r.events() if e["event"] == "verdict"][0] == "missing"


def test_a_negated_answer_scores_nothing_where_the_plain_one_is_solid():
    plain = JWT_SOLID["supraordinate"]
    negated = "A JWT is not a kind of security token and it does not carry claims about the user."
    assert _session_verdicts([plain, *["idk"] * 3])[0] == "solid"
    assert _session_verdicts([negated, *["idk"] * 3])[0] == "missing"


def test_a_session_is_driven_by_one_process_at_a_time(tmp_path):
    """A second `practice --resume` while the first still runs is refused with a clear
    line and its own exit code; the first finishes alone: one session, four answers."""
    import os
    import subprocess
    import sys
    import time

    env = {**os.environ, "LUMENTE_HOME": str(tmp_path / "home")}
    first = subprocess.Popen([sys.executable, "-m", "lumente_cli", "practice", "jwt", "--json", "--no-memory"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        first.stdin.write(b"5\n")
        first.stdin.flush()
        db = tmp_path / "home" / "data" / "lumente.db"
        deadline = time.monotonic() + 20
        while True:  # until the first process holds its session
            try:
                con = sqlite3.connect(db)
                held = con.execute("SELECT holder FROM session WHERE holder IS NOT NULL").fetchall()
                con.close()
            except sqlite3.Error:
                held = []
            if held:
                break
            assert time.monotonic() < deadline and first.poll() is None, "the first session never started"
            time.sleep(0.05)
        for flags in (("--resume",), ("--restart",), ()):
            second = subprocess.run([sys.executable, "-m", "lumente_cli", "practice", "jwt", "--no-memory", *flags],
                                    input=solid_script(7).encode(), capture_output=True, env=env, timeout=60)
            assert second.returncode == 6, (flags, second.stderr)
            message = second.stderr.decode()
            assert "open in another lumente" in message and "Traceback" not in message
        out, err = first.communicate(("\n".join(JWT_SOLID.values()) + "\n").encode(), timeout=60)
        assert first.returncode == 0, err
    finally:
        if first.poll() is None:
            first.kill()
    events = [json.loads(line) for line in out.decode().splitlines()]
    assert [e["event"] for e in events].count("session_finished") == 1
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM session").fetchone()[0] == 1
    assert con.execute("SELECT COUNT(*) FROM answer").fetchone()[0] == 4
    assert con.execute("SELECT holder FROM session").fetchone()[0] is None  # released when it finished
    con.close()
    # ...and a process that died does not keep it: a later run starts normally.
    again = subprocess.run([sys.executable, "-m", "lumente_cli", "practice", "jwt", "--no-memory"],
                           input=solid_script(6).encode(), capture_output=True, env=env, timeout=60)
    assert again.returncode == 0, again.stderr


def test_a_session_left_by_a_killed_process_can_be_resumed(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    env = {**os.environ, "LUMENTE_HOME": str(tmp_path / "home")}
    first = subprocess.Popen([sys.executable, "-m", "lumente_cli", "practice", "jwt", "--json", "--no-memory"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    first.stdin.write(b"5\n" + JWT_SOLID["supraordinate"].encode() + b"\n")
    first.stdin.flush()
    db = tmp_path / "home" / "data" / "lumente.db"
    deadline = time.monotonic() + 20
    while True:
        try:
            con = sqlite3.connect(db)
            answered = con.execute("SELECT COUNT(*) FROM answer").fetchone()[0]
            con.close()
        except sqlite3.Error:
            answered = 0
        if answered:
            break
        assert time.monotonic() < deadline
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    resumed = subprocess.run([sys.executable, "-m", "lumente_cli", "practice", "jwt", "--json", "--no-memory",
                              "--resume"], input=("\n".join(list(JWT_SOLID.values())[1:]) + "\n").encode(),
                             capture_output=True, env=env, timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    started = json.loads(resumed.stdout.decode().splitlines()[0])
    assert started["resumed"] is True


def test_after_a_solid_session_the_coach_suggests_a_linked_concept():
    r = lumente("practice", "jwt", "--json", "--no-memory", input=solid_script(8))
    coach = next(e for e in r.events() if e["event"] == "coach")
    from lumente_cli.concepts.library import load_library

    first = load_library().resolve("jwt").links[0]
    assert f"lumente practice {first}" in coach["message"]


def test_a_script_never_gets_stuck_on_a_paused_session():
    """A piped run that ends early leaves a paused session; the next piped run starts a new
    one (saying so) and leaves the paused one for --resume."""
    early = lumente("practice", "jwt", "--no-memory", input=script(4, JWT_SOLID["supraordinate"]))
    assert early.exit_code == 3
    second = lumente("practice", "jwt", "--json", "--no-memory", input=solid_script(6))
    assert second.exit_code == 0, second.stderr
    events = second.events()
    assert events[0]["event"] == "session_started" and events[0]["resumed"] is False
    notice = next(e for e in events if e["event"] == "notice")
    assert "left as it was" in notice["message"] and "--resume" in notice["message"]
    resumed = lumente("practice", "jwt", "--json", "--no-memory", "--resume",
                      input="\n".join(list(JWT_SOLID.values())[1:]) + "\n")
    assert resumed.exit_code == 0, resumed.stderr
    assert resumed.events()[0]["resumed"] is True
