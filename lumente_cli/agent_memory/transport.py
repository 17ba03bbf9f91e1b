"""How a `MemoryClient` request reaches a memory service: one request out, one
whole reply back.

The client keeps everything the contract asks of it (headers, retries,
deadlines, validation, error messages); a transport only carries the request
and says whether an answer came. Two implement this:

* `agent_memory.http.HttpTransport`, over HTTP, for a remote service and
  `lumente memory serve`;
* `memory_engine.transport.EmbeddedTransport`, which hands the request to the
  engine in this process: no HTTP library, no sockets.

Both are structural: neither imports this module's protocols, and the engine
knows nothing of the client.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class Reply(Protocol):
    """A whole answer: its status, its headers (names in any case) and its body."""

    status: int
    headers: Mapping[str, str]
    body: bytes


class Transport(Protocol):
    def send(self, method: str, path: str, *, params: Mapping[str, str] | None, headers: Mapping[str, str],
             json_body: Any, time_left: float | None) -> Reply:
        """Send one request and return the whole reply. `path` is already URL-quoted;
        `json_body` is None or the JSON document to send; `time_left` (seconds, or
        None for no deadline) bounds this attempt.

        Raises NoAnswer when no reply came (refused, reset, timed out), BadExchange
        when one came that is no use (a redirect loop, an undecodable body), and
        OutOfTime when a reply was still arriving as `time_left` ran out."""
        ...

    def where(self) -> str:
        """Where requests go, for messages when the client is not told."""
        ...

    def close(self) -> None: ...


class NoAnswer(Exception):
    """No reply arrived: worth trying again. The text says what went wrong."""


class BadExchange(Exception):
    """A reply arrived but cannot be used; trying again would not help."""


class OutOfTime(Exception):
    """The attempt was abandoned at the deadline, mid-reply."""


def header(reply: Reply, name: str) -> str | None:
    """A header of `reply` by its lower-case name, whatever case the sender used."""
    found = reply.headers.get(name)
    if found is not None:
        return found
    for key, value in reply.headers.items():
        if key.lower() == name:
            return value
    return None


def reason_phrase(reply: Reply) -> str:
    """The reply's own reason phrase if it has one, else the standard one for its status."""
    own = getattr(reply, "reason", "")
    if own:
        return own
    from http import HTTPStatus

    try:
        return HTTPStatus(reply.status).phrase
    except ValueError:
        return ""
