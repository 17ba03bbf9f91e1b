"""The rows that rows replaced, read at a cost that does not grow with history.

A key's history read returns every row of its chain (contract §3.3, in
docs/spec/agent-memory-contract.md), so its cost grows with every session. Recall and `memory show` only need the one row
before a row. An entity read with `asOf` just before that row's `createdAt`
returns, per chain, the row current then (§3.6): for a row written after the
one it replaced, exactly that row. Rows written at one instant (a session's
facts share their known time) share one read.

Whatever comes back is checked: only a row whose id is the newer row's
`supersedes` counts. A row not found so (a service that ignores `asOf`, a
back-dated write, a lapsed row) is simply missing from the answer, and the
caller reads the key's full history as before.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import TYPE_CHECKING

from lumente_cli.timeutil import format_time, parse_stamp

if TYPE_CHECKING:
    from lumente_cli.agent_memory.client import MemoryClient
    from lumente_cli.agent_memory.wire import AttributeDetail

JUST_BEFORE = timedelta(microseconds=1)  # times carry microseconds (timeutil.format_time)


def replaced_rows(
    client: MemoryClient, entity_type: str, entity: str, rows: Iterable[AttributeDetail], *, deadline: float | None
) -> dict[str, AttributeDetail]:
    """For each of `rows` that replaced another, the row it replaced, keyed by
    the newer row's id; a row whose predecessor was not found is left out."""
    by_instant: dict[str, list[AttributeDetail]] = {}
    for row in rows:
        if row.supersedes:
            by_instant.setdefault(row.created_at, []).append(row)
    found: dict[str, AttributeDetail] = {}
    for instant, newer in by_instant.items():
        try:
            moment = format_time(parse_stamp(instant) - JUST_BEFORE)
        except ValueError:
            continue  # a time we cannot read: the full history decides
        view = client.entity(entity_type, entity, as_of=moment, deadline=deadline)
        then = {row.id: row for row in view.attributes} if view is not None else {}
        for row in newer:
            old = then.get(row.supersedes or "")
            if old is not None and old.key == row.key:
                found[row.id] = old
    return found


def in_time_order(row: AttributeDetail) -> bool:
    """Whether no older row of the chain can have a later `createdAt`.

    The embedded engine gives a row `validFrom` = its known time, lifted to
    the replaced row's `validFrom` when the write is back-dated before it
    (memory_engine/facts.py), so `validFrom` never falls along a chain, and
    `validFrom == createdAt` means every earlier row has a `createdAt` at or
    before this one's. The contract leaves a service's `validFrom` for
    back-dated writes open (its open question 15); one that uses the
    wall-clock write time never passes this check, so the full history decides."""
    if row.valid_from is None:
        return False
    try:
        return parse_stamp(row.valid_from) == parse_stamp(row.created_at)
    except ValueError:
        return False
