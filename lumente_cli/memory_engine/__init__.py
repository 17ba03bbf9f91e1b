"""The embedded Agent Memory engine (SQLite). See core.MemoryEngine.

Modules: store/schema (SQLite, migrations), routing (paths), facts
(writes and supersession), reads (entities, history, asOf), scopes
(register, list, tombstone, forget), idempotency, auth (KeyRing, grants),
lifecycle (context TTL), errors/response/bodies (the HTTP-neutral envelope).

"contract §n" in these modules cites the vendored contract, docs/spec/agent-memory-contract.md;
docs/memory-contract.md lists the engine's own answers where it is open.
"""

from lumente_cli.memory_engine.auth import KeyRing
from lumente_cli.memory_engine.core import MemoryEngine
from lumente_cli.memory_engine.response import EngineResponse
from lumente_cli.memory_engine.database import StoreError

__all__ = ["EngineResponse", "KeyRing", "MemoryEngine", "StoreError"]
