"""The engine in this process as a `MemoryClient` transport: each request is
handed straight to `MemoryEngine.handle`, so the embedded backend goes
through exactly the same client code as the remote service without an HTTP
library or a socket. (It fits the client's `Transport` protocol by shape; the
engine imports nothing of the client.)"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from lumente_cli.memory_engine.core import MemoryEngine
from lumente_cli.memory_engine.response import EngineResponse


class EmbeddedTransport:
    def __init__(self, engine: MemoryEngine, *, owns_engine: bool = False) -> None:
        self.engine = engine
        self.owns_engine = owns_engine

    def where(self) -> str:
        return f"embedded memory at {self.engine.db_path}"

    def send(self, method: str, path: str, *, params: Mapping[str, str] | None, headers: Mapping[str, str],
             json_body: Any, time_left: float | None = None) -> EngineResponse:
        """The engine's answer. `time_left` is not needed: nothing here waits on a network."""
        body = b"" if json_body is None else json.dumps(json_body, separators=(",", ":")).encode()
        lower = {name.lower(): value for name, value in headers.items()}
        if json_body is not None:
            lower["content-type"] = "application/json"
        return self.engine.handle(method, path, dict(params or {}), lower, body)

    def close(self) -> None:
        if self.owns_engine:
            self.engine.close()
