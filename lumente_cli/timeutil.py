"""Every timestamp Lumente writes, reads or compares, in one place.

Lumente's database, the embedded memory engine and the wire all use one fixed
form: RFC 3339 in UTC with microseconds (`2026-03-02T14:05:00.000000Z`), so text
order is time order. A base module: the store, the memory wings and the engine
all import it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
_RELATIVE = re.compile(r"^\s*(\d+)\s*(s|sec|m|min|h|hr|d|day|days|w|wk|weeks?)\s*(ago)?\s*$", re.I)
_UNITS = {"s": "seconds", "sec": "seconds", "m": "minutes", "min": "minutes", "h": "hours", "hr": "hours",
          "d": "days", "day": "days", "days": "days", "w": "weeks", "wk": "weeks", "week": "weeks", "weeks": "weeks"}


def utc_now() -> datetime:
    return datetime.now(UTC)


def format_time(moment: datetime, *, milliseconds: bool = False) -> str:
    """The one written form; a time without a zone is refused rather than guessed.
    `milliseconds` shortens it for log lines a person reads."""
    if moment.tzinfo is None:
        raise ValueError("naive datetime")
    text = moment.astimezone(UTC).strftime(_FORMAT)
    return text[:-4] + "Z" if milliseconds else text


def now() -> str:
    return format_time(utc_now())


def parse_instant(text: str) -> datetime:
    """A strict RFC 3339 instant with a zone (`Z` or an offset), as UTC; ValueError
    otherwise. For what a client sends the engine, where a missing zone is an error."""
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not an RFC 3339 timestamp") from None
    if value.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone (add Z or an offset)")
    return _in_utc(value, text)


def parse_stamp(stamp: str) -> datetime:
    """A timestamp this program or a memory service wrote: ISO 8601, read in the
    local zone when it names none. ValueError otherwise."""
    moment = datetime.fromisoformat(stamp[:-1] + "+00:00" if stamp.endswith(("Z", "z")) else stamp)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.now().astimezone().tzinfo)
    return _in_utc(moment, stamp)


def _in_utc(moment: datetime, text: str) -> datetime:
    try:
        return moment.astimezone(UTC)
    except OverflowError:  # year 1 at +14:00 is before year 1 in UTC
        raise ValueError(f"{text[:40]!r} is outside the years a timestamp can hold") from None


def parse_time(text: str, *, reference: datetime | None = None) -> datetime:
    """A time a person typed: ISO ('2026-11-28', '2026-11-28T10:00Z') or relative ('2d', '3h ago').

    Raises ValueError with a message fit for the user.
    """
    m = _RELATIVE.match(text)
    if m:
        amount, unit = int(m[1]), _UNITS[m[2].lower()]
        return (reference or utc_now()) - timedelta(**{unit: amount})
    try:
        return parse_stamp(text.strip())
    except ValueError:
        raise ValueError(
            f"cannot read the time {text!r}; use an ISO time such as 2026-11-28T14:00Z or a relative one such as 2d or 3h"
        ) from None


def seconds_since(stamp: str) -> float:
    """How long ago a stamp written by `now()` was (a very large number if unreadable)."""
    try:
        then = parse_stamp(stamp)
    except ValueError:
        return float("inf")
    return (utc_now() - then).total_seconds()
