"""Memory servers that misbehave on purpose, on loopback: one that drips its answer a
byte at a time, one whose answers carry terminal escapes and bad values."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server:
    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> _Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def dripping(byte_every_s: float = 0.5, length: int = 1000) -> _Server:
    """Answers every request with headers at once, then a body one byte at a time."""

    class Drip(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _any(self) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            if n:
                self.rfile.read(n)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(length))
            self.end_headers()
            try:
                for _ in range(length):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(byte_every_s)
            except OSError:
                pass

        do_GET = do_POST = do_DELETE = _any  # noqa: N815 - http.server's naming

    return _Server(Drip)


def scripted(reply: Callable[[str, str, dict[str, Any] | None], tuple[int, Any]]) -> _Server:
    """Answers each request with whatever `reply(method, path, body)` returns, as JSON."""

    class Scripted(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _any(self) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
            body = json.loads(raw) if raw else None
            status, data = reply(self.command, self.path, body)
            out = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        do_GET = do_POST = do_DELETE = _any  # noqa: N815 - http.server's naming

    return _Server(Scripted)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
