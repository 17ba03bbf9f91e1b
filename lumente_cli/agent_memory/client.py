"""One Agent Memory client for every backend: the remote service, the served
engine, and the embedded engine. Requests go through a transport
(`agent_memory/transport.py`): HTTP for a service, a direct call for the
engine in this process (the memory package's backend wires that up, so this
protocol never imports the engine).

Behaviour (contract §1, that is docs/spec/agent-memory-contract.md; "contract §n"
cites it throughout the memory wings):
* Headers: `Accept: application/json`, `User-Agent: lumente/<version>`,
  `Authorization: Bearer …` only when there is an API key (never on health),
  and an `Idempotency-Key` on every POST (the caller's key for `/facts`, a
  fresh random one per call elsewhere, reused across that call's retries).
* Every path parameter is URL-quoted with no safe characters (`/` → `%2F`).
* Retries (§1.5): GETs and the idempotent writes (`/facts` with its key,
  scope registration, `scopes/forget`) retry on connection errors and any
  status ≥ 500, sleeping `backoff` (0.25, 0.5, 1.0 s) between attempts, at
  most `retries` times. 4xx never retry; minting a key never retries.
* `deadline` is an absolute `clock()` value. Each attempt is given the time
  left (over HTTP: each timeout is the smaller of the HTTP client's and the
  time left), and no retry starts if its backoff would end past the deadline.
* Every body is validated with the wire models; one that is not JSON or does
  not fit is `MemoryUnavailable("malformed response …")`.
* Messages read the error body's `detail`, `message`, `title`, `error`, else
  the raw text; they name the trace id, and never contain the API key.
"""

from __future__ import annotations

import functools
import json
import re
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote, urlsplit, urlunsplit

from pydantic import BaseModel, TypeAdapter, ValidationError

from lumente_cli import __version__
from lumente_cli.agent_memory import wire  # each model is loaded on first use, here at call time
from lumente_cli.agent_memory.transport import BadExchange, NoAnswer, OutOfTime, Reply, Transport, header, reason_phrase
from lumente_cli.timeutil import parse_stamp

if TYPE_CHECKING:
    import httpx2

    from lumente_cli.agent_memory.wire import (
        AttributeDetail,
        EntityDetail,
        EntityResponse,
        FactsRequest,
        FactsResponse,
        ScopeNode,
    )

__all__ = [
    "MemoryAuthError", "MemoryClient", "MemoryConflict", "MemoryError", "MemoryForbidden",
    "MemoryRequestError", "MemoryUnavailable", "remote_client",
]

M = TypeVar("M", bound=BaseModel)
_BEARER = re.compile(r"(?i)(bearer\s+)\S+")
_RAW_TEXT_MAX = 200
# Each attempt's limit on a remote service (a session's memory budgets cut it shorter).
REMOTE_TIMEOUT_S = 5.0


class MemoryError(Exception):  # noqa: A001 - the name other modules import
    """A memory call failed. `message` is fit for the user and never holds the
    API key; `status` is the HTTP status (0 = no response)."""

    def __init__(self, message: str, *, status: int = 0, trace_id: str | None = None, where: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.trace_id = trace_id
        self.where = where

    def __str__(self) -> str:
        return self.message

    @property
    def reason(self) -> str:
        """The message without its leading `where: `, for a caller that names the place itself."""
        return self.message.removeprefix(f"{self.where}: ") if self.where else self.message


class MemoryUnavailable(MemoryError):
    """No usable answer: connection refused/reset, timeout, 5xx after retries,
    or a response that is not the JSON the contract promises."""


class MemoryAuthError(MemoryError):
    """401: the API key is missing, wrong or expired."""


class MemoryForbidden(MemoryError):
    """403: the key's grants do not cover this scope or action."""


class MemoryConflict(MemoryError):
    """409: the Idempotency-Key was used with another body, or is in flight."""


class MemoryRequestError(MemoryError):
    """Any other 4xx: the request itself is wrong."""


@functools.cache
def _scope_list() -> TypeAdapter[list[ScopeNode]]:
    """Built on first use, as the wire models' validators are."""
    return TypeAdapter(list[wire.ScopeNode])


def _q(value: str) -> str:
    return quote(value, safe="")


def _instant(text: str) -> tuple[int, float, str]:
    """A sort key: readable times in time order, then anything else."""
    try:
        return (0, parse_stamp(text).timestamp(), text)
    except ValueError:
        return (1, 0.0, text)


class MemoryClient:
    def __init__(
        self,
        transport: Transport,
        *,
        context: str,
        api_key: str | None = None,
        where: str = "",
        retries: int = 3,
        backoff: tuple[float, ...] = (0.25, 0.5, 1.0),
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._transport = transport
        self.context = context
        self._api_key = api_key or None
        self.where = self._scrub(where or transport.where())
        self._retries = max(0, retries)
        self._backoff = tuple(backoff) or (0.0,)
        self._sleep = sleep
        self._clock = clock
        self._base = f"/api/v1/{_q(context)}"

    def __repr__(self) -> str:
        return f"MemoryClient(where={self.where!r}, context={self.context!r})"

    # ------------------------------------------------------------ operations

    def health(self, *, deadline: float | None = None) -> bool:
        """True when the service answers its health route with a 2xx."""
        try:
            self.check_health(deadline=deadline)
        except MemoryError:
            return False
        return True

    def check_health(self, *, deadline: float | None = None) -> None:
        """Raise the MemoryError that says why the health route gave no 2xx
        (`status` 0: no answer at all)."""
        self._call("health check", "GET", "/api/v1/health", retry=True, deadline=deadline, auth=False)

    def register_scope(self, path: str, *, deadline: float | None = None) -> ScopeNode:
        body = wire.RegisterScopeRequest(path=path).model_dump(by_alias=True, exclude_none=True)
        resp = self._call("register scope", "POST", f"{self._base}/scopes", json_body=body,
                          retry=True, idempotency_key=uuid.uuid4().hex, deadline=deadline)
        return self._model("register scope", resp, wire.ScopeNode)

    def list_scopes(self, *, deadline: float | None = None) -> list[ScopeNode]:
        resp = self._call("list scopes", "GET", f"{self._base}/scopes", retry=True, deadline=deadline)
        return self._validate("list scopes", resp, _scope_list().validate_python)

    def write_facts(self, request: FactsRequest, *, idempotency_key: str,
                    deadline: float | None = None) -> FactsResponse:
        body = request.model_dump(mode="json", exclude_none=True)
        resp = self._call("write facts", "POST", f"{self._base}/facts", json_body=body,
                          retry=True, idempotency_key=idempotency_key, deadline=deadline)
        return self._model("write facts", resp, wire.FactsResponse)

    def entity(self, type: str, name: str, *, as_of: str | None = None,  # noqa: A002 - contract name
               deadline: float | None = None) -> EntityResponse | None:
        params = {"asOf": as_of} if as_of is not None else None
        resp = self._call("read entity", "GET", f"{self._base}/entities/{_q(type)}/{_q(name)}",
                          params=params, retry=True, deadline=deadline, missing_ok=True)
        return None if resp is None else self._model("read entity", resp, wire.EntityResponse)

    def history(self, type: str, name: str, key: str, *,  # noqa: A002 - contract name
                deadline: float | None = None) -> list[AttributeDetail]:
        """Every row of one key, oldest first (sorted here by `createdAt`, since
        the service does not promise an order)."""
        resp = self._call("read history", "GET",
                          f"{self._base}/entities/{_q(type)}/{_q(name)}/history/{_q(key)}",
                          retry=True, deadline=deadline)
        rows = self._model("read history", resp, wire.EntityHistoryResponse).history
        return sorted(rows, key=lambda row: _instant(row.created_at))

    def list_entities(self, type: str, *, deadline: float | None = None) -> list[EntityDetail]:  # noqa: A002
        """The entities of one type this key can see (the service caps the list at 500)."""
        resp = self._call("list entities", "GET", f"{self._base}/entities", params={"type": type},
                          retry=True, deadline=deadline)
        return self._model("list entities", resp, wire.EntityListResponse).entities

    def forget_scope(self, path: str, *, deadline: float | None = None) -> int:
        body = wire.ScopeForgetRequest(path=path).model_dump(exclude_none=True)
        resp = self._call("forget scope", "POST", f"{self._base}/scopes/forget", json_body=body,
                          retry=True, idempotency_key=uuid.uuid4().hex, deadline=deadline)
        return self._model("forget scope", resp, wire.ForgetScopeResponse).forgotten

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> MemoryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --------------------------------------------------------------- plumbing

    def _scrub(self, text: str) -> str:
        if self._api_key:
            text = text.replace(self._api_key, "[redacted]")
        return _BEARER.sub(r"\1[redacted]", text)

    def _fail(self, cls: type[MemoryError], text: str, *, status: int = 0, trace_id: str | None = None) -> MemoryError:
        if trace_id:
            text = f"{text} [trace {trace_id}]"
        return cls(self._scrub(f"{self.where}: {text}"), status=status, trace_id=trace_id, where=self.where)

    def _headers(self, auth: bool, idempotency_key: str | None) -> dict[str, str]:
        headers = {"Accept": "application/json", "User-Agent": f"lumente/{__version__}"}
        if auth and self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        return headers

    def _call(self, op: str, method: str, path: str, *, json_body: Any = None,
              params: dict[str, str] | None = None, retry: bool, idempotency_key: str | None = None,
              deadline: float | None = None, auth: bool = True, missing_ok: bool = False) -> Reply | None:
        headers = self._headers(auth, idempotency_key)
        attempt = 0
        while True:
            time_left = None if deadline is None else deadline - self._clock()
            if time_left is not None and time_left <= 0:
                raise self._fail(MemoryUnavailable, f"{op} gave up: the time allowed ran out")
            try:
                reply = self._transport.send(method, path, params=params, headers=headers, json_body=json_body,
                                             time_left=time_left)
            except NoAnswer as exc:
                error = self._fail(MemoryUnavailable, f"{op} failed: {exc}")
            except BadExchange as exc:  # not worth retrying
                raise self._fail(MemoryUnavailable, f"{op} failed: {exc}") from None
            except OutOfTime:
                raise self._fail(MemoryUnavailable, f"{op} gave up: no complete answer within the time allowed") from None
            else:
                if reply.status < 500:
                    return self._check(op, reply, missing_ok)
                error = self._status_error(op, reply)
            if not retry or attempt >= self._retries:
                raise error from None
            pause = self._backoff[min(attempt, len(self._backoff) - 1)]
            if deadline is not None and self._clock() + pause >= deadline:
                raise error from None
            self._sleep(pause)
            attempt += 1

    def _check(self, op: str, resp: Reply, missing_ok: bool) -> Reply | None:
        status = resp.status
        if 200 <= status < 300:
            return resp
        if status == 404 and missing_ok:
            return None
        raise self._status_error(op, resp)

    def _status_error(self, op: str, resp: Reply) -> MemoryError:
        status = resp.status
        trace = header(resp, "x-trace-id") or None
        if status >= 500:
            cls: type[MemoryError] = MemoryUnavailable
        elif 300 <= status < 400:
            return self._fail(MemoryRequestError, f"{op} got an unexpected redirect ({status}); check the memory URL",
                              status=status, trace_id=trace)
        else:
            cls = {401: MemoryAuthError, 403: MemoryForbidden, 409: MemoryConflict}.get(status, MemoryRequestError)
        reason = reason_phrase(resp)
        text = f"{op} failed with {status}{' ' + reason if reason else ''}"
        detail = self._error_detail(resp)
        return self._fail(cls, f"{text}: {detail}" if detail else text, status=status, trace_id=trace)

    @staticmethod
    def _error_detail(resp: Reply) -> str:
        raw = resp.body.decode("utf-8", errors="replace").strip()
        try:
            data = json.loads(raw)
        except ValueError:
            data = None
        if isinstance(data, dict):
            try:
                text = wire.ApiError.model_validate(data).text()
            except ValidationError:
                text = None
            nested = data.get("error")
            if text is None and isinstance(nested, dict) and isinstance(nested.get("message"), str):
                text = nested["message"]
            if text:
                return text
        return raw if len(raw) <= _RAW_TEXT_MAX else raw[:_RAW_TEXT_MAX] + "…"

    def _validate(self, op: str, resp: Reply | None, validate: Callable[[Any], Any]) -> Any:
        assert resp is not None
        trace = header(resp, "x-trace-id") or None
        try:
            data = json.loads(resp.body)
        except ValueError:
            raise self._fail(MemoryUnavailable, f"malformed response to {op}: the body is not JSON",
                             status=resp.status, trace_id=trace) from None
        try:
            return validate(data)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"]) or "body"
            raise self._fail(MemoryUnavailable, f"malformed response to {op}: {where}: {first['msg']}",
                             status=resp.status, trace_id=trace) from None

    def _model(self, op: str, resp: Reply | None, model: type[M]) -> M:
        return self._validate(op, resp, model.model_validate)


# ------------------------------------------------------------------ factories


def _display_url(url: str) -> str:
    """The URL without user info, query or fragment, for messages."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def remote_client(url: str, *, context: str, api_key: str | None, timeout: float = REMOTE_TIMEOUT_S,
                  transport: httpx2.BaseTransport | None = None) -> MemoryClient:
    """A client for an Agent Memory service (or `lumente memory serve`) at `url`, over HTTP
    (`transport` replaces httpx2's network transport, for tests)."""
    import httpx2

    from lumente_cli.agent_memory.http import HttpTransport

    base = url.strip().rstrip("/")
    http = httpx2.Client(base_url=base, timeout=httpx2.Timeout(timeout), transport=transport,
                         follow_redirects=False)
    return MemoryClient(HttpTransport(http, wall_clock=True), context=context, api_key=api_key,
                        where=f"memory at {_display_url(base)}")
