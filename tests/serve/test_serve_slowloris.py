"""Slow clients cannot take `memory serve` down: a request must arrive whole within its
deadline, and when every connection is taken the one waiting longest for a request is
cut, so health and real clients (from the same address) are still served."""

from __future__ import annotations

import io
import socket
import threading
import time

import httpx2
import pytest

from lumente_cli.memory_engine import server as srv

LIMIT = 24
DEADLINE = 2.0


@pytest.fixture
def small_server(tmp_path, monkeypatch):
    monkeypatch.setattr(srv, "MAX_CONNECTIONS", LIMIT)
    monkeypatch.setattr(srv, "REQUEST_DEADLINE_S", DEADLINE, raising=False)
    ready: dict[str, str] = {}
    stop = threading.Event()
    options = srv.ServeOptions(db_path=tmp_path / "memory.db", port=0, api_key="k" * 32, quiet=True)
    thread = threading.Thread(target=srv.serve, kwargs={
        "options": options, "out": io.StringIO(), "err": io.StringIO(),
        "on_ready": lambda url: ready.setdefault("url", url), "install_signals": False, "stop": stop,
    }, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while "url" not in ready:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    yield ready["url"]
    stop.set()
    thread.join(30)


def _slow(url: str, stop: threading.Event, cut: list[int]) -> None:
    """A slowloris connection: a header line every 0.3 s, never the end of the request."""
    host, port = url.removeprefix("http://").split(":")
    s = socket.create_connection((host, int(port)))
    s.settimeout(0.5)
    try:
        s.sendall(b"POST /api/v1/lumente/facts HTTP/1.1\r\nHost: x\r\n")
        n = 0
        while not stop.is_set():
            s.sendall(f"X-Slow-{n}: {n}\r\n".encode())
            n += 1
            try:
                if s.recv(1) == b"":
                    cut.append(1)
                    return
            except socket.timeout:
                pass
    except OSError:
        cut.append(1)
    finally:
        s.close()


def test_slow_connections_cannot_starve_health_or_real_clients(small_server):
    stop = threading.Event()
    cut: list[int] = []
    slow = [threading.Thread(target=_slow, args=(small_server, stop, cut), daemon=True) for _ in range(LIMIT + 8)]
    for t in slow:
        t.start()
    time.sleep(0.5)  # every connection slot is taken by a slow one, and more are waiting
    worst = 0.0
    try:
        with httpx2.Client(base_url=small_server, timeout=5.0) as client:
            for _ in range(15):
                started = time.monotonic()
                assert client.get("/api/v1/health").status_code == 200
                r = client.get("/api/v1/lumente/scopes", headers={"Authorization": "Bearer " + "k" * 32})
                assert r.status_code == 200
                worst = max(worst, time.monotonic() - started)
                time.sleep(0.2)
    finally:
        stop.set()
        for t in slow:
            t.join(5)
    assert worst < 1.5, f"a real client waited {worst:.2f} s"
    assert len(cut) >= 8, "slow connections were cut, not left holding the server"


def test_a_request_dripped_past_its_deadline_is_cut(small_server):
    host, port = small_server.removeprefix("http://").split(":")
    s = socket.create_connection((host, int(port)))
    s.settimeout(DEADLINE + 3)
    started = time.monotonic()
    s.sendall(b"GET /api/v1/health HTTP/1.1\r\n")
    try:
        while time.monotonic() - started < DEADLINE + 3:
            s.sendall(b"X-A: b\r\n")
            time.sleep(0.3)
    except OSError:
        pass
    took = time.monotonic() - started
    s.close()
    assert took < DEADLINE + 2, f"the dripping request was allowed {took:.1f} s"
