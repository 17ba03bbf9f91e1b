"""`lumente memory serve`: the embedded Agent Memory engine over real HTTP.

Built on the standard library (`http.server.ThreadingHTTPServer`, HTTP/1.1
with keep-alive, one thread per connection); docs/serve.md has the
measurements behind that choice and every limit below.

* Every request goes to `MemoryEngine.handle`, the same entry the in-process
  transport uses, so the served engine answers exactly what the embedded one
  does. Errors made here, before the engine sees a request (a malformed
  request line, a body over MAX_BODY, no Content-Length), carry the same
  RFC 7807 + `message` body and an `X-Trace-Id`.
* Bearer keys: the admin key comes from a file or is generated and shown once;
  only SHA-256 hashes are stored (`KeyRing`). `GET /api/v1/health` is open.
* One log line per request on stderr: time, client, method, the route with
  names shown as `{type}`/`{name}`/`{key}`, query keys without values, status,
  duration, trace id. Never a header, never a body.
* Stopping (Ctrl-C or SIGTERM): stop accepting, close idle keep-alive
  connections, let in-flight requests finish (up to DRAIN_TIMEOUT_S), close
  the store, return 0. A second signal stops at once.
"""

from __future__ import annotations

import ipaddress
import logging
import re
import signal
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import parse_qsl

from lumente_cli import __version__
from lumente_cli.errors import LumenteError
from lumente_cli.memory_engine import KeyRing, MemoryEngine
from lumente_cli.memory_engine.bodies import MAX_BODY
from lumente_cli.memory_engine.errors import problem_body
from lumente_cli.memory_engine.ids import trace_id
from lumente_cli.memory_engine.response import PROBLEM_JSON
from lumente_cli.memory_engine.routing import template
from lumente_cli.timeutil import format_time, utc_now

DEFAULT_PORT = 9090  # the self-hosted Agent Memory default (contract §1.1)
IDLE_TIMEOUT_S = 15.0  # a keep-alive connection idle this long, or a client this slow to send, is closed
# From the end of one answer (or the accept) to the last byte of the next request: an idle
# connection, and one that drips its request line, headers or body, gets this long in all.
REQUEST_DEADLINE_S = 15.0
EVICTION_SLACK = 16  # connections being evicted may briefly exceed MAX_CONNECTIONS by this many
DRAIN_TIMEOUT_S = 20.0  # after a stop signal: longer than the store's busy wait (BUSY_TIMEOUT_S)
MAX_CONNECTIONS = 256  # open connections (= handler threads); more get 503 at once
ENGINE_SLOTS = 8  # requests inside the engine at once; more threads there only fight over the GIL
MAX_REQUEST_LINE = 8192  # bytes; longer is 414
MAX_KEY_FILE = 4096
MIN_KEY_LENGTH = 16

_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an HTTP method is a token (RFC 9110 §5.6.2)
_UNPRINTABLE = re.compile(r"[^\x21-\x7e]")


class ServeError(LumenteError):
    """The server cannot start: bad address, port in use, unusable key file or database."""


@dataclass
class ServeOptions:
    db_path: Path
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    api_key: str | None = None  # from --api-key-file; None = generate one
    quiet: bool = False


# ------------------------------------------------------------------ logging


class RequestLog:
    """Writes log lines to one stream, whole lines at a time, from any thread."""

    def __init__(self, stream: TextIO, *, quiet: bool = False) -> None:
        self.stream = stream
        self.quiet = quiet
        self._lock = threading.Lock()

    def line(self, text: str, *, always: bool = False) -> None:
        if self.quiet and not always:
            return
        with self._lock:
            try:
                self.stream.write(text + "\n")
                self.stream.flush()
            except (OSError, ValueError):  # stderr closed: serving goes on
                pass

    def request(self, client: str, method: str, target: str, status: int, ms: float, trace: str) -> None:
        stamp = format_time(utc_now(), milliseconds=True)
        shown = _UNPRINTABLE.sub("?", method)[:16]  # a method is the client's text too
        self.line(f"{stamp} {client} {shown} {loggable_target(target)} {status} {ms:.1f}ms {trace}")


def loggable_target(target: str) -> str:
    """The request target as a log may show it: a matched route as its
    template (`/api/v1/lumente/entities/{type}/{name}`), query keys without
    their values, anything else cut to 120 printable characters."""
    path, _, query = target.partition("?")
    shown = template(path)
    if shown is None:
        shown = _UNPRINTABLE.sub("?", path)
        shown = shown if len(shown) <= 120 else shown[:120] + "…"
    if query:
        keys = [k for k, _ in parse_qsl(query, keep_blank_values=True)]
        shown += "?" + "&".join(f"{_UNPRINTABLE.sub('?', k)[:40]}=…" for k in keys[:8])
    return shown


# ------------------------------------------------------------------ handler


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = f"lumente-memory/{__version__}"
    sys_version = ""
    timeout = IDLE_TIMEOUT_S
    disable_nagle_algorithm = True
    server: MemoryHTTPServer

    def version_string(self) -> str:
        return self.server_version

    def handle_one_request(self) -> None:
        self._started = time.perf_counter()
        self.command, self.path, self.request_version = "", "", "HTTP/1.1"
        try:
            self.raw_requestline = self.rfile.readline(MAX_REQUEST_LINE + 1)
        except OSError:  # idle timeout, reset, or closed by a stop
            self.close_connection = True
            return
        if not self.raw_requestline:
            self.close_connection = True
            return
        self._started = time.perf_counter()
        self._in_engine = False
        try:
            if len(self.raw_requestline) > MAX_REQUEST_LINE:
                self.requestline = ""
                self.send_error(414, f"the request line is longer than {MAX_REQUEST_LINE} bytes")
                return
            if not self.parse_request():  # it has answered the error itself
                return
            if self.headers.defects:
                # A header line without a colon: the stdlib parser would stop there and read the
                # rest (more headers, the body) as a second request.
                self.send_error(400, "a header line is malformed (every header line needs a colon)")
                return
            self._serve()
            self.wfile.flush()
        except OSError:  # the client went away (or timed out, or was cut for being too slow) mid-request
            self.close_connection = True
        finally:
            self.server.end(self.connection, served=self._in_engine)

    def handle_expect_100(self) -> bool:
        if self._content_length_error() is not None:
            return True  # answer the error in _serve instead of inviting the body
        return super().handle_expect_100()

    # the request ------------------------------------------------------------

    def _content_length_error(self) -> tuple[int, str] | None:
        if self.headers.get("Transfer-Encoding") is not None:
            return 411, "send the body with a Content-Length (chunked transfer encoding is not accepted)"
        values = self.headers.get_all("Content-Length") or []
        if not values:
            return None
        text = values[0].strip()
        if len({v.strip() for v in values}) != 1 or not text.isdigit():
            return 400, "Content-Length must be one whole number"
        if int(text) > MAX_BODY:
            return 413, f"the request body is larger than {MAX_BODY} bytes, the limit"
        return None

    def _serve(self) -> None:
        if self.request_version == "HTTP/0.9":
            self.send_error(505, "HTTP/0.9 is not served; send HTTP/1.1 (or 1.0)")
            return
        if not _TOKEN.match(self.command):
            self.send_error(400, "the request method is not a valid HTTP token")
            return
        problem = self._content_length_error()
        if problem is not None:
            self.send_error(*problem)
            return
        length = int((self.headers.get("Content-Length") or "0").strip())
        body = self.rfile.read(length) if length else b""
        if len(body) < length:  # the client stopped sending: nobody to answer
            self.close_connection = True
            return
        target = self.path
        if target[:8].lower().startswith(("http://", "https://")):  # absolute-form (RFC 9112 §3.2.2)
            rest = target.split("://", 1)[1]
            target = rest[rest.find("/"):] if "/" in rest else "/"
        raw_path, _, query_string = target.partition("?")
        query = dict(parse_qsl(query_string, keep_blank_values=True))  # repeated: the last one wins
        headers = dict(self.headers.items())
        # Only now does the request cost the server anything; until here a slow sender was
        # under the request deadline and could be cut or evicted.
        self._in_engine = True
        self.server.begin(self.connection)
        with self.server.slots:
            reply = self.server.engine.handle(self.command, raw_path, query, headers, body)
        self._respond(reply.status, reply.headers, reply.body)

    # the response -------------------------------------------------------------

    def _respond(self, status: int, headers: dict[str, str], body: bytes, *, close: bool = False) -> None:
        if close or self.server.stopping:
            self.close_connection = True
        self.send_response_only(status)
        self.send_header("Server", self.version_string())
        self.send_header("Date", self.date_time_string())
        trace = headers.get("X-Trace-Id") or trace_id()
        for name, value in headers.items():
            if name.lower() not in ("content-length", "connection", "transfer-encoding", "x-trace-id"):
                self.send_header(name, value)
        self.send_header("X-Trace-Id", trace)
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        # Head and body in one write: two small writes meet Nagle and delayed
        # ACK and stall each response on keep-alive connections.
        self._headers_buffer.append(b"\r\n" + (body if self.command != "HEAD" else b""))
        self.flush_headers()
        elapsed = (time.perf_counter() - self._started) * 1000
        self.server.log.request(self.client_address[0], self.command or "-", self.path or "-", status, elapsed, trace)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Errors the HTTP layer finds (stdlib's parse_request calls this too):
        the engine's error body, and the connection is closed."""
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "Error"
        detail = message or phrase
        if code == 431 or "header" in detail.lower():
            detail = f"{detail} (at most 100 header lines of up to 64 KiB)"
        instance = (self.path or "/").split("?", 1)[0] if isinstance(self.path, str) else "/"
        self.request_version = "HTTP/1.1"  # answer with a status line even when the request line was unreadable
        self._respond(code, {"Content-Type": PROBLEM_JSON}, problem_body(code, detail, instance), close=True)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib's signature
        # stdlib messages quote the raw request line: no escape sequence reaches the operator's terminal
        text = re.sub(r"[^\x20-\x7e]", "?", format % args)
        self.server.log.line(f"{self.client_address[0]} {text[:300]}")


# ------------------------------------------------------------------- server


class _Conn:
    __slots__ = ("busy", "since")

    def __init__(self) -> None:
        self.busy = False  # inside the engine, or answering
        self.since = time.monotonic()  # when it last began waiting for a request


class MemoryHTTPServer(ThreadingHTTPServer):
    """A thread per connection, with the bookkeeping a clean stop needs."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 128

    def __init__(self, address: tuple[Any, ...], family: int, engine: MemoryEngine, log: RequestLog) -> None:
        self.address_family = family
        self.engine = engine
        self.log = log
        self.stopping = False
        self.requests = 0
        self.slots = threading.BoundedSemaphore(ENGINE_SLOTS)
        self._lock = threading.Lock()
        self._conns: dict[socket.socket, _Conn] = {}
        self._workers: set[threading.Thread] = set()
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        if self.address_family == socket.AF_INET6:  # [::] serves IPv6 only; say so rather than guess
            self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        super().server_bind()

    # connections --------------------------------------------------------------

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._lock:
            if not self.stopping and len(self._conns) >= MAX_CONNECTIONS:
                self._evict_slowest()
            full = self.stopping or len(self._conns) >= MAX_CONNECTIONS + EVICTION_SLACK
            if not full:
                self._conns[request] = _Conn()
                thread = threading.Thread(target=self._run, args=(request, client_address), daemon=True,
                                          name="memory-serve-conn")
                self._workers.add(thread)
        if full:
            self._turn_away(request)
            return
        thread.start()

    def _run(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception as exc:  # noqa: BLE001 - one line, never a traceback
            self.log.line(f"connection from {client_address[0]} failed: {type(exc).__name__}: {exc}", always=True)
        finally:
            with self._lock:
                self._conns.pop(request, None)
                self._workers.discard(threading.current_thread())
            self.shutdown_request(request)

    def _turn_away(self, request: socket.socket) -> None:
        trace = trace_id()
        body = problem_body(503, "the memory server is at its connection limit or stopping; retry shortly", "/")
        head = (f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: {PROBLEM_JSON}\r\nContent-Length: {len(body)}\r\n"
                f"X-Trace-Id: {trace}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n").encode()
        try:
            request.settimeout(1.0)
            request.sendall(head + body)
        except OSError:
            pass
        self.shutdown_request(request)

    def _evict_slowest(self) -> None:
        """Full: cut the connection that has waited longest without a whole request
        (idle, or still dripping one), so a new client is served. Called with the lock."""
        waiting = [(c.since, sock) for sock, c in self._conns.items() if not c.busy]
        if waiting:
            _, sock = min(waiting, key=lambda pair: pair[0])
            self._conns[sock].busy = True  # not chosen twice while it winds down
            _cut(sock)

    def reap(self) -> int:
        """Cut every connection that has not sent a whole request within the deadline."""
        now = time.monotonic()
        with self._lock:
            late = [sock for sock, c in self._conns.items() if not c.busy and now - c.since > REQUEST_DEADLINE_S]
            for sock in late:
                self._conns[sock].busy = True
        for sock in late:
            _cut(sock)
        return len(late)

    def begin(self, sock: socket.socket) -> None:
        with self._lock:
            conn = self._conns.get(sock)
            if conn is not None:
                conn.busy = True

    def end(self, sock: socket.socket, *, served: bool = True) -> None:
        with self._lock:
            conn = self._conns.get(sock)
            if conn is not None and served:
                conn.busy = False
                conn.since = time.monotonic()
            if served:
                self.requests += 1
        if self.stopping:
            self._close_idle()

    def handle_error(self, request: Any, client_address: Any) -> None:
        self.log.line(f"error serving {client_address[0]}", always=True)

    # stopping -----------------------------------------------------------------

    def _close_idle(self) -> None:
        with self._lock:
            idle = [s for s, c in self._conns.items() if not c.busy]
        for sock in idle:
            try:
                sock.shutdown(socket.SHUT_RD)  # wakes the handler blocked reading the next request
            except OSError:
                pass

    def in_flight(self) -> int:
        with self._lock:
            return len(self._workers)

    def drain(self, timeout: float, force: threading.Event) -> int:
        """Stop accepting, close idle connections, wait for in-flight requests.
        Returns how many connections had to be cut (0 = a clean stop)."""
        self.shutdown()  # serve_forever returns: no more accepts
        self.socket.close()  # new connections are refused from here on
        with self._lock:
            self.stopping = True
        self._close_idle()
        deadline = time.monotonic() + timeout
        while self.in_flight() and time.monotonic() < deadline and not force.is_set():
            with self._lock:
                waiting = next(iter(self._workers), None)
            if waiting is not None:
                waiting.join(0.05)
            self._close_idle()
        cut = self.in_flight()
        if cut:
            with self._lock:
                socks = list(self._conns)
            for sock in socks:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        return cut


def _cut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)  # the handler's blocked read returns at once
    except OSError:
        pass


# ------------------------------------------------------------------- running


def read_key_file(path: Path) -> str:
    """The admin key from a file: the whole content, stripped. Never echoed."""
    try:
        if path.stat().st_size > MAX_KEY_FILE:
            raise ServeError(f"--api-key-file {path}: larger than {MAX_KEY_FILE} bytes; it should hold one key.")
        text = path.read_text("utf-8").strip()
    except FileNotFoundError:
        raise ServeError(f"--api-key-file {path}: no such file.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ServeError(f"--api-key-file {path}: cannot be read ({getattr(exc, 'strerror', None) or exc}).") from None
    if not text:
        raise ServeError(f"--api-key-file {path}: the file is empty.")
    if any(c.isspace() for c in text) or not text.isprintable() or not text.isascii():
        raise ServeError(f"--api-key-file {path}: the key must be one line of printable ASCII without spaces.")
    if len(text) < MIN_KEY_LENGTH:
        raise ServeError(f"--api-key-file {path}: the key is shorter than {MIN_KEY_LENGTH} characters; "
                         "use a long random one (e.g. `openssl rand -hex 32`).")
    return text


def key_file_warning(path: Path) -> str | None:
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if mode & 0o077:
        return f"warning: {path} is readable by other users (mode {mode & 0o777:o}); chmod 600 it."
    return None


def resolve(host: str, port: int) -> tuple[int, tuple[Any, ...], bool]:
    """(address family, socket address, every address is loopback)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise ServeError(f"--host {host!r}: cannot resolve it ({exc}).") from None
    family, _, _, _, address = infos[0]
    loopback = True
    for info in infos:
        try:
            loopback &= ipaddress.ip_address(info[4][0].split("%", 1)[0]).is_loopback
        except ValueError:
            loopback = False
    return family, address, loopback


def url_of(address: tuple[Any, ...]) -> str:
    host, port = address[0], address[1]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serve(options: ServeOptions, *, out: TextIO, err: TextIO,
          on_ready: Callable[[str], None] | None = None, install_signals: bool = True,
          stop: threading.Event | None = None) -> int:
    """Serve until SIGINT/SIGTERM (or `stop` is set). Returns the exit status:
    0 after a clean stop, 1 if requests were still running after
    DRAIN_TIMEOUT_S and were cut, 130 if a second signal cut them."""
    if not 0 <= options.port <= 65535:
        raise ServeError(f"--port {options.port}: use 0 (any free port) to 65535.")
    family, address, loopback = resolve(options.host, options.port)
    log = RequestLog(err, quiet=options.quiet)
    ring = KeyRing(admin_keys=[options.api_key] if options.api_key else [])
    try:
        engine = MemoryEngine(options.db_path, auth=ring)
    except Exception as exc:  # noqa: BLE001 - StoreError, OSError, sqlite3.Error: one line
        raise ServeError(f"cannot open the memory database {options.db_path}: {exc}") from None
    try:
        ring.retire_other_admin_keys()
        generated = None if options.api_key else ring.mint_admin_key(f"serve-{int(time.time())}")
        try:
            server = MemoryHTTPServer(address, family, engine, log)
        except OSError as exc:
            hint = " (pass --port 0 for any free port)" if exc.errno in (98, 48, 10048) else ""
            raise ServeError(f"cannot listen on {options.host}:{options.port}: {exc.strerror or exc}{hint}.") from None
    except BaseException:
        engine.close()
        raise

    engine_log = logging.getLogger("lumente_cli.memory_engine")
    handler = logging.StreamHandler(err)
    handler.setFormatter(logging.Formatter("%(message)s"))
    engine_log.addHandler(handler)
    stop = stop or threading.Event()
    force = threading.Event()
    previous: dict[int, Any] = {}

    def on_signal(signum: int, _frame: Any) -> None:
        if stop.is_set():
            force.set()
        stop.set()

    if install_signals:
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, on_signal)
    url = url_of(server.server_address)
    accept = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                              name="memory-serve-accept", daemon=True)
    try:
        accept.start()
        if generated is not None:
            log.line(f"admin key (shown once; only its hash is stored): {generated}", always=True)
        if not loopback:
            log.line(f"warning: listening on {options.host}, which other machines can reach. This is plain HTTP: "
                     "anyone on the network sees keys and memory in transit. Prefer 127.0.0.1, or put TLS in front.",
                     always=True)
        out.write(f"Lumente memory listening on {url} (database {options.db_path}; Ctrl-C stops)\n")
        out.flush()
        if on_ready is not None:
            on_ready(url)
        while not stop.wait(0.5):
            server.reap()
        log.line("stopping: no new connections; finishing requests in flight…", always=True)
        cut = server.drain(DRAIN_TIMEOUT_S, force)
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
        if not stop.is_set() and accept.is_alive():  # an error above: still stop serving
            server.shutdown()
            server.socket.close()
        engine.close()
        engine_log.removeHandler(handler)
    log.line(f"stopped after {server.requests} requests; the memory database is closed"
             + (f" ({cut} connections were cut)" if cut else "") + ".", always=True)
    if cut:
        return 130 if force.is_set() else 1
    return 0
