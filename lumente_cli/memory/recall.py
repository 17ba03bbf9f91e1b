"""Recall (`facts_of`): what the hint giver and the coach may be told.

Rules: drop rows written by the current session, keep the
newest row of each key, and hand over at most 8 facts: the current level of
each part in map order, then the latest gap, then the last `lumente check`
round, then the Help facts with the most Help first (a check round gets its
two check facts first, then the same list). Only rows this code could have written survive (`parse_fact`), and
only rows whose provenance, when the service reports one, is our own upsert.

One entity read gives the newest row of every key. When a key's newest row
came from the current session, the row before it is wanted: one bounded
`asOf` read finds it for every such key (`replaced.py`), and the key's full
history, whose cost grows with every session, is read only when that answer
cannot be trusted. Either way the result is the same as reading every key's
history, in one or two requests instead of nine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from lumente_cli.memory import facts as F
from lumente_cli.memory.replaced import in_time_order, replaced_rows
from lumente_cli.parts import LABELS, PARTS
from lumente_cli.timeutil import parse_stamp

if TYPE_CHECKING:
    from lumente_cli.agent_memory.client import MemoryClient
    from lumente_cli.agent_memory.wire import AttributeDetail

MAX_FACTS = 8
OWN_SOURCE_KINDS = frozenset({"upsert"})

RecallStatus = Literal["recalled", "empty", "unavailable", "off"]
# Which command's agents are told: they share one entity per concept, in a different order.
Focus = Literal["practice", "check"]


@dataclass(frozen=True)
class Recall:
    """What one session's read of memory found: the facts the hint giver and the coach
    may be told, or why there are none."""

    status: RecallStatus
    facts: tuple[F.MemoryFact, ...] = ()
    reason: str = ""


def _acceptable(row: AttributeDetail) -> bool:
    source = getattr(row, "source", None)
    kind = getattr(source, "kind", None) if source is not None else None
    return kind is None or kind in OWN_SOURCE_KINDS


def newest_rows(
    client: MemoryClient, entity_type: str, entity: str, *, exclude_ids: Collection[str], deadline: float | None
) -> dict[str, AttributeDetail]:
    view = client.entity(entity_type, entity, deadline=deadline)
    if view is None:
        return {}
    chains = Counter(row.key for row in view.attributes)
    # When a key has one chain (the app writes a learner's facts to one scope,
    # as `knowledge`, which never lapses), that chain's older rows are the
    # key's older rows, and the bounded read can stand in for its history.
    left_out = [r for r in view.attributes if r.key in F.ALL_KEYS and r.id in exclude_ids and chains[r.key] == 1]
    before = replaced_rows(client, entity_type, entity, left_out, deadline=deadline)
    one_chain = {r.id for r in left_out}
    newest: dict[str, AttributeDetail] = {}
    for row in view.attributes:
        if row.key in F.ALL_KEYS and row.id not in exclude_ids and _acceptable(row):
            if row.key not in newest or parse_stamp(newest[row.key].created_at) < parse_stamp(row.created_at):
                newest[row.key] = row
        elif row.key in F.ALL_KEYS and row.id in exclude_ids:
            if row.id in one_chain and row.supersedes is None:
                continue  # the first row of the key's only chain: nothing older
            older = _older(client, entity_type, entity, row, before.get(row.id), exclude_ids, deadline)
            if older is not None:
                newest[row.key] = older
    return newest


def _older(
    client: MemoryClient, entity_type: str, entity: str, row: AttributeDetail, replaced: AttributeDetail | None,
    exclude_ids: Collection[str], deadline: float | None,
) -> AttributeDetail | None:
    """The newest row of `row`'s key that is not left out: the row it replaced
    when that one qualifies and nothing older can be newer, else from the key's
    full history (on equal times the later write, as `asOf` reads rank them)."""
    if replaced is not None and replaced.id not in exclude_ids and _acceptable(replaced) and in_time_order(replaced):
        return replaced
    older = [
        r for r in client.history(entity_type, entity, row.key, deadline=deadline)
        if r.id not in exclude_ids and _acceptable(r)
    ]
    return max(reversed(older), key=lambda r: parse_stamp(r.created_at)) if older else None


def select(rows: dict[str, AttributeDetail], focus: Focus = "practice") -> list[F.MemoryFact]:
    """A practice session gets the levels, the gap, the last check round and then Help;
    a check round gets its own two facts first, then the practice facts."""
    parsed: dict[str, F.MemoryFact] = {}
    for key, row in rows.items():
        fact = F.parse_fact(key, row.value, id=row.id, at=row.created_at)
        if fact is not None:
            parsed[key] = fact
    chosen: list[F.MemoryFact] = []
    check = parsed.get(F.CHECK_KEY)
    check_level = parsed.get(F.CHECK_LEVEL_KEY)
    if focus == "check":
        if check:
            chosen.append(check.model_copy(update={"reason": "your last check round"}))
        if check_level:
            chosen.append(check_level.model_copy(update={"reason": "your check level"}))
    for part in PARTS:
        fact = parsed.get(F.level_key(part))
        if fact:
            chosen.append(fact.model_copy(update={"reason": f"current level of {LABELS[part]}"}))
    if F.GAP_KEY in parsed:
        chosen.append(parsed[F.GAP_KEY].model_copy(update={"reason": "your latest guess against your score"}))
    if focus == "practice" and check:
        chosen.append(check.model_copy(update={"reason": "your last check round"}))
    helps = [parsed[F.help_key(p)] for p in PARTS if F.help_key(p) in parsed]
    helps.sort(key=lambda f: -(f.help_taps or 0))  # stable: ties keep map order
    for fact in helps:
        chosen.append(fact.model_copy(update={"reason": f"Help on {LABELS[fact.part]} last time, most Help first"}))  # type: ignore[index]
    return chosen[:MAX_FACTS]


def facts_of(
    client: MemoryClient, entity_type: str, entity: str, *, exclude_ids: Collection[str] = (), deadline: float | None = None,
    focus: Focus = "practice",
) -> list[F.MemoryFact]:
    return select(newest_rows(client, entity_type, entity, exclude_ids=exclude_ids, deadline=deadline), focus)
