"""`lumente progress`, `login` and `whoami`."""

from __future__ import annotations

import stat

import pytest

from helpers import lumente, script, solid_script

from lumente_cli import paths
from lumente_cli.parts import PARTS


def test_progress_with_no_sessions_says_how_to_start():
    r = lumente("progress")
    assert r.exit_code == 0 and "No finished sessions yet" in r.stdout
    assert lumente("progress", "--json").stdout.strip().endswith('"concepts": []\n}'.strip())


def test_progress_tracks_levels_and_calibration_over_sessions():
    for prediction in (2, 5, 8):
        assert lumente("practice", "jwt", "--no-memory", input=solid_script(prediction)).exit_code == 0
    r = lumente("progress", "jwt", "--json")
    assert r.exit_code == 0
    import json

    doc = json.loads(r.stdout)
    (jwt,) = doc["concepts"]
    assert [s["prediction"] for s in jwt["sessions"]] == [2, 5, 8]
    assert [s["score"] for s in jwt["sessions"]] == [8, 8, 8]
    assert [s["levels"]["supraordinate"] for s in jwt["sessions"]] == [3, 4, 5]
    assert jwt["current_levels"] == {p: 5 for p in PARTS}
    assert jwt["gap_trend"] == "shrinking"
    human = lumente("progress", "jwt")
    assert "JWT" in human.stdout and "3 sessions" in human.stdout and "shrinking" in human.stdout
    assert "▅▆█" in human.stdout  # levels 3, 4, 5 on a 1..5 scale


def test_progress_ignores_unfinished_sessions_and_rejects_unknown_concepts():
    assert lumente("practice", "jwt", "--no-memory", input=script(4, "a token")).exit_code == 3  # left paused
    assert '"concepts": []' in lumente("progress", "--json").stdout
    r = lumente("progress", "nope_nothing")
    assert r.exit_code == 2 and "unknown concept" in r.stderr


def test_progress_degrades_to_plain_text_with_no_color():
    assert lumente("practice", "jwt", "--no-memory", input=solid_script(4)).exit_code == 0
    # FORCE_COLOR makes Rich colour even into a pipe, so the comparison means something.
    coloured = lumente("progress", env={"FORCE_COLOR": "1"})
    assert "\x1b[" in coloured.stdout
    for env, args in (({"NO_COLOR": "1", "FORCE_COLOR": "1"}, ()), ({"FORCE_COLOR": "1"}, ("--no-color",))):
        r = lumente(*args, "progress", env=env)
        assert r.exit_code == 0 and "\x1b[" not in r.stdout, args


def test_login_changes_the_pseudonym_and_whoami_never_shows_the_secret():
    before = lumente("whoami", "--json")
    import json

    first = json.loads(before.stdout)
    assert first["pseudonym"].startswith("p_") and len(first["pseudonym"]) == 26
    assert first["scope"] == f"learner/{first['pseudonym']}"
    r = lumente("login", "ada@example.com")
    assert r.exit_code == 0 and "p_" in r.stdout
    after = json.loads(lumente("whoami", "--json").stdout)
    assert after["sign_in"] == "ada@example.com" and after["pseudonym"] != first["pseudonym"]
    secret = paths.current().secret.read_bytes()
    assert stat.S_IMODE(paths.current().secret.stat().st_mode) == 0o600
    shown = lumente("whoami").stdout + json.dumps(after)
    assert secret.hex() not in shown and "ada@example.com" not in after["pseudonym"]
    config = paths.current().config_file
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    # the same sign-in gives the same pseudonym again
    assert lumente("login", "ada@example.com").exit_code == 0
    assert json.loads(lumente("whoami", "--json").stdout)["pseudonym"] == after["pseudonym"]


def test_login_whoami_doctor_and_the_concept_list_derive_the_same_pseudonym():
    import json

    def whoami() -> str:
        return json.loads(lumente("whoami", "--json").stdout)["pseudonym"]

    def doctor() -> str:  # "pseudonym p_… (sign-in from …); secret … is mode 0600."
        checks = json.loads(lumente("doctor", "--json").stdout)["checks"]
        return next(c for c in checks if c["name"] == "learner")["detail"].split()[1]

    def jwt_levels() -> dict | None:  # read by the pseudonym the concept list derives
        listed = json.loads(lumente("concepts", "--json").stdout)["concepts"]
        return next(c for c in listed if c["id"] == "jwt")["levels"]

    assert lumente("practice", "jwt", input=solid_script(5)).exit_code == 0  # as the OS user
    mine = whoami()
    assert doctor() == mine and jwt_levels()
    signed_in = lumente("login", "ada@example.com").stdout.split()[-1].rstrip(".")
    assert whoami() == doctor() == signed_in != mine
    assert jwt_levels() is None  # ada never practised
    assert lumente("practice", "jwt", input=solid_script(5)).exit_code == 0
    assert jwt_levels()


def test_an_empty_sign_in_is_the_os_user_and_reading_never_makes_a_secret(tmp_path):
    from lumente_cli.memory.pseudonym import default_sign_in, existing_pseudonym, learner_pseudonym

    secret = tmp_path / "secret"
    assert existing_pseudonym(secret, "ada") is None and not secret.exists()
    made = learner_pseudonym(secret, "ada")
    assert existing_pseudonym(secret, "ada") == made == learner_pseudonym(secret, " ada ")
    assert learner_pseudonym(secret, "") == learner_pseudonym(secret, default_sign_in()) != made


def test_login_refuses_an_empty_id():
    r = lumente("login", "   ")
    assert r.exit_code == 2 and "sign-in ID" in r.stderr


@pytest.mark.parametrize(
    ("gaps", "trend"),
    [
        ([3], "too few sessions"),
        ([3, 1], "shrinking"),  # two sessions: the second against the first
        ([1, 1], "steady"),
        ([1, 3, 3], "growing"),  # three: the last two against the first
        ([4, 4, 0, 0, 0], "shrinking"),  # from four on: the last three against all before
        ([0, 2, 2, 2], "growing"),
    ],
)
def test_gap_trend_is_what_docs_json_says(gaps, trend):
    from lumente_cli.progress import ConceptProgress, SessionPoint

    sessions = [SessionPoint(session_id=f"s{i}", finished_at="", prediction=4, score=4 + g, levels={})
                for i, g in enumerate(gaps)]
    assert ConceptProgress("jwt", sessions).gap_trend == trend
