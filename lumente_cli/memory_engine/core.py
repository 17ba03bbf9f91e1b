"""MemoryEngine: an Agent Memory-compatible stand-in on SQLite.

Framework-neutral on purpose: `handle(method, raw_path, query, headers, body)`
returns an `EngineResponse`, so the same object serves the in-process
transport now and a real HTTP server later. `handle` is thread-safe: each
call checks a connection out of the store's pool, and every write is one
`BEGIN IMMEDIATE` transaction.

Every response carries `X-Trace-Id`; every error body carries RFC 7807 fields
and `message`. Unexpected failures are logged with the trace id and answered
500 with the detail redacted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from lumente_cli.agent_memory import wire
from lumente_cli.memory_engine import reads, scopes
from lumente_cli.memory_engine.auth import LOCAL, KeyRing, Principal
from lumente_cli.memory_engine.bodies import parse_json, validate
from lumente_cli.memory_engine.errors import ApiProblem, problem_body
from lumente_cli.memory_engine.ids import trace_id
from lumente_cli.memory_engine.response import (
    PROBLEM_JSON, EngineResponse, Request, json_bytes, json_response, no_content, raw_json_response,
)
from lumente_cli.memory_engine.routing import match
from lumente_cli.memory_engine.database import Store
from lumente_cli.timeutil import utc_now

if TYPE_CHECKING:
    import logging


MAX_TTL_SECONDS = 10 * 365 * 24 * 3600


class MemoryEngine:
    def __init__(self, db_path: Path, *, auth: KeyRing | None = None,
                 clock: Callable[[], datetime] = utc_now) -> None:
        self.db_path = Path(db_path)
        self.clock = clock
        self.store = Store(self.db_path)
        self.auth = auth
        if auth is not None:
            auth.bind(self.store, clock)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> MemoryEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ entry

    def handle(self, method: str, raw_path: str, query: Mapping[str, str], headers: Mapping[str, str],
               body: bytes) -> EngineResponse:
        trace = trace_id()
        path = raw_path.split("?", 1)[0]
        try:
            response = self._dispatch(method.upper(), raw_path, query, headers, body)
        except ApiProblem as problem:
            response = EngineResponse(
                problem.status, {"Content-Type": PROBLEM_JSON, **problem.headers},
                problem_body(problem.status, problem.detail, path),
            )
        except Exception:  # noqa: BLE001 - logged with its traceback and answered 500
            _failure_log().exception("memory engine failure (trace %s) on %s %s", trace, method, path)
            detail = f"unexpected failure in the embedded memory engine (trace {trace})"
            response = EngineResponse(500, {"Content-Type": PROBLEM_JSON}, problem_body(500, detail, path))
        response.headers["X-Trace-Id"] = trace
        return response

    def _dispatch(self, method: str, raw_path: str, query: Mapping[str, str], headers: Mapping[str, str],
                  body: bytes) -> EngineResponse:
        found = match(method, raw_path)
        if found.handler == "health":
            return json_response(200, {"status": "ok"})
        lower = {k.lower(): v for k, v in headers.items()}
        now = self.clock()
        assert found.context is not None
        request = Request(method, raw_path.split("?", 1)[0], found.context, found.params, query, lower, body, now)
        request.principal = self._principal(request)
        return getattr(self, "_" + found.handler)(request)

    def _principal(self, request: Request) -> Principal:
        if self.auth is None:
            return LOCAL
        return self.auth.authenticate(request.context, request.headers.get("authorization"), request.now)

    def _keyring(self) -> KeyRing:
        if self.auth is None:
            raise ApiProblem(403, "self-service keys are disabled: this engine runs in trusted in-process "
                                  "mode without a key ring")
        return self.auth

    # --------------------------------------------------------------- handlers

    def _post_facts(self, r: Request) -> EngineResponse:
        from lumente_cli.memory_engine import facts, idempotency  # writes only: a read never loads them

        data = parse_json(r.body)
        plan = facts.plan(validate(wire.FactsRequest, data))
        facts.authorise(r.principal, plan)
        key = r.headers.get("idempotency-key")
        held = None
        if key is not None:
            idempotency.check_key(key)
            # Keys are scoped to who sent them: every API key is its own namespace (minted
            # keys share their minter's principal, and learner B must never meet learner A's key).
            outcome = idempotency.claim(self.store, r.context, r.principal.idempotency_owner, key,
                                        idempotency.body_hash(data), r.now)
            if isinstance(outcome, idempotency.Replay):
                return raw_json_response(outcome.status, outcome.body, **{"Idempotency-Replayed": "true"})
            held = outcome
        try:
            with self.store.write() as con:
                now = self.clock()  # inside the lock: writes to one chain get ordered times
                written = facts.apply(con, r.context, plan, now)
                # chunkId/preview are absent (not null) outside modes none/preview
                result = json_bytes(written.model_dump(mode="json", by_alias=True,
                                                       exclude={"chunk_id", "preview"}))
                if held is not None:
                    idempotency.complete(con, held, 200, result, plan.scope)
        except BaseException:
            if held is not None:
                idempotency.release(self.store, held)
            raise
        return raw_json_response(200, result)

    def _list_entities(self, r: Request) -> EngineResponse:
        with self.store.read() as con:
            return json_response(200, reads.entities(con, r.context, r.principal, r.query))

    def _get_entity(self, r: Request) -> EngineResponse:
        with self.store.read() as con:
            found = reads.entity(con, r.context, r.principal, r.params["type"], r.params["name"], r.query, r.now)
        return json_response(200, found)

    def _get_history(self, r: Request) -> EngineResponse:
        with self.store.read() as con:
            found = reads.history(con, r.context, r.principal, r.params["type"], r.params["name"],
                                  r.params["key"], r.now)
        return json_response(200, found)

    def _register_scope(self, r: Request) -> EngineResponse:
        body = validate(wire.RegisterScopeRequest, parse_json(r.body))
        return json_response(201, scopes.register(self.store, r.context, r.principal, body, r.now))

    def _list_scopes(self, r: Request) -> EngineResponse:
        return json_response(200, scopes.list_nodes(self.store, r.context, r.principal))

    def _delete_scope(self, r: Request) -> EngineResponse:
        scopes.tombstone(self.store, r.context, r.principal, r.query.get("path"), r.now)
        return no_content()

    def _forget_scope(self, r: Request) -> EngineResponse:
        body = validate(wire.ScopeForgetRequest, parse_json(r.body))
        return json_response(200, scopes.forget(self.store, r.context, r.principal, body))

    def _whoami(self, r: Request) -> EngineResponse:
        return json_response(200, r.principal.whoami())

    def _mint_key(self, r: Request) -> EngineResponse:
        ring = self._keyring()
        if not r.principal.manages_keys:
            raise ApiProblem(403, "minting keys needs an admin key or the grant:manage grant")
        data = parse_json(r.body, required=False)
        body = wire.MintKeyBody() if data is None else validate(wire.MintKeyBody, data)
        ttl = r.query.get("ttlSeconds")
        try:
            ttl_seconds = None if ttl is None else int(ttl)
        except ValueError:
            raise ApiProblem(400, f"ttlSeconds must be a whole number, not {ttl!r}") from None
        if ttl_seconds is not None and not 0 <= ttl_seconds <= MAX_TTL_SECONDS:
            raise ApiProblem(400, f"ttlSeconds must be from 0 to {MAX_TTL_SECONDS} (ten years)")
        return json_response(201, ring.mint(r.context, r.principal, body, ttl_seconds, r.now))

    def _list_keys(self, r: Request) -> EngineResponse:
        return json_response(200, self._keyring().list_keys(r.context, r.principal))

    def _revoke_key(self, r: Request) -> EngineResponse:
        self._keyring().revoke(r.context, r.principal, r.params["id"])
        return no_content()


def _failure_log() -> logging.Logger:
    """Where unexpected failures are logged, for a server to pick up (`memory serve`
    adds a handler). A library does not print: with no handler of its own the CLI
    shows the 500's one-line message instead. (Set up on first failure, so a
    command that never fails never loads logging.)"""
    import logging

    package = logging.getLogger("lumente_cli.memory_engine")
    if not any(isinstance(h, logging.NullHandler) for h in package.handlers):
        package.addHandler(logging.NullHandler())
    return logging.getLogger(__name__)
