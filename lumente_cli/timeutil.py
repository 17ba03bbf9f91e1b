"""One timestamp format everywhere: RFC 3339 UTC with microseconds, so strings sort."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_RELATIVE = re.compile(r"^\s*(\d+)\s*(s|sec|m|min|h|hr|d|day|days|w|wk|weeks?)\s*(ago)?\s*$", re.I)
_UNITS = {"s": "seconds", "sec": "seconds", "m": "minutes", "min": "minutes", "h": "hours", "hr": "hours",
          "d": "days", "day": "days", "days": "days", "w": "weeks", "wk": "weeks", "week": "weeks", "weeks": "weeks"}


def format_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def now() -> str:
    return format_time(datetime.now(UTC))


def parse_time(text: str, *, reference: datetime | None = None) -> datetime:
    """An ISO time ('2026-11-28', '2026-11-28T10:00Z') or a relative one ('2d', '3h ago').

    Raises ValueError with a message fit for the user.
    """
    m = _RELATIVE.match(text)
    if m:
        amount, unit = int(m[1]), _UNITS[m[2].lower()]
        return (reference or datetime.now(UTC)) - timedelta(**{unit: amount})
    candidate = text.strip()
    if candidate.endswith(("Z", "z")):
        candidate = candidate[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(candidate)
    except ValueError:
        raise ValueError(
            f"cannot read the time {text!r}; use an ISO time such as 2026-11-28T14:00Z or a relative one such as 2d or 3h"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.now().astimezone().tzinfo)
    return moment.astimezone(UTC)


def parse_stamp(stamp: str) -> datetime:
    """Parse a timestamp this program (or the memory service) wrote."""
    return parse_time(stamp)


def seconds_since(stamp: str) -> float:
    """How long ago a stamp written by `now()` was (a very large number if unreadable)."""
    try:
        then = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return float("inf")
    return (datetime.now(UTC) - then).total_seconds()
