"""Times on the wire and in the store: one fixed RFC 3339 form in UTC with
microseconds (`2026-03-02T14:05:00.000000Z`), so text order is time order."""

from __future__ import annotations

from datetime import datetime, timezone

from lumente_cli.agent_memory.wire import parse_instant

_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def fmt(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError("naive datetime")
    return moment.astimezone(timezone.utc).strftime(_FORMAT)


def parse(text: str) -> datetime:
    """Parse any RFC 3339 instant with a zone (ValueError otherwise)."""
    return parse_instant(text).astimezone(timezone.utc)


def canonical(text: str) -> str:
    return fmt(parse(text))
