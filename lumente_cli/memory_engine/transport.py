"""Serve httpx2 requests from an in-process MemoryEngine, so the embedded
backend goes through exactly the same client code as the remote service."""

from __future__ import annotations

import httpx2

from lumente_cli.memory_engine import MemoryEngine


class EmbeddedTransport(httpx2.BaseTransport):
    def __init__(self, engine: MemoryEngine, *, owns_engine: bool = False) -> None:
        self.engine = engine
        self.owns_engine = owns_engine

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        body = request.read()
        raw_path = request.url.raw_path.decode("ascii").split("?", 1)[0]
        query = dict(request.url.params.multi_items())  # a repeated parameter: the last one wins
        headers = dict(request.headers.items())
        reply = self.engine.handle(request.method, raw_path, query, headers, body)
        return httpx2.Response(reply.status, headers=reply.headers, content=reply.body, request=request)

    def close(self) -> None:
        if self.owns_engine:
            self.engine.close()
