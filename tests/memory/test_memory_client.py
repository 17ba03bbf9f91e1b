"""The client's own behaviour: retries, deadlines, headers, quoting, error
mapping and secrecy, against scripted transports (contract §1, §8)."""

from __future__ import annotations

import json
import traceback

import httpx2
import pytest

from memhelpers import me, mint_key
from lumente_cli import __version__
from lumente_cli.agent_memory.client import (
    MemoryAuthError,
    MemoryClient,
    MemoryConflict,
    MemoryError,
    MemoryForbidden,
    MemoryRequestError,
    MemoryUnavailable,
    remote_client,
)
from lumente_cli.agent_memory.http import HttpTransport
from lumente_cli.agent_memory.wire import FactsRequest, MintKeyBody, Triple, TripleEntity

KEY = "sk-ctx-TOPSECRET-0123456789"
SCOPE_NODE = {"path": "learner/p/", "createdAt": "2026-03-02T14:00:00Z", "tombstonedAt": None}
FACTS = {"mode": "triples", "sessionId": "session:x", "turnId": "turn:x",
         "extraction": {"turnId": "turn:x", "entities": [], "attributes": [], "relations": [], "instructions": [],
                        "uncertainties": [], "corrections": []}}


def a_fact() -> FactsRequest:
    return FactsRequest(infer="triples", scopes=[["learner/p"]],
                        triples=[Triple(entity=TripleEntity(type="topic", name="p_jwt"), key="gap", value="v")])


class Script:
    """A MockTransport handler that answers from a list and records requests."""

    def __init__(self, *answers) -> None:
        self.answers = list(answers)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        if callable(answer):
            return answer(request)
        return answer


class FakeTime:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def make(script: Script, *, api_key: str | None = KEY, timeout: float = 5.0, **kw) -> tuple[MemoryClient, FakeTime]:
    t = FakeTime()
    http = httpx2.Client(base_url="https://memory.example/base", transport=httpx2.MockTransport(script),
                         timeout=httpx2.Timeout(timeout))
    return MemoryClient(HttpTransport(http), context="study-prod", api_key=api_key, where="memory at https://memory.example",
                        sleep=t.sleep, clock=t.clock, **kw), t


def ok(body, status=200, **headers) -> httpx2.Response:
    return httpx2.Response(status, json=body, headers=headers)


def fail(status: int, body=None, **headers) -> httpx2.Response:
    return httpx2.Response(status, json=body if body is not None else {"message": f"status {status}"}, headers=headers)


# ------------------------------------------------------------------ retries


def test_get_retries_5xx_with_the_reference_backoff(tmp_path):
    script = Script(fail(500), fail(502), fail(503), ok([SCOPE_NODE]))
    client, t = make(script)
    assert [n.path for n in client.list_scopes()] == ["learner/p/"]
    assert len(script.requests) == 4 and t.slept == [0.25, 0.5, 1.0]


def test_gives_up_after_the_retries_with_the_last_error():
    script = Script(fail(500, {"message": "unknown error"}, **{"X-Trace-Id": "req_1"}))
    client, t = make(script)
    with pytest.raises(MemoryUnavailable) as caught:
        me(client)
    assert len(script.requests) == 4 and t.slept == [0.25, 0.5, 1.0]
    err = caught.value
    assert err.status == 500 and err.trace_id == "req_1" and "unknown error" in err.message
    assert "req_1" in err.message and err.where == "memory at https://memory.example"


def test_connection_errors_retry_and_become_unavailable_with_status_0():
    script = Script(httpx2.ConnectError("Connection refused"))
    client, t = make(script, retries=2)
    with pytest.raises(MemoryUnavailable) as caught:
        client.entity("topic", "p_jwt")
    assert len(script.requests) == 3 and t.slept == [0.25, 0.5]
    assert caught.value.status == 0 and "Connection refused" in caught.value.message


def test_timeouts_retry_too():
    script = Script(httpx2.ReadTimeout("slow"), ok({"forgotten": 3}))
    client, _ = make(script)
    assert client.forget_scope("learner/p") == 3


def test_idempotent_writes_retry_with_the_same_key():
    script = Script(fail(500), httpx2.RemoteProtocolError("reset"), ok(FACTS))
    client, _ = make(script)
    client.write_facts(a_fact(), idempotency_key="coach:p:s1:t1:gap")
    assert [r.headers["Idempotency-Key"] for r in script.requests] == ["coach:p:s1:t1:gap"] * 3
    assert len({r.content for r in script.requests}) == 1


def test_scope_writes_reuse_one_generated_key_across_retries():
    script = Script(fail(503), ok(SCOPE_NODE, 201))
    client, _ = make(script)
    client.register_scope("learner/p")
    keys = {r.headers["Idempotency-Key"] for r in script.requests}
    assert len(keys) == 1 and len(script.requests) == 2


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 422, 429])
def test_4xx_never_retries(status):
    script = Script(fail(status))
    client, t = make(script)
    with pytest.raises(MemoryError):
        client.write_facts(a_fact(), idempotency_key="k")
    assert len(script.requests) == 1 and t.slept == []


def test_minting_a_key_never_retries():
    script = Script(fail(500))
    client, t = make(script)
    with pytest.raises(MemoryUnavailable):
        mint_key(client, MintKeyBody(name="x"))
    assert len(script.requests) == 1 and t.slept == []


# ----------------------------------------------------------------- deadline


def test_each_attempt_gets_at_most_the_time_left():
    seen = []

    def answer(request):
        seen.append(request.extensions["timeout"])
        return ok([SCOPE_NODE])

    client, t = make(Script(answer), timeout=5.0)
    client.list_scopes(deadline=t.now + 1.5)
    assert seen[-1] == {"connect": 1.5, "read": 1.5, "write": 1.5, "pool": 1.5}
    client.list_scopes(deadline=t.now + 60)
    assert seen[-1] == {"connect": 5.0, "read": 5.0, "write": 5.0, "pool": 5.0}
    client.list_scopes()
    assert seen[-1]["read"] == 5.0


def test_retries_stop_when_the_next_backoff_would_pass_the_deadline():
    script = Script(fail(500))
    client, t = make(script)
    with pytest.raises(MemoryUnavailable):
        me(client, deadline=t.now + 0.6)  # 0.25 fits, then 0.5 would end past the deadline
    assert len(script.requests) == 2 and t.slept == [0.25]


def test_a_spent_deadline_sends_nothing():
    script = Script(ok([SCOPE_NODE]))
    client, t = make(script)
    with pytest.raises(MemoryUnavailable) as caught:
        client.list_scopes(deadline=t.now - 0.01)
    assert script.requests == [] and "time allowed ran out" in caught.value.message


# ------------------------------------------------------ headers and quoting


def test_headers_quoting_and_body():
    script = Script(ok(FACTS))
    client, _ = make(script)
    client.write_facts(a_fact(), idempotency_key="k-1")
    [req] = script.requests
    assert req.url.raw_path == b"/base/api/v1/study-prod/facts"
    assert req.headers["Authorization"] == f"Bearer {KEY}"
    assert req.headers["Accept"] == "application/json"
    assert req.headers["User-Agent"] == f"lumente/{__version__}"
    assert req.headers["Content-Type"] == "application/json"
    sent = json.loads(req.content)
    assert sent == {"infer": "triples", "scopes": [["learner/p"]], "labels": [],
                    "triples": [{"entity": {"type": "topic", "name": "p_jwt"}, "key": "gap", "value": "v"}]}


def test_every_path_parameter_is_quoted_with_no_safe_characters():
    script = Script(ok({"history": []}))
    client, _ = make(script)
    client.history("to pic", "a/b?c", "k%y")
    path = script.requests[0].url.raw_path
    assert path == b"/base/api/v1/study-prod/entities/to%20pic/a%2Fb%3Fc/history/k%25y"


def test_as_of_is_a_camel_case_query_parameter():
    script = Script(ok({"entity": {"id": "e", "name": "n", "entityType": "topic", "memoryCategory": "knowledge",
                                   "importance": 1, "createdAt": "2026-03-01T00:00:00Z", "updatedAt": "2026-03-01T00:00:00Z"},
                        "attributes": [], "relations": []}))
    client, _ = make(script)
    client.entity("topic", "n", as_of="2026-03-01T00:00:00Z")
    assert script.requests[0].url.params["asOf"] == "2026-03-01T00:00:00Z"


def test_no_authorization_without_a_key_and_never_on_health():
    script = Script(ok({"status": "ok"}))
    client, _ = make(script)
    assert client.health() is True
    assert "Authorization" not in script.requests[0].headers
    assert script.requests[0].url.raw_path == b"/base/api/v1/health"
    anonymous, _ = make(script, api_key=None)
    anonymous.health()
    assert all("Authorization" not in r.headers for r in script.requests)


def test_health_is_false_when_down():
    client, _ = make(Script(httpx2.ConnectError("refused")))
    assert client.health() is False
    client, _ = make(Script(fail(404)))
    assert client.health() is False


def test_check_health_says_whether_anything_answered():
    client, _ = make(Script(httpx2.ConnectError("refused")))
    with pytest.raises(MemoryUnavailable) as down:
        client.check_health()
    assert down.value.status == 0 and "refused" in down.value.reason
    assert down.value.message == f"memory at https://memory.example: {down.value.reason}"
    client, _ = make(Script(fail(404, {"message": "no such route"})))
    with pytest.raises(MemoryRequestError) as wrong:
        client.check_health()
    assert wrong.value.status == 404 and wrong.value.reason == "health check failed with 404 Not Found: no such route"
    client, _ = make(Script(ok({"status": "ok"})))
    client.check_health()


# ------------------------------------------------------------ error mapping


@pytest.mark.parametrize(
    ("status", "cls"),
    [(400, MemoryRequestError), (401, MemoryAuthError), (403, MemoryForbidden), (404, MemoryRequestError),
     (409, MemoryConflict), (422, MemoryRequestError), (429, MemoryRequestError)],
)
def test_statuses_map_to_exceptions(status, cls):
    client, _ = make(Script(fail(status)))
    with pytest.raises(cls) as caught:
        client.write_facts(a_fact(), idempotency_key="k")
    assert caught.value.status == status and isinstance(caught.value, MemoryError)


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ({"message": "scope outside grant"}, "scope outside grant"),
        ({"type": "https://spectron.dev/errors/validation-error", "title": "Validation error", "status": 400,
          "detail": "k must be <= 50", "instance": "/api/v1/x/query"}, "k must be <= 50"),
        ({"title": "Validation error"}, "Validation error"),
        ({"error": "bad thing"}, "bad thing"),
        ({"error": {"message": "nested"}}, "nested"),
    ],
)
def test_both_error_body_shapes_are_read(body, shown):
    client, _ = make(Script(fail(400, body)))
    with pytest.raises(MemoryRequestError) as caught:
        me(client)
    assert shown in caught.value.message


def test_raw_error_text_is_shown_truncated():
    client, _ = make(Script(httpx2.Response(400, text="<html>" + "x" * 1000)))
    with pytest.raises(MemoryRequestError) as caught:
        me(client)
    assert "<html>" in caught.value.message and len(caught.value.message) < 400


def test_404_on_entity_is_none_but_elsewhere_an_error():
    client, _ = make(Script(fail(404)))
    assert client.entity("topic", "nobody") is None
    with pytest.raises(MemoryRequestError):
        me(client)


@pytest.mark.parametrize(
    ("response", "call"),
    [
        (httpx2.Response(200, text="not json at all"), lambda c: me(c)),
        (httpx2.Response(200, json={"unexpected": True}), lambda c: me(c)),
        (httpx2.Response(200, json=[{"path": 1}]), lambda c: c.list_scopes()),
        (httpx2.Response(200, json={"history": [{"id": "x"}]}), lambda c: c.history("topic", "n", "k")),
        (httpx2.Response(200, json={"forgotten": -1}), lambda c: c.forget_scope("x")),
    ],
)
def test_malformed_responses_are_unavailable(response, call):
    client, _ = make(Script(response))
    with pytest.raises(MemoryUnavailable) as caught:
        call(client)
    assert "malformed response" in caught.value.message


def test_redirects_are_not_followed():
    client, _ = make(Script(httpx2.Response(302, headers={"Location": "http://elsewhere/"})))
    with pytest.raises(MemoryRequestError) as caught:
        me(client)
    assert "redirect" in caught.value.message


def test_history_is_sorted_by_created_at_whatever_the_server_order():
    rows = [{"id": f"attribute:{i}", "entity": "e", "key": "k", "value": str(i), "memoryCategory": "knowledge",
             "importance": 1.0, "createdAt": at}
            for i, at in enumerate(["2026-03-02T10:00:00Z", "2026-03-01T10:00:00+00:00", "2026-03-03T00:00:00.5Z"])]
    client, _ = make(Script(ok({"history": rows})))
    assert [r.value for r in client.history("topic", "n", "k")] == ["1", "0", "2"]


# ------------------------------------------------------------------ secrecy


def _all_text(exc: BaseException) -> str:
    return "\n".join([str(exc), repr(exc), getattr(exc, "message", ""), getattr(exc, "where", ""),
                      "".join(traceback.format_exception(exc))])


@pytest.mark.parametrize(
    "answer",
    [
        fail(401, {"message": f"invalid key {KEY}"}),
        fail(403, {"detail": f"Authorization: Bearer {KEY} lacks memory:forget"}),
        fail(500, {"message": f"echo {KEY}"}),
        httpx2.Response(400, text=f"raw echo of Bearer {KEY}"),
        httpx2.ConnectError(f"could not connect with {KEY}"),
        httpx2.Response(200, text=f"garbage {KEY}"),
    ],
)
def test_the_api_key_never_appears_in_any_exception_text(answer):
    client, _ = make(Script(answer))
    with pytest.raises(MemoryError) as caught:
        client.forget_scope("learner/p")
    text = _all_text(caught.value)
    assert KEY not in text and "TOPSECRET" not in text
    assert KEY not in repr(client)


def test_remote_client_where_hides_credentials_in_the_url():
    script = Script(httpx2.ConnectError("nope"))
    client = remote_client("https://user:pw@memory.example:8443/base/?token=abc", context="ctx", api_key=KEY,
                           transport=httpx2.MockTransport(script))
    assert client.where == "memory at https://memory.example:8443/base"
    with pytest.raises(MemoryUnavailable) as caught:
        me(client, deadline=0)  # monotonic() is far past 0: fails fast without sending
    assert "pw" not in caught.value.message and "token" not in caught.value.message
    client.close()


def test_remote_client_builds_urls_under_the_base_path():
    script = Script(ok([SCOPE_NODE]))
    client = remote_client("http://127.0.0.1:9090/", context="my ctx", api_key=None,
                           transport=httpx2.MockTransport(script))
    client.list_scopes()
    assert str(script.requests[0].url) == "http://127.0.0.1:9090/api/v1/my%20ctx/scopes"
    client.close()


@pytest.mark.parametrize("stamp", ["yesterday", "t", "2026-13-40T99:00:00Z", ""])
def test_a_timestamp_that_is_not_one_is_a_malformed_response(stamp):
    script = Script(ok({"entity": {"id": "e", "name": "n", "entityType": "topic", "memoryCategory": "knowledge",
                                   "importance": 1, "createdAt": stamp, "updatedAt": "2026-03-01T00:00:00Z"},
                        "attributes": [], "relations": []}))
    client, _ = make(script)
    with pytest.raises(MemoryUnavailable) as caught:
        client.entity("topic", "n")
    assert "malformed response" in caught.value.message and "createdAt" in caught.value.message
