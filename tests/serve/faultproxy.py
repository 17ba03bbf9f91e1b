"""A real loopback HTTP proxy in front of the real served engine, which a test
can tell to fail. Lumente talks to the proxy exactly as it would to the
server; nothing of Lumente's is mocked.

Rules match a method and a path pattern, for the next `times` requests (or
for every one), and act:

* "status":  answer `status` (500, 409, …) with an RFC 7807 body; not forwarded
* "garble":  answer 200 with a body that is not JSON; not forwarded
* "garble_after": forward (the write lands), then answer 200 with garbage
* "stall":   hold the request until `release` is set or `stall_s` passes,
             then forward it (a late arrival) and answer if the client is still there
* "hold":    hold until `release`, then forward
* "forward_then_drop": forward (the write lands), wait for `release`, then
             cut the connection without an answer (as a server killed before replying)
* "drop":    cut the connection at once, unanswered
* "rewrite": forward, then answer with `rewrite(body)` instead of the server's body
             (a hostile or broken server: escapes in ids, malformed timestamps)

When the upstream server is down (refused, reset, killed mid-request) the
proxy cuts the client's connection unanswered, as a dead server would.
Every request is recorded in `seen` as (method, path, what happened, status,
whether the answer was an idempotency replay).
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"}


@dataclass
class Rule:
    action: str
    method: str | None = None
    path: str | None = None  # a regular expression, searched in the path
    times: int | None = None  # None: every matching request
    status: int = 500
    stall_s: float = 10.0
    arrived: threading.Event = field(default_factory=threading.Event)
    forwarded: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    rewrite: Callable[[bytes], bytes] | None = None
    hits: int = 0

    def matches(self, method: str, path: str) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.method is not None and method != self.method:
            return False
        return self.path is None or re.search(self.path, path) is not None


class _Upstream(Exception):
    """The upstream server is not there (refused, reset, died mid-request)."""


class FaultProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.rules: list[Rule] = []
        self.seen: list[tuple[str, str, str, int, bool]] = []
        self.lock = threading.Lock()
        self.captured: list[bytes] = []
        self.in_flight = 0
        proxy = self

        class Handler(_Handler):
            owner = proxy

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def fault(self, action: str, **kwargs) -> Rule:
        rule = Rule(action, **kwargs)
        with self.lock:
            self.rules.append(rule)
        return rule

    def clear(self) -> None:
        with self.lock:
            rules, self.rules = self.rules, []
        for rule in rules:
            rule.release.set()

    def take(self, method: str, path: str) -> Rule | None:
        with self.lock:
            for rule in self.rules:
                if rule.matches(method, path):
                    rule.hits += 1
                    return rule
        return None

    def record(self, method: str, path: str, what: str, status: int = 0, replayed: bool = False) -> None:
        with self.lock:
            self.seen.append((method, path, what, status, replayed))

    def wait_idle(self, timeout: float = 20.0) -> None:
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if self.in_flight == 0:
                    return
            time.sleep(0.02)
        raise AssertionError("requests still held in the proxy")

    def close(self) -> None:
        self.clear()
        self.server.shutdown()
        self.server.server_close()

    # forwarding ------------------------------------------------------------------

    def forward(self, method: str, target: str, headers: list[tuple[str, str]], body: bytes
                ) -> tuple[int, list[tuple[str, str]], bytes]:
        parts = urlsplit(self.upstream)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
            for name, value in headers:
                if name.lower() not in HOP:
                    conn.putheader(name, value)
            conn.endheaders(body or None)
            resp = conn.getresponse()
            data = resp.read()
            return resp.status, [(k, v) for k, v in resp.getheaders() if k.lower() not in HOP], data
        except (OSError, http.client.HTTPException) as exc:
            raise _Upstream(str(exc)) from None
        finally:
            conn.close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else each answer waits ~40 ms for a delayed ACK
    owner: FaultProxy

    def log_message(self, *args) -> None:  # quiet
        pass

    def _any(self) -> None:
        proxy = self.owner
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        method, target = self.command, self.path
        path = target.split("?", 1)[0]
        headers = list(self.headers.items())
        with proxy.lock:  # every byte that went towards the server, for the privacy checks
            proxy.captured.append(f"{method} {target}\n".encode() + b"".join(
                f"{k}: {v}\n".encode() for k, v in headers) + b"\n" + body)
        rule = proxy.take(method, path)
        with proxy.lock:
            proxy.in_flight += 1
        try:
            self._act(proxy, rule, method, target, path, headers, body)
        finally:
            with proxy.lock:
                proxy.in_flight -= 1

    def _act(self, proxy, rule, method, target, path, headers, body) -> None:
        action = rule.action if rule else "forward"
        if rule:
            rule.arrived.set()
        if action == "status":
            detail = {409: "a request with this Idempotency-Key is still being processed"}.get(
                rule.status, "unknown error")
            payload = json.dumps({"type": "about:blank", "title": "injected", "status": rule.status,
                                  "detail": detail, "message": detail}).encode()
            self._reply(rule.status, [("Content-Type", "application/problem+json"),
                                      ("X-Trace-Id", "req_injected")], payload)
            proxy.record(method, path, action, rule.status)
            return
        if action == "garble":
            self._reply(200, [("Content-Type", "application/json")], b'{"history": [{"id": ')
            proxy.record(method, path, action, 200)
            return
        if action == "drop":
            proxy.record(method, path, action)
            self._drop()
            return
        if action in ("stall", "hold"):
            rule.release.wait(rule.stall_s if action == "stall" else 60)
        try:
            status, out_headers, data = proxy.forward(method, target, headers, body)
        except _Upstream:
            proxy.record(method, path, f"{action}: upstream down")
            self._drop()
            return
        replayed = any(k.lower() == "idempotency-replayed" for k, _ in out_headers)
        if rule:
            rule.forwarded.set()
        if action == "forward_then_drop":
            proxy.record(method, path, action, status, replayed)
            rule.release.wait(60)
            self._drop()
            return
        if action == "garble_after":
            proxy.record(method, path, action, status, replayed)
            self._reply(200, [("Content-Type", "application/json")], b"{not json")
            return
        if action == "rewrite" and rule.rewrite is not None:
            data = rule.rewrite(data)
        proxy.record(method, path, action, status, replayed)
        try:
            self._reply(status, out_headers, data)
        except OSError:  # the client gave up waiting (a stall)
            self.close_connection = True

    def _reply(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self.send_response_only(status)
        for name, value in headers:
            if name.lower() not in ("content-length", "date", "server"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self._headers_buffer.append(b"\r\n" + body)  # head and body in one write
        self.flush_headers()

    def _drop(self) -> None:
        """Close with a reset and no answer, as a process that died."""
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        self.close_connection = True
        try:
            self.connection.close()
        except OSError:
            pass

    do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = do_HEAD = _any  # noqa: N815 - http.server's naming
