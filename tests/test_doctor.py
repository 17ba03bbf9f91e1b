"""`lumente doctor`: one line per check, a fix for each problem, exit 1 only on
failures, a stable JSON document, and never a traceback, whatever is broken."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from helpers import lumente, solid_script

from lumente_cli import paths
from lumente_cli.memory_engine import KeyRing, MemoryEngine

ROOT = Path(__file__).resolve().parent.parent
JWT = (ROOT / "lumente_cli" / "concepts" / "library" / "jwt.toml").read_text()


def doctor(*args: str, env: dict[str, str] | None = None) -> tuple[int, dict, str]:
    r = lumente("doctor", "--json", *args, env=env)
    assert "Traceback" not in r.stdout + r.stderr
    doc = json.loads(r.stdout)
    return r.exit_code, doc, r.stderr


def by_name(doc: dict, name: str) -> list[dict]:
    return [c for c in doc["checks"] if c["name"] == name]


def one(doc: dict, name: str) -> dict:
    (check,) = by_name(doc, name)
    return check


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_fresh_install_is_well_and_doctor_creates_nothing():
    code, doc, _ = doctor()
    assert code == 0 and doc["ok"] is True
    assert set(doc) == {"ok", "checks"}
    names = [c["name"] for c in doc["checks"]]
    assert names == ["python", "config_dir", "data_dir", "config", "database", "outbox", "memory", "learner",
                     "provider", "concepts"]
    for c in doc["checks"]:
        assert set(c) == {"name", "status", "detail", "fix"}
        assert c["status"] in {"ok", "warn", "fail"} and c["detail"]
        assert (c["fix"] is None) == (c["status"] == "ok")
    assert one(doc, "learner")["status"] == "warn"  # no secret yet: a warning, not a failure
    p = paths.current()
    assert not p.data_dir.exists() and not p.config_dir.exists()


def test_after_a_session_every_check_is_ok():
    assert lumente("practice", "jwt", input=solid_script(6)).exit_code == 0
    code, doc, _ = doctor()
    assert code == 0, doc
    assert [c["status"] for c in doc["checks"]] == ["ok"] * len(doc["checks"])
    assert "integrity ok" in one(doc, "database")["detail"] and "journal wal" in one(doc, "database")["detail"]
    assert one(doc, "memory")["detail"].startswith("embedded at") and " ms" in one(doc, "memory")["detail"]
    assert "pseudonym p_" in one(doc, "learner")["detail"]


def test_human_output_is_one_line_per_check_with_a_fix_line_under_problems():
    paths.current().config_dir.mkdir(parents=True)
    paths.current().config_file.write_text("provider = [\n")
    r = lumente("doctor")
    assert r.exit_code == 1 and "Traceback" not in r.stdout + r.stderr
    lines = r.stdout.splitlines()
    config = next(i for i, line in enumerate(lines) if line.split()[:2] == ["FAIL", "config"])
    assert "not valid TOML" in lines[config]
    assert lines[config + 1].strip().startswith("fix: Edit ")
    assert lines[-1].startswith("1 problem")
    quiet = lumente("-q", "doctor")
    assert not any(line.startswith("ok ") for line in quiet.stdout.splitlines())
    assert any(line.startswith("FAIL") for line in quiet.stdout.splitlines())


def test_a_broken_config_is_reported_not_crashed_on():
    paths.current().config_dir.mkdir(parents=True)
    paths.current().config_file.write_text('provider = "offline"\nbogus = 1\n')
    code, doc, _ = doctor()
    assert code == 1 and doc["ok"] is False
    config = one(doc, "config")
    assert config["status"] == "fail" and "unknown setting 'bogus'" in config["detail"]
    assert str(paths.current().config_file) in config["fix"]
    assert one(doc, "provider")["status"] == "ok"  # the other checks still ran, on the defaults


def test_a_bad_environment_variable_is_reported():
    code, doc, _ = doctor(env={"LUMENTE_PROVIDER": "gpt"})
    assert code == 1
    assert "LUMENTE_PROVIDER" in one(doc, "config")["detail"]


def test_an_unreachable_memory_url_fails_with_a_fix_and_quickly():
    port = closed_port()
    start = time.monotonic()
    code, doc, _ = doctor(env={"LUMENTE_MEMORY_URL": f"http://127.0.0.1:{port}"})
    assert time.monotonic() - start < 10
    assert code == 1
    memory = one(doc, "memory")
    assert memory["status"] == "fail"
    assert f"127.0.0.1:{port}" in memory["detail"] and "unreachable" in memory["detail"]
    assert "memory_url" in memory["fix"]


def test_a_memory_url_that_is_not_an_agent_memory_service_fails_with_its_status():
    class NotMemory(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b'{"message": "no such route"}'
            self.send_response(404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), NotMemory)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        code, doc, _ = doctor(env={"LUMENTE_MEMORY_URL": url})
    finally:
        server.shutdown()
        server.server_close()
    memory = one(doc, "memory")
    assert code == 1 and memory["status"] == "fail"
    assert memory["detail"].startswith(f"remote memory at {url}: GET /api/v1/health answered 404 after ")
    assert "no such route" in memory["detail"] and "memory_url" in memory["fix"]


def test_a_corrupt_database_fails_and_is_left_alone():
    db = paths.current().database
    db.parent.mkdir(parents=True)
    junk = b"this is not a database at all " * 200
    db.write_bytes(junk)
    code, doc, _ = doctor()
    assert code == 1
    database = one(doc, "database")
    assert database["status"] == "fail" and str(db) in database["detail"]
    assert "aside" in database["fix"]
    assert one(doc, "outbox")["status"] == "fail"
    assert db.read_bytes() == junk


def test_a_database_damaged_inside_fails_the_integrity_check():
    assert lumente("practice", "jwt", "--no-memory", input=solid_script(6)).exit_code == 0
    db = paths.current().database
    import sqlite3

    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    data = bytearray(db.read_bytes())
    for offset in range(page_size * 2, min(len(data), page_size * 4)):  # smash pages 3 and 4 (tables, index)
        data[offset] = 0x5A
    db.write_bytes(bytes(data))
    code, doc, _ = doctor()
    assert code == 1 and one(doc, "database")["status"] == "fail"


def test_a_newer_schema_fails_with_upgrade_advice():
    import sqlite3

    db = paths.current().database
    db.parent.mkdir(parents=True)
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA user_version=99")
    con.close()
    os.chmod(db, 0o600)
    code, doc, _ = doctor()
    assert code == 1
    assert "newer" in one(doc, "database")["detail"] and "Upgrade" in one(doc, "database")["fix"]


def test_a_malformed_user_concept_file_is_named_with_its_field():
    user = paths.current().user_concepts_dir
    user.mkdir(parents=True)
    broken = JWT.replace('id = "jwt"', 'id = "broken"', 1).replace("hints = [", "hintz = [", 1)
    (user / "broken.toml").write_text(broken)
    (user / "nottoml.toml").write_text("id = \n")
    (user / "fine.toml").write_text(JWT.replace('id = "jwt"', 'id = "fine"', 1))
    code, doc, _ = doctor()
    assert code == 1
    problems = by_name(doc, "concepts")
    assert len(problems) == 2 and all(c["status"] == "fail" for c in problems)
    details = " ".join(c["detail"] for c in problems)
    assert "broken.toml" in details and "field supraordinate.hints" in details
    assert "nottoml.toml" in details and "not valid TOML" in details
    assert "fine.toml" not in details


def test_waiting_facts_are_a_warning_that_points_at_sync():
    port = closed_port()
    env = {"LUMENTE_MEMORY_URL": f"http://127.0.0.1:{port}"}
    r = lumente("practice", "jwt", input=solid_script(6), env=env)
    assert r.exit_code == 0, r.stderr
    code, doc, _ = doctor()  # memory back to embedded: only the outbox is wrong
    outbox = one(doc, "outbox")
    assert outbox["status"] == "warn" and "waiting" in outbox["detail"]
    assert "lumente memory sync" in outbox["fix"]
    assert code == 0  # warnings do not fail doctor


def test_a_secret_readable_by_others_fails():
    assert lumente("login", "ada").exit_code == 0
    secret = paths.current().secret
    os.chmod(secret, 0o644)
    code, doc, _ = doctor()
    assert code == 1
    learner = one(doc, "learner")
    assert learner["status"] == "fail" and learner["fix"] == f"chmod 600 {secret}"


def test_the_provider_check_never_shows_the_key():
    key = "sk-ant-doctor-secret-0123456789"
    code, doc, _ = doctor(env={"ANTHROPIC_API_KEY": key, "LUMENTE_MODEL": "claude-test-model"})
    assert code == 0
    provider = one(doc, "provider")
    assert provider["detail"].startswith("claude, model claude-test-model")
    assert "ANTHROPIC_API_KEY" in provider["detail"]
    human = lumente("doctor", env={"ANTHROPIC_API_KEY": key})
    assert key not in json.dumps(doc) and key not in human.stdout + human.stderr
    assert key[:12] not in human.stdout


def test_claude_without_a_key_fails():
    code, doc, _ = doctor(env={"LUMENTE_PROVIDER": "claude"})
    assert code == 1 and one(doc, "provider")["status"] == "fail"


def test_doctor_does_not_import_anthropic():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "lumente_cli", "doctor"],
                          capture_output=True, text=True, env={**os.environ, "ANTHROPIC_API_KEY": "sk-x" * 4},
                          timeout=60)
    assert proc.returncode == 0, proc.stdout
    modules = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert modules and not {m for m in modules if m.split(".")[0] == "anthropic"}


# ------------------------------------------------------------------ remote memory


class _Bridge(BaseHTTPRequestHandler):
    engine: MemoryEngine

    def _serve(self) -> None:
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        reply = self.engine.handle(self.command, url.path, dict(parse_qsl(url.query)), headers, body)
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        self.wfile.write(reply.body)

    do_GET = do_POST = do_PUT = do_DELETE = _serve  # noqa: N815 - http.server's naming

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def remote(tmp_path):
    """The memory engine with bearer keys, served over HTTP on loopback."""
    ring = KeyRing()
    engine = MemoryEngine(tmp_path / "served" / "memory.db", auth=ring)
    key = ring.mint_admin_key("doctor-test")
    handler = type("Bridge", (_Bridge,), {"engine": engine})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", key
    server.shutdown()
    server.server_close()
    engine.close()


def test_remote_memory_with_a_good_key_is_ok_with_its_latency(remote):
    url, key = remote
    code, doc, _ = doctor(env={"LUMENTE_MEMORY_URL": url, "LUMENTE_MEMORY_API_KEY": key})
    memory = one(doc, "memory")
    assert memory["status"] == "ok", memory
    assert memory["detail"].startswith(f"remote at {url}") and " ms" in memory["detail"]
    assert key not in json.dumps(doc)
    assert code == 0


def test_remote_memory_with_a_bad_key_fails_on_the_authenticated_read(remote):
    url, key = remote
    code, doc, _ = doctor(env={"LUMENTE_MEMORY_URL": url, "LUMENTE_MEMORY_API_KEY": "not-the-key-0123456789"})
    memory = one(doc, "memory")
    assert code == 1 and memory["status"] == "fail"
    assert "refused an authenticated read" in memory["detail"] and "memory_api_key" in memory["fix"]
    assert "not-the-key-0123456789" not in json.dumps(doc)


def test_a_data_folder_that_is_a_file_fails_with_a_fix(tmp_path, monkeypatch):
    home = tmp_path / "lh"
    home.mkdir()
    (home / "data").write_text("not a folder")
    monkeypatch.setenv("LUMENTE_HOME", str(home))
    code, doc, _ = doctor()
    assert code == 1
    data = one(doc, "data_dir")
    assert data["status"] == "fail" and "is not a folder" in data["detail"] and "LUMENTE_HOME" in data["fix"]


def test_an_old_python_fails(monkeypatch):
    from types import SimpleNamespace

    from lumente_cli import doctor as doctor_mod

    monkeypatch.setattr(doctor_mod, "sys", SimpleNamespace(version_info=(3, 10, 4), executable="/usr/bin/python3"))
    (check,) = doctor_mod.check_python(doctor_mod.Context(paths.current(), None, False))  # type: ignore[arg-type]
    assert check.status == "fail" and "3.10.4" in check.detail and "3.11" in check.detail and check.fix


def test_a_check_that_crashes_becomes_a_failing_line(monkeypatch):
    from lumente_cli import doctor as doctor_mod

    def explode(ctx):
        raise RuntimeError("boom")

    monkeypatch.setattr(doctor_mod, "CHECKS", (*doctor_mod.CHECKS[:-1], ("concepts", explode)))
    code, doc, _ = doctor()
    assert code == 1
    assert one(doc, "concepts") == {"name": "concepts", "status": "fail",
                                    "detail": "the check itself failed (RuntimeError: boom).",
                                    "fix": "This is a bug in Lumente; run with LUMENTE_DEBUG=1 and report it."}
