"""The client's transport over HTTP (httpx2): a remote Agent Memory service or
`lumente memory serve`. Only this path imports an HTTP library."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx2

from lumente_cli.agent_memory.transport import BadExchange, NoAnswer, OutOfTime


@dataclass(frozen=True)
class HttpReply:
    status: int
    headers: Mapping[str, str]
    body: bytes
    reason: str


class HttpTransport:
    """Requests through an `httpx2.Client` (its base URL, timeouts and transport).

    With `wall_clock`, an attempt that has a deadline runs in a worker and is
    abandoned when the time is up: over a network a timeout restarts with every
    byte read, so a server that drips its answer would otherwise hold the
    caller for as long as it likes."""

    def __init__(self, http: httpx2.Client, *, wall_clock: bool = False) -> None:
        self._http = http
        self._wall_clock = wall_clock

    def where(self) -> str:
        return str(self._http.base_url)

    def close(self) -> None:
        self._http.close()

    def send(self, method: str, path: str, *, params: Mapping[str, str] | None, headers: Mapping[str, str],
             json_body: Any, time_left: float | None) -> HttpReply:
        kwargs: dict[str, Any] = {"params": params, "headers": headers, "timeout": self._timeout(time_left)}
        if json_body is not None:
            kwargs["json"] = json_body
        try:
            resp = self._request(method, path, time_left, kwargs)
        except httpx2.TransportError as exc:
            raise NoAnswer(_describe(exc)) from None
        except httpx2.HTTPError as exc:  # redirects, decoding
            raise BadExchange(_describe(exc)) from None
        return HttpReply(resp.status_code, resp.headers, resp.content, resp.reason_phrase or "")

    def _timeout(self, time_left: float | None) -> httpx2.Timeout:
        """The client's timeouts, each cut to the time left."""
        base = self._http.timeout
        if time_left is None:
            return base

        def cap(value: float | None) -> float:
            return time_left if value is None else min(value, time_left)

        return httpx2.Timeout(connect=cap(base.connect), read=cap(base.read), write=cap(base.write),
                              pool=cap(base.pool))

    def _request(self, method: str, path: str, time_left: float | None, kwargs: dict[str, Any]) -> httpx2.Response:
        """One request, read to its last byte (connect, headers and body within `time_left`
        when the clock on the wall decides)."""
        if not self._wall_clock or time_left is None:
            return self._http.request(method, path, **kwargs)
        import threading

        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["resp"] = self._http.request(method, path, **kwargs)  # reads the whole body
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller's thread
                box["error"] = exc

        worker = threading.Thread(target=work, name=f"memory {method} {path}", daemon=True)
        worker.start()
        worker.join(max(0.0, time_left))
        if worker.is_alive():
            raise OutOfTime()
        if "error" in box:
            raise box["error"]
        return box["resp"]


def _describe(exc: Exception) -> str:
    detail = str(exc).strip()
    name = type(exc).__name__
    if isinstance(exc, httpx2.TimeoutException):
        return f"timed out ({name})"
    return f"{detail} ({name})" if detail else name
