"""Which memory Lumente talks to: embedded (default), remote, or off.

Both the embedded and the remote path use the same `MemoryClient`; only the
transport differs (HTTP for the remote service, a direct call into the
engine for the embedded one). Clients are created lazily, so a command that
never needs memory never opens the memory database or the network.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from lumente_cli.paths import Paths
from lumente_cli.settings import Settings

if TYPE_CHECKING:
    from lumente_cli.agent_memory.client import MemoryClient

BackendKind = Literal["embedded", "remote", "off"]


@dataclass
class MemoryBackend:
    kind: BackendKind
    where: str
    # How to open the client: the embedded engine's or the remote service's (from_settings
    # picks); none when memory is off. Nothing is opened until a command needs memory.
    opener: Callable[[], MemoryClient] | None = field(default=None, repr=False)
    url: str = ""
    context: str = "lumente"
    api_key: str = field(default="", repr=False)
    _client: MemoryClient | None = field(default=None, init=False, repr=False)

    @property
    def enabled(self) -> bool:
        return self.kind != "off"

    def client(self) -> MemoryClient:
        """Open the client on first use. Raises MemoryError if it cannot be opened."""
        if self._client is None:
            if self.opener is None or not self.enabled:
                from lumente_cli.agent_memory.client import MemoryUnavailable

                raise MemoryUnavailable("memory is off", where=self.where)
            self._client = self.opener()
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def embedded_client(db_path: Path, *, context: str = "local") -> MemoryClient:
    """A client over the embedded engine on `db_path` (trusted, no key)."""
    import sqlite3

    from lumente_cli.agent_memory.client import MemoryClient, MemoryUnavailable
    from lumente_cli.memory_engine import MemoryEngine, StoreError
    from lumente_cli.memory_engine.transport import EmbeddedTransport

    where = f"embedded memory at {db_path}"
    try:
        engine = MemoryEngine(Path(db_path))
    except (StoreError, OSError, sqlite3.Error) as exc:
        raise MemoryUnavailable(f"{where} cannot be opened: {exc}", where=where) from None
    return MemoryClient(EmbeddedTransport(engine, owns_engine=True), context=context, where=where)


def from_settings(settings: Settings, paths: Paths, *, disabled: bool = False) -> MemoryBackend:
    context = settings["memory_context"] or "lumente"
    if disabled or settings["memory"] == "off":
        return MemoryBackend("off", "memory is off", context=context)
    url = settings["memory_url"].rstrip("/")
    if url:
        from lumente_cli.text import redact_url

        api_key = settings["memory_api_key"]

        def remote() -> MemoryClient:
            from lumente_cli.agent_memory.client import remote_client

            return remote_client(url, context=context, api_key=api_key or None)

        return MemoryBackend("remote", f"memory at {redact_url(url)}", remote, url=url, context=context,
                             api_key=api_key)
    return embedded(paths.memory_database, context=context)


def embedded(db: Path, *, context: str = "lumente") -> MemoryBackend:
    """Memory in the embedded engine on `db`."""
    return MemoryBackend("embedded", f"embedded memory at {db}", lambda: embedded_client(db, context=context),
                         context=context)
