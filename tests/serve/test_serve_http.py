"""Bad input to the served engine: each gets its documented status and an
error body with the RFC 7807 fields, `message` and an X-Trace-Id, and the
server keeps serving (a health check after each). Limits: docs/serve.md."""

from __future__ import annotations

import json
import re
import socket

import httpx2
import pytest
from servehelpers import CONTEXT

from lumente_cli.memory_engine.bodies import MAX_BODY

FACTS = f"/api/v1/{CONTEXT}/facts"


def good_body(**extra) -> dict:
    return {"infer": "triples", "scopes": [["learner/p_x"]],
            "triples": [{"entity": {"type": "topic", "name": "p_x_jwt"}, "key": "gap", "value": "v"}], **extra}


def raw_exchange(server, data: bytes, *, read_timeout: float = 10.0) -> tuple[int, dict[str, str], bytes]:
    """Send bytes as they are; read one response (the server closes after an error)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=read_timeout) as sock:
        sock.sendall(data)
        chunks = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            chunks += chunk
            head, sep, rest = chunks.partition(b"\r\n\r\n")
            if sep:
                length = re.search(rb"(?i)content-length: (\d+)", head)
                if length and len(rest) >= int(length.group(1)):
                    break
    head, _, body = chunks.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return status, headers, body


def check_problem(status: int, headers, body: bytes, expected: int) -> dict:
    assert status == expected, body
    assert headers["content-type"] == "application/problem+json"
    assert re.fullmatch(r"req_[a-z0-9]{24}", headers["x-trace-id"])
    data = json.loads(body)
    assert set(data) >= {"type", "title", "status", "detail", "instance", "message"}
    assert data["status"] == expected and data["message"] == data["detail"] and data["detail"]
    return data


def still_serving(server) -> None:
    assert httpx2.get(server.url + "/api/v1/health", timeout=5).status_code == 200


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One server for the whole module: bad input must not hurt it."""
    from servehelpers import Served

    server = Served(tmp_path_factory.mktemp("bad-input"))
    with server.admin() as admin:
        assert admin.post(f"/api/v1/{CONTEXT}/scopes", json={"path": "learner/p_x"}).status_code == 201
    yield server
    server.kill()


@pytest.fixture
def admin(shared):
    with shared.admin() as client:
        yield client
    still_serving(shared)


@pytest.mark.parametrize("body, status, words", [
    (b"{not json", 400, "not valid JSON"),
    (b"\xff\xfe\x00", 400, "not valid JSON"),
    (b"", 400, "empty"),
    (b"[1, 2]", 400, "must be a JSON object"),
    (json.dumps(good_body(infer=5)).encode(), 400, "infer"),
    (json.dumps(good_body(triples="gap")).encode(), 400, "triples"),
    (json.dumps(good_body(surprise=True)).encode(), 400, "unknown field 'surprise'"),
    (json.dumps({**good_body(), "triples": [{"entity": {"type": "topic", "name": "p_x_jwt"}, "key": "gap",
                                             "value": "v", "confidence": 0.9}]}).encode(), 400,
     "unknown field 'triples[0].confidence'"),
    (json.dumps(good_body(memory_category="forever")).encode(), 400, "memory_category"),
    (json.dumps({**good_body(), "triples": [{"entity": {"type": "topic", "name": "../../etc"}, "key": "gap",
                                             "value": "v"}]}).encode(), 400, "not a valid entity name"),
], ids=["bad-json", "not-utf8", "empty", "array", "infer-type", "triples-type", "unknown-field",
        "unknown-nested-field", "bad-enum", "traversal-in-name"])
def test_bad_bodies_are_400_naming_the_problem(admin, body, status, words):
    r = admin.post(FACTS, content=body, headers={"Content-Type": "application/json", "Idempotency-Key": "b"})
    data = check_problem(r.status_code, r.headers, r.content, status)
    assert words in data["detail"], data
    assert data["instance"] == FACTS


def test_a_body_over_the_limit_is_413_and_the_server_goes_on(shared, admin):
    big = b'{"pad": "' + b"x" * (MAX_BODY + 10) + b'"}'
    r = admin.post(FACTS, content=big, headers={"Content-Type": "application/json"})
    data = check_problem(r.status_code, r.headers, r.content, 413)
    assert str(MAX_BODY) in data["detail"] and r.headers["connection"] == "close"
    # a client that only announces 10 GB gets the same answer at once, nothing is read
    status, headers, body = raw_exchange(shared, (
        f"POST {FACTS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {shared.key}\r\n"
        "Content-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n{").encode())
    check_problem(status, headers, body, 413)
    # and with Expect: 100-continue the body is refused before it is sent
    status, headers, body = raw_exchange(shared, (
        f"POST {FACTS} HTTP/1.1\r\nHost: x\r\nContent-Length: {MAX_BODY + 1}\r\nExpect: 100-continue\r\n\r\n").encode())
    check_problem(status, headers, body, 413)
    assert b"100 Continue" not in body
    # exactly at the limit is fine as far as size goes (then it is judged as JSON)
    r = admin.post(FACTS, content=b" " * (MAX_BODY - 2) + b"{}", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "payload" not in r.json()["type"]


@pytest.mark.parametrize("method, path, status", [
    ("GET", f"/api/v1/{CONTEXT}/entities/topic/..%2F..%2Fetc%2Fpasswd", 404),
    ("GET", f"/api/v1/{CONTEXT}/entities/..%2F../p_x_jwt", 404),
    ("GET", "/api/v1/..%2F../health", 422),
    ("GET", "/api/v1/%2E%2E/%2E%2E/etc/passwd", 422),
    ("GET", f"/api/v1/{CONTEXT}/entities/topic/p_x_jwt/history/..%2Fgap/..", 404),
    ("GET", "/api/v2/lumente/me", 404),
    ("GET", f"/api/v1/{CONTEXT}/chat", 404),
    ("GET", "/", 404),
    ("GET", f"/api/v1/{'c' * 65}/me", 422),
    ("DELETE", FACTS, 405),
    ("PUT", f"/api/v1/{CONTEXT}/scopes", 405),
    ("BREW", FACTS, 405),
    ("POST", "/api/v1/health", 405),
])
def test_bad_paths_and_methods(admin, method, path, status):
    r = admin.request(method, path)
    check_problem(r.status_code, r.headers, r.content, status)
    if status == 405:
        assert r.headers["allow"]


def test_traversal_in_a_history_name_reads_nothing(admin):
    r = admin.get(f"/api/v1/{CONTEXT}/entities/topic/..%2F..%2Fp_x_jwt/history/gap")
    assert r.status_code == 200 and r.json() == {"history": []}


@pytest.mark.parametrize("request_bytes, status", [
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET /api/v1/health HTTP/2.0\r\nHost: x\r\n\r\n", 505),
    (b"GET /api/v1/health SPDY/3\r\nHost: x\r\n\r\n", 400),
    (b"GE(T /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
    (b"GET /api/v1/health HTTP/1.1\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(120)) + b"\r\n", 431),
    (b"GET /api/v1/health HTTP/1.1\r\nX-Big: " + b"v" * 70000 + b"\r\n\r\n", 431),
    (b"POST " + FACTS.encode() + b" HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 411),
    (b"POST " + FACTS.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400),
    (b"POST " + FACTS.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 400),
    (b"GET /api/v1/\xff\xfe/me HTTP/1.1\r\nHost: x\r\n\r\n", 422),
    (b"GET /api/v1/health\r\n\r\n", 505),
    (b"GET /api/v1/%ff%fe/me HTTP/1.1\r\nHost: x\r\n\r\n", 400),
], ids=["garbage", "http2", "bad-version", "bad-method-token", "long-line", "many-headers", "huge-header",
        "chunked", "negative-length", "two-lengths", "raw-non-ascii", "http-0.9", "non-utf8-path"])
def test_malformed_http_gets_a_problem_body_and_the_server_goes_on(shared, request_bytes, status):
    got, headers, body = raw_exchange(shared, request_bytes)
    check_problem(got, headers, body, status)
    still_serving(shared)


def test_absolute_form_and_head_and_keep_alive(shared):
    status, headers, body = raw_exchange(shared, f"GET {shared.url}/api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert status == 200 and json.loads(body) == {"status": "ok"}
    with socket.create_connection(("127.0.0.1", shared.port), timeout=5) as sock:
        sock.sendall(b"HEAD /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while data.count(b"HTTP/1.1 200") < 2 or not data.endswith(b'{"status":"ok"}'):
            data += sock.recv(4096)
    first, second = data.split(b"HTTP/1.1 200")[1:]
    assert b"Content-Length: 15" in first and b'{"status"' not in first  # HEAD: headers only
    assert second.endswith(b'{"status":"ok"}')  # the same connection served the next request


def test_a_client_that_stops_sending_mid_body_does_not_stop_the_server(shared):
    with socket.create_connection(("127.0.0.1", shared.port), timeout=5) as sock:
        sock.sendall(f"POST {FACTS} HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{{\"infer\"".encode())
    still_serving(shared)
    with httpx2.Client(base_url=shared.url, headers={"Authorization": f"Bearer {shared.key}"}) as admin:
        assert admin.post(FACTS, json=good_body(), headers={"Idempotency-Key": "after"}).status_code == 200


def _raw_exchange(url: str, data: bytes, wait: float = 2.0) -> bytes:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=wait) as s:
        s.sendall(data)
        chunks = []
        try:
            while chunk := s.recv(65536):
                chunks.append(chunk)
        except OSError:
            pass
    return b"".join(chunks)


def test_a_header_line_without_a_colon_is_400_and_nothing_after_it_runs(shared):
    body = b"GET /api/v1/health HTTP/1.1\r\n\r\n"  # would be smuggled as a second request
    data = (b"POST /api/v1/lumente/facts HTTP/1.1\r\nHost: x\r\nthis line has no colon\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    reply = _raw_exchange(shared.url, data)
    assert reply.startswith(b"HTTP/1.1 400") and reply.count(b"HTTP/1.1 ") == 1
    still_serving(shared)


def test_escape_sequences_in_a_request_line_never_reach_the_log(shared):
    _raw_exchange(shared.url, b"G\x1b]0;pwned\x07ET\x1b[2J /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
    _raw_exchange(shared.url, b"\x1b[31mBAD\x1b[0m\r\n\r\n")
    still_serving(shared)
    log = shared.stderr()
    assert "\x1b" not in log and "\x07" not in log


@pytest.mark.parametrize("body, words", [
    (b'{"infer":"triples","scopes":[["learner/p_x"]],"triples":[{"entity":{"type":"topic","name":"e"},'
     b'"key":"k","value":"\\ud800"}]}', "surrogate"),
    (b'{"infer":"triples","x":' + b"[" * 5000 + b"]" * 5000 + b"}", "nests too deeply"),
    (json.dumps(good_body(observed_at="0001-01-01T00:00:00+14:00")).encode(), "observed_at"),
    (json.dumps(good_body(triples=[{"entity": {"type": "topic", "name": "e"}, "key": f"k{i}", "value": "v"}
                                   for i in range(101)])).encode(), "at most 100 triples"),
])
def test_hostile_bodies_are_400_not_500(admin, body, words):
    r = admin.post(f"/api/v1/{CONTEXT}/facts", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    assert words in r.json()["detail"]


def test_a_huge_ttl_is_400_not_500(admin):
    r = admin.post(f"/api/v1/{CONTEXT}/keys", json={"name": "forever"}, params={"ttlSeconds": "9" * 20})
    assert r.status_code == 400 and "ttlSeconds" in r.json()["detail"]
    r = admin.get(f"/api/v1/{CONTEXT}/entities/topic/e", params={"asOf": "0001-01-01T00:00:00+14:00"})
    assert r.status_code == 400 and "asOf" in r.json()["detail"]
