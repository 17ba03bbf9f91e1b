"""The session's event stream (docs/json.md documents every shape).

The runner emits plain dicts: the session's log (the local store, once the
session is open) keeps each one, then the sinks render it (NDJSON on stdout,
the Rich view). An event that must be saved together with other writes (a
verdict, with its answer) is stamped, saved by the runner, then shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

from lumente_cli.text import json_dumps
from lumente_cli.timeutil import now

EVENT_KINDS = (
    "session_started",
    "memory_recalled",
    "memory_unavailable",
    "predicted",
    "part_started",
    "hint",
    "verdict",
    "level_changed",
    "part_finished",
    "session_finished",
    "coach",
    "memory_written",
    "session_paused",
    "notice",
)

Sink = Callable[[dict[str, Any]], None]


class Emitter:
    def __init__(self, session_id: str = "", kinds: tuple[str, ...] = EVENT_KINDS) -> None:
        self.session_id = session_id
        self.kinds = kinds  # `lumente check` emits its own kinds (checking/runner.py)
        self.sinks: list[Sink] = []
        self.log: Sink | None = None

    def add(self, sink: Sink) -> None:
        self.sinks.append(sink)

    def stamp(self, kind: str, /, **data: Any) -> dict[str, Any]:
        """The event, with its kind, session and time, not yet logged or shown."""
        assert kind in self.kinds, kind
        return {"event": kind, "session_id": self.session_id, "at": now(), **data}

    def show(self, event: dict[str, Any]) -> None:
        for sink in self.sinks:
            sink(event)

    def emit(self, kind: str, /, **data: Any) -> dict[str, Any]:
        event = self.stamp(kind, **data)
        if self.log is not None:
            self.log(event)
        self.show(event)
        return event


def ndjson_sink(stream: TextIO) -> Sink:
    def write(event: dict[str, Any]) -> None:
        stream.write(json_dumps(event) + "\n")
        stream.flush()

    return write
