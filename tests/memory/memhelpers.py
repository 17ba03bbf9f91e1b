"""Helpers for the memory tests: the real client on the real engine, on a real SQLite file."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta, timezone

from lumente_cli.agent_memory.client import MemoryClient
from lumente_cli.memory_engine import MemoryEngine
from lumente_cli.memory_engine.transport import EmbeddedTransport
from lumente_cli.agent_memory.wire import FactsRequest, MintedKey, MintKeyBody, Triple, TripleEntity, Whoami

LEARNER = "learner/p_abc"
ENTITY = "p_abc_jwt"


class Clock:
    """A settable UTC clock for the engine."""

    def __init__(self, start: str = "2026-03-02T14:00:00+00:00") -> None:
        self.now = datetime.fromisoformat(start)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


def fact(key: str, value: str | None, *, name: str = ENTITY, scope: str | None = LEARNER,
         **extra) -> FactsRequest:
    return FactsRequest(
        infer="triples",
        scopes=[[scope]] if scope else None,
        memory_category=extra.pop("memory_category", "knowledge"),
        triples=[Triple(entity=TripleEntity(type=extra.pop("type", "topic"), name=name), key=key, value=value)],
        **extra,
    )


def client_for(engine: MemoryEngine, *, context: str = "local", api_key: str | None = None,
               **kwargs) -> MemoryClient:
    return MemoryClient(EmbeddedTransport(engine), context=context, api_key=api_key, where="test engine", **kwargs)


def raw(engine: MemoryEngine, method: str, path: str, body=None, *, query=None, headers=None):
    """Call the engine directly, for requests the client would never send."""
    data = body if isinstance(body, bytes) else (json.dumps(body).encode() if body is not None else b"")
    reply = engine.handle(method, path, query or {}, headers or {}, data)
    parsed = json.loads(reply.body) if reply.body else None
    return reply.status, reply.headers, parsed


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


# No Lumente command asks who a key is or mints one (admins of `lumente memory serve`
# do that with curl, docs/serve.md); the tests do, through the client's own request path.
def me(client: MemoryClient, *, deadline: float | None = None) -> Whoami:
    resp = client._call("who am I", "GET", f"{client._base}/me", retry=True, deadline=deadline)
    return client._model("who am I", resp, Whoami)


def mint_key(client: MemoryClient, body: MintKeyBody, *, deadline: float | None = None) -> MintedKey:
    resp = client._call("mint key", "POST", f"{client._base}/keys", json_body=body.model_dump(exclude_none=True),
                        retry=False, idempotency_key=uuid.uuid4().hex, deadline=deadline)
    return client._model("mint key", resp, MintedKey)
