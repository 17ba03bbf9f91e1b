"""`lumente memory serve` as a real process: where it listens, keys, the
request log, loopback, and a clean stop on SIGTERM and Ctrl-C."""

from __future__ import annotations

import re
import signal
import socket
import sqlite3
import threading
import time

import httpx2
import pytest
from helpers import lumente
from servehelpers import CONTEXT, free_port, wait_until_read

LEARNER = "learner/p_test"


def fact_body(value: str, key: str = "gap") -> dict:
    return {"infer": "triples", "scopes": [[LEARNER]], "memory_category": "knowledge",
            "triples": [{"entity": {"type": "topic", "name": "p_test_jwt"}, "key": key, "value": value}]}


def test_it_says_where_it_listens_and_health_is_the_only_open_route(server):
    assert re.fullmatch(r"Lumente memory listening on http://127\.0\.0\.1:\d+ \(database .*memory\.db; Ctrl-C stops\)\n",
                        server.stdout())
    assert server.port > 0
    with httpx2.Client(base_url=server.url) as anon:
        health = anon.get("/api/v1/health")
        assert health.status_code == 200 and health.json() == {"status": "ok"}
        assert re.fullmatch(r"req_[a-z0-9]{24}", health.headers["x-trace-id"])
        for method, path in (("GET", "/me"), ("GET", "/scopes"), ("POST", "/facts"), ("GET", "/keys"),
                             ("GET", "/entities/topic/x/history/gap")):
            r = anon.request(method, f"/api/v1/{CONTEXT}{path}", json={})
            assert r.status_code == 401, (method, path)
            assert r.headers["www-authenticate"].startswith("Bearer")
            assert r.headers["content-type"] == "application/problem+json"
        wrong = anon.get(f"/api/v1/{CONTEXT}/me", headers={"Authorization": "Bearer " + "x" * 40})
        assert wrong.status_code == 401
    with server.admin() as admin:
        assert admin.get(f"/api/v1/{CONTEXT}/me").json()["principalId"] == "admin"


def test_a_generated_admin_key_is_shown_once_hashed_at_rest_and_retired_by_a_restart(serve):
    server = serve("gen", generate_key=True)
    key = server.key
    assert key.startswith("sp-") and len(re.findall(re.escape(key), server.stderr())) == 1
    assert key not in server.stdout()
    with server.admin() as admin:
        assert admin.post(f"/api/v1/{CONTEXT}/scopes", json={"path": LEARNER}).status_code == 201
        minted = admin.post(f"/api/v1/{CONTEXT}/keys", json={"name": "learner",
                                                             "grants": {"memory:read": [LEARNER + "/*"]}}).json()["key"]
    assert server.stop() == 0
    for path in (server.db, server.db.with_name(server.db.name + "-wal")):
        if path.exists():
            assert key.encode() not in path.read_bytes() and minted.encode() not in path.read_bytes()
    server.start()
    assert server.key != key
    with httpx2.Client(base_url=server.url) as http:
        assert http.get(f"/api/v1/{CONTEXT}/me", headers={"Authorization": f"Bearer {key}"}).status_code == 401
        assert http.get(f"/api/v1/{CONTEXT}/me", headers={"Authorization": f"Bearer {server.key}"}).status_code == 200
        assert http.get(f"/api/v1/{CONTEXT}/me", headers={"Authorization": f"Bearer {minted}"}).status_code == 200


def test_the_request_log_has_one_line_per_request_and_no_secrets_or_names(serve):
    server = serve()
    with server.admin() as admin:
        admin.post(f"/api/v1/{CONTEXT}/scopes", json={"path": LEARNER})
        admin.post(f"/api/v1/{CONTEXT}/facts", json=fact_body("v1"), headers={"Idempotency-Key": "k1"})
        admin.get(f"/api/v1/{CONTEXT}/entities/topic/p_test_jwt", params={"asOf": "2030-01-01T00:00:00Z"})
        admin.get(f"/api/v1/{CONTEXT}/entities/topic/p_test_jwt/history/gap")
        admin.get("/nowhere/at/all")
    assert server.stop() == 0
    log = server.stderr()
    lines = [line for line in log.splitlines() if re.match(r"\d{4}-\d\d-\d\dT", line)]
    assert len(lines) == 5, log
    assert re.search(r" 127\.0\.0\.1 POST /api/v1/lumente/facts 200 [\d.]+ms req_[a-z0-9]{24}$", lines[1])
    assert "GET /api/v1/lumente/entities/{type}/{name}?asOf=… 200" in lines[2]
    assert "GET /api/v1/lumente/entities/{type}/{name}/history/{key} 200" in lines[3]
    assert "GET /nowhere/at/all 404" in lines[4]
    assert server.key not in log and "Bearer" not in log and "Authorization" not in log
    assert "p_test_jwt" not in log and "2030" not in log

    quiet = serve("quiet", extra=("-q",))
    with quiet.admin() as admin:
        admin.get(f"/api/v1/{CONTEXT}/me")
    assert quiet.stop() == 0
    assert not any(re.match(r"\d{4}-\d\d-\d\dT", line) for line in quiet.stderr().splitlines())
    assert "stopped after 1 requests" in quiet.stderr()


def test_loopback_is_quiet_and_anything_else_is_warned_about(serve):
    assert "warning" not in serve("lo").stderr()
    wide = serve("wide", extra=("--host", "0.0.0.0"))
    assert "warning: listening on 0.0.0.0, which other machines can reach" in wide.stderr()
    assert wide.url.startswith("http://0.0.0.0:")
    with httpx2.Client() as http:  # reached over loopback only
        assert http.get(f"http://127.0.0.1:{wide.port}/api/v1/health").status_code == 200


def _can_bind_ipv6_loopback() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def test_ipv6_loopback(serve):
    # Skip only when this machine cannot bind ::1 at all; a server that fails on a
    # machine that can is a failure.
    if not _can_bind_ipv6_loopback():
        pytest.skip("IPv6 loopback cannot be bound on this machine")
    server = serve("v6", extra=("--host", "::1"))
    assert server.url.startswith("http://[::1]:") and "warning" not in server.stderr()
    assert httpx2.get(server.url + "/api/v1/health").status_code == 200


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_a_stop_finishes_the_write_in_flight_closes_the_store_and_exits_0(server, sig):
    with server.admin() as admin:
        assert admin.post(f"/api/v1/{CONTEXT}/scopes", json={"path": LEARNER}).status_code == 201
    idle = httpx2.Client(base_url=server.url)  # a keep-alive connection left idle
    assert idle.get("/api/v1/health").status_code == 200
    blocker = sqlite3.connect(server.db, timeout=30)
    blocker.execute("BEGIN IMMEDIATE")  # the next write waits inside the server
    result: dict = {}

    def write() -> None:
        with server.admin() as admin:
            result["r"] = admin.post(f"/api/v1/{CONTEXT}/facts", json=fact_body("in flight"),
                                     headers={"Idempotency-Key": "flight"})

    writer = threading.Thread(target=write)
    writer.start()
    wait_until_read(server.port, connections=2)  # the idle one, and the write now inside the server
    server.proc.send_signal(sig)
    deadline = time.monotonic() + 5
    while True:  # new connections are refused from now on
        try:
            socket.create_connection(("127.0.0.1", server.port), timeout=0.5).close()
        except (ConnectionRefusedError, ConnectionResetError):
            break
        assert time.monotonic() < deadline, "still accepting after the signal"
        time.sleep(0.05)
    assert server.proc.poll() is None  # still finishing the write in flight
    blocker.rollback()
    blocker.close()
    writer.join(20)
    assert result["r"].status_code == 200 and result["r"].headers["connection"] == "close"
    assert server.proc.wait(20) == 0
    assert "stopped after" in server.stderr() and "Traceback" not in server.stderr()
    con = sqlite3.connect(server.db)
    assert con.execute("SELECT value FROM attribute").fetchall() == [("in flight",)]
    con.close()
    with pytest.raises(httpx2.TransportError):  # the idle connection was closed, not left hanging
        idle.get("/api/v1/health")
    idle.close()


def test_a_second_signal_stops_at_once(server):
    with server.admin() as admin:
        admin.post(f"/api/v1/{CONTEXT}/scopes", json={"path": LEARNER})
    blocker = sqlite3.connect(server.db, timeout=30)
    blocker.execute("BEGIN IMMEDIATE")
    writer = threading.Thread(target=lambda: _quietly(lambda: server.admin().post(
        f"/api/v1/{CONTEXT}/facts", json=fact_body("cut"), headers={"Idempotency-Key": "cut"})))
    writer.start()
    wait_until_read(server.port, connections=1)  # the write is inside the server, waiting for the lock
    server.proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 5
    while "stopping" not in server.stderr():  # the first signal has been taken
        assert time.monotonic() < deadline, server.stderr()
        time.sleep(0.02)
    server.proc.send_signal(signal.SIGINT)
    assert server.proc.wait(5) == 130
    blocker.rollback()
    blocker.close()
    writer.join(10)
    assert "1 connections were cut" in server.stderr()


def _quietly(fn) -> None:
    try:
        fn()
    except httpx2.HTTPError:
        pass


def test_a_port_in_use_is_one_clear_line(serve, tmp_path):
    taken = serve("first")
    r = lumente("memory", "serve", "--port", str(taken.port), "--db", str(tmp_path / "other.db"),
                "--api-key-file", str(taken.key_file))
    assert r.exit_code == 1
    assert f"cannot listen on 127.0.0.1:{taken.port}" in r.stderr and "--port 0" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("content, words", [
    (None, "no such file"), ("", "the file is empty"), ("tiny-key", "shorter than 16"),
    ("two words here and more", "without spaces"),
])
def test_a_bad_key_file_is_refused_without_echoing_it(tmp_path, content, words):
    key_file = tmp_path / "key"
    if content is not None:
        key_file.write_text(content)
    r = lumente("memory", "serve", "--port", "0", "--db", str(tmp_path / "m.db"), "--api-key-file", str(key_file))
    assert r.exit_code == 1 and words in r.stderr and "Traceback" not in r.stderr
    if content:
        assert content not in r.stderr


def test_a_key_file_readable_by_others_is_warned_about(serve):
    port = free_port()
    server = serve("loose", port=port)
    server.key_file.chmod(0o644)
    assert server.stop() == 0
    server.start()
    assert "is readable by other users" in server.stderr() and server.key not in server.stderr()


def test_bad_options_are_usage_errors(tmp_path):
    assert lumente("memory", "serve", "--port", "70000", "--db", str(tmp_path / "m.db")).exit_code == 1
    r = lumente("memory", "serve", "--host", "no such host.invalid", "--port", "0", "--db", str(tmp_path / "m.db"))
    assert r.exit_code == 1 and "cannot resolve" in r.stderr
