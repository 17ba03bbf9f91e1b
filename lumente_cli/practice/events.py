"""The session's event stream (docs/json.md documents every shape).

The runner emits plain dicts; sinks render them (NDJSON on stdout, the Rich
view) and the local store logs them.
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
    def __init__(self, session_id: str = "") -> None:
        self.session_id = session_id
        self.sinks: list[Sink] = []

    def add(self, sink: Sink) -> None:
        self.sinks.append(sink)

    def emit(self, kind: str, /, **data: Any) -> dict[str, Any]:
        assert kind in EVENT_KINDS, kind
        event = {"event": kind, "session_id": self.session_id, "at": now(), **data}
        for sink in self.sinks:
            sink(event)
        return event


def ndjson_sink(stream: TextIO) -> Sink:
    def write(event: dict[str, Any]) -> None:
        stream.write(json_dumps(event) + "\n")
        stream.flush()

    return write
