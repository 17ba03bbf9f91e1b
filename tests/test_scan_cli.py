"""`lumente scan`, `lumente next` and `lumente practice` without a concept, through the
real command tree; what is kept of a scan; and privacy: nothing of the scanned code
reaches memory."""

from __future__ import annotations

import json
import sqlite3

from helpers import JWT_SOLID, data_dir, lumente, script, solid_script
from scan_fixtures import node_project, python_project
from sessions import Rig
from test_json_docs import documented, keys

from lumente_cli.concepts.library import load_library
from lumente_cli.recommend import next_for
from lumente_cli.scan.engine import scan
from lumente_cli.store.scans import SavedFinding
from lumente_cli.timeutil import utc_now

ESC = "\x1b"
# Names that appear in the fixture projects and nowhere in Lumente.
DISTINCTIVE = ("quokka", "ZEBRAFISH", "WOMBAT", "wombat-api", "app/main.py", "server.js", "shop.example")


def project(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    python_project(root)
    node_project(root / "web")
    return root


def test_scan_prints_a_table_that_fits_80_columns_and_saves_what_next_needs(tmp_path):
    r = lumente("scan", str(project(tmp_path)))
    assert r.exit_code == 0, r.stderr
    assert "jwt" in r.stdout and "requirements.txt:2" in r.stdout and "risky:" in r.stdout
    assert all(len(line) <= 80 for line in r.stdout.splitlines())
    assert "concepts found" in r.stdout and "`lumente next`" in r.stdout
    nxt = lumente("next")
    assert nxt.exit_code == 0, nxt.stderr
    assert "From your last scan" in nxt.stdout and "lumente practice " in nxt.stdout


def test_scan_json_limit_and_no_color(tmp_path):
    root = project(tmp_path)
    doc = json.loads(lumente("scan", str(root), "--json", "--limit", "2").stdout)
    assert len(doc["findings"]) == 2 and doc["found"] > 2
    assert doc["findings"][0]["score"] >= doc["findings"][1]["score"]
    for env, flags in (({"FORCE_COLOR": "1", "NO_COLOR": "1"}, ()), ({"FORCE_COLOR": "1"}, ("--no-color",))):
        r = lumente(*flags, "scan", str(root), env=env)
        assert r.exit_code == 0 and ESC not in r.stdout + r.stderr
    assert ESC in lumente("scan", str(root), env={"FORCE_COLOR": "1"}).stdout


def test_nothing_found_is_a_clear_line_and_exit_0(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing to see\n")
    r = lumente("scan", str(tmp_path))
    assert r.exit_code == 0 and "No concepts of the library found" in r.stdout


def test_a_missing_path_or_a_file_is_a_usage_error(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    for target, message in ((tmp_path / "nope", "lumente: no such folder"), (tmp_path / "a.py", "is a file")):
        r = lumente("scan", str(target))
        assert r.exit_code == 2 and message in r.stderr and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 2


def test_the_json_documents_match_docs_json_md(tmp_path):
    doc = json.loads(lumente("scan", str(project(tmp_path)), "--json").stdout)
    assert keys(doc) - set(doc["skipped"]) == documented("lumente scan [PATH] --json")
    nxt = json.loads(lumente("next", "--json").stdout)
    assert keys(nxt) == documented("lumente next --json")


def test_the_database_keeps_no_path_name_or_snippet_of_the_project(tmp_path):
    assert lumente("scan", str(project(tmp_path))).exit_code == 0
    database = data_dir() / "lumente.db"
    con = sqlite3.connect(database)
    rows = con.execute("SELECT concept, score, risky, signals, files, reason FROM scan_finding").fetchall()
    con.close()
    assert {"jwt", "sql_injection", "cors"} <= {r[0] for r in rows}
    stored = database.read_bytes() + b"".join(p.read_bytes() for p in database.parent.glob("lumente.db-*"))
    for name in DISTINCTIVE:
        assert name.encode() not in stored, name


def test_next_without_a_scan_says_so_and_works_from_the_history():
    r = lumente("next")
    assert r.exit_code == 0 and "No scan yet" in r.stdout and "Nothing to suggest yet" in r.stdout
    # A session with a wide gap between the prediction and the score comes back as a suggestion.
    assert lumente("practice", "jwt", "--no-memory", input=script(8, *["no idea"] * 4)).exit_code == 0
    doc = json.loads(lumente("next", "--json").stdout)
    assert doc["scan"] is None
    assert doc["recommendations"][0]["concept"] == "jwt" and doc["recommendations"][0]["why"] == "gap"
    assert doc["recommendations"][0]["command"] == "lumente practice jwt"


def test_next_before_and_after_practising_the_top_suggestion(tmp_path):
    root = tmp_path / "api"
    root.mkdir()
    (root / "requirements.txt").write_text("pyjwt\n")
    (root / "auth.py").write_text("import jwt\n\ndef sign(sub, key):\n    return jwt.encode({'sub': sub}, key)\n")
    assert lumente("scan", str(root)).exit_code == 0
    before = json.loads(lumente("next", "--json").stdout)["recommendations"]
    assert before[0]["concept"] == "jwt" and before[0]["why"] == "project"
    assert "never practised" in before[0]["reason"]
    assert lumente("practice", "jwt", "--no-memory", input=solid_script(6)).exit_code == 0
    after = json.loads(lumente("next", "--json").stdout)["recommendations"]
    assert "jwt" not in [r["concept"] for r in after if r["why"] == "project"]


def test_forget_delete_sessions_clears_the_last_scan(tmp_path):
    assert lumente("scan", str(project(tmp_path))).exit_code == 0
    assert lumente("practice", "jwt", input=solid_script(5)).exit_code == 0
    r = lumente("memory", "forget", "--yes", "--delete-sessions", "--json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["scan_findings_deleted"] > 0
    assert "No scan yet" in lumente("next").stdout


def test_practice_without_a_concept_resumes_the_paused_session_first():
    paused = lumente("practice", "jwt", "--no-memory", input=script(5, JWT_SOLID["supraordinate"]))
    assert paused.exit_code == 3
    r = lumente("practice", "--no-memory", "--json", input="\n".join(list(JWT_SOLID.values())[1:]) + "\n")
    assert "Resuming your paused JWT session." in r.stderr
    assert r.exit_code == 0, r.stderr
    assert r.events()[0]["resumed"] is True


def test_practice_without_a_concept_in_a_script_names_the_suggestion_and_does_not_hang(tmp_path):
    r = lumente("practice", input="5\n")
    assert r.exit_code == 2 and "nothing to suggest yet" in r.stderr
    assert lumente("scan", str(project(tmp_path))).exit_code == 0
    r = lumente("practice", input="5\n")
    assert r.exit_code == 2 and "no terminal to ask on" in r.stderr
    assert "Lumente suggests `lumente practice " in r.stderr


def test_nothing_of_the_scanned_code_reaches_memory(tmp_path):
    """Scan a project full of distinctive names, keep the findings, practise with memory on
    and ask what is next: no request to memory and no byte of its database holds any of them."""
    rig = Rig(tmp_path / "rig")
    try:
        lib = load_library()
        result = scan(project(tmp_path), [lib.resolve(cid) for cid in lib.ids()])
        assert any(name in json.dumps(result.to_json()) for name in DISTINCTIVE)  # the names are there to leak
        rig.store.save_scan(rig.learner_id, result.files_scanned, [
            SavedFinding(f.concept, f.score, f.risky, f.signals, f.files, f.reasons[0]) for f in result.findings])
        assert rig.run(list(JWT_SOLID.values()), predict=5) == 0
        _, recommendations = next_for(rig.store, rig.learner_id, {cid: lib.name_of(cid) for cid in lib.ids()},
                                      now=utc_now())
        assert recommendations
        sent = "\n".join(request.text() for request in rig.recorder.requests)
        assert sent  # memory was written and read
    finally:
        rig.close()
    stored = rig.memory_db.read_bytes() + b"".join(p.read_bytes() for p in rig.memory_db.parent.glob("memory.db-*"))
    for name in DISTINCTIVE:
        assert name not in sent and name.lower() not in sent.lower(), name
        assert name.encode() not in stored, name
