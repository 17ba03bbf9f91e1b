"""Entity reads (contract §3, §11.5, §11.6).

* `GET /entities/{type}/{name}`: the current view — rows with no `validUntil`
  (and not lapsed by the `context` TTL). With `asOf`, per chain (key, scope)
  the row with the greatest `createdAt` ≤ asOf (ties: the later write), left
  out if it has lapsed by now. An entity with no visible row at or before
  asOf is 404. Attributes come in (`createdAt`, write) order either way.
* `GET /entities/{type}/{name}/history/{key}`: every row of that key in every
  scope the caller may read, sorted by `createdAt` ascending (then by write
  order). Unknown entity or key → `{"history": []}`, never 404.
* `GET /entities?type=`: entities with at least one row the caller may read.

Path parameters are normalised like writes (type folded, name and key
lower-cased with `.`/space → `_`). Rows erased by `scopes/forget` are gone
from the store, so they can never reappear, for any asOf.
Reads outside the caller's `memory:read` grant are simply not there.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Iterable, Mapping
from datetime import datetime

from lumente_cli.agent_memory import wire
from lumente_cli.memory_engine import normalise as norm
from lumente_cli.memory_engine.auth import Principal
from lumente_cli.memory_engine.errors import ApiProblem
from lumente_cli.memory_engine.lifecycle import expired, shown_valid_until
from lumente_cli.timeutil import format_time, parse_instant

UPSERT_TRUST = 0.95
MAX_ENTITIES = 500

# Both entity reads touch a bounded number of rows however long the chains
# grow. The indexes are named (INDEXED BY) because, without statistics, the
# planner prefers attribute_chain for the current view and would read every
# row of the entity to keep the open ones; naming them also turns a future
# schema change that breaks these plans into an error rather than a slow read.

# The current view: the open row of each chain, from the partial index that
# holds only open rows.
_CURRENT = """SELECT * FROM attribute INDEXED BY attribute_open
    WHERE context = ? AND entity_id = ? AND valid_until IS NULL ORDER BY created_at, seq"""

# asOf: per chain, the row with the greatest (created_at, seq) at or before the
# instant, one index seek per chain. The chains are found through their open
# rows: every chain has exactly one, since a row is closed only by the write
# that adds its successor, and forget erases whole scopes (so whole chains).
_AS_OF = """SELECT row.* FROM attribute AS head INDEXED BY attribute_open
    JOIN attribute AS row ON row.seq = (
        SELECT x.seq FROM attribute AS x INDEXED BY attribute_chain
        WHERE x.context = head.context AND x.entity_id = head.entity_id AND x.key = head.key
          AND x.scope = head.scope AND x.created_at <= ?
        ORDER BY x.created_at DESC, x.seq DESC LIMIT 1)
    WHERE head.context = ? AND head.entity_id = ? AND head.valid_until IS NULL
    ORDER BY row.created_at, row.seq"""

# A UNION of two index searches: `subject = ? OR object = ?` read every
# relation of the context.
_RELATIONS = """SELECT * FROM relation WHERE context = ? AND subject = ?
    UNION SELECT * FROM relation WHERE context = ? AND object = ?
    ORDER BY created_at, seq"""


def _readable(principal: Principal, row: sqlite3.Row) -> bool:
    return principal.can_all("memory:read", _scope_paths(row["scope"]))


@functools.lru_cache(maxsize=1024)
def _scope_paths(stored: str) -> tuple[str, ...]:
    """A row's scope paths from their stored JSON; a learner's rows all share one."""
    return tuple(json.loads(stored))


def attribute_detail(row: sqlite3.Row, now: datetime) -> wire.AttributeDetail:
    return wire.AttributeDetail(
        id=row["id"],
        entity=row["entity_id"],
        key=row["key"],
        value=row["value"],
        memory_category=row["memory_category"],
        importance=row["importance"],
        created_at=row["created_at"],
        valid_from=row["valid_from"],
        valid_until=shown_valid_until(row, now),
        supersedes=row["supersedes"],
        superseded_by=row["superseded_by"],
        source=wire.Source(
            kind="upsert",
            ref=row["turn_id"],
            session_id=row["session_id"],
            turn_at=row["turn_at"],
            valid_from=row["valid_from"],
            span=None,
            trust=UPSERT_TRUST,
            derived_from=[],
        ),
    )


def _relation_detail(row: sqlite3.Row) -> wire.RelationDetail:
    return wire.RelationDetail(
        id=row["id"], subject=row["subject"], object=row["object"], label=row["label"],
        memory_category=row["memory_category"], created_at=row["created_at"],
        valid_from=row["valid_from"], valid_until=row["valid_until"],
    )


def _entity_detail(rows: Iterable[sqlite3.Row]) -> wire.EntityDetail:
    first = min(rows, key=lambda r: r["created_at"])
    return wire.EntityDetail(
        id=first["id"], name=first["name"], entity_type=first["entity_type"],
        memory_category=first["memory_category"], importance=max(r["importance"] for r in rows),
        created_at=first["created_at"], updated_at=max(r["updated_at"] for r in rows),
    )


def _parse_as_of(raw: str | None) -> str | None:
    if raw is None:
        return None
    try:
        return format_time(parse_instant(raw))
    except (ValueError, OverflowError) as exc:  # year 1 at +14:00 is before year 1 in UTC
        raise ApiProblem(400, f"invalid asOf: {exc}") from None


def entity(con: sqlite3.Connection, context: str, principal: Principal, type_: str, name: str,
           query: Mapping[str, str], now: datetime) -> wire.EntityResponse:
    for unsupported in ("atInstant", "validFrom", "validUntil"):
        if unsupported in query:
            raise ApiProblem(400, f"the embedded engine does not support the {unsupported!r} filter; use asOf")
    as_of = _parse_as_of(query.get("asOf"))
    normal = norm.token(name)
    missing = ApiProblem(404, f"entity {norm.fold_type(type_)}/{name} not found")
    if normal is None:
        raise missing
    eid = norm.entity_id(norm.fold_type(type_), normal)
    entity_rows = [r for r in con.execute("SELECT * FROM entity WHERE context = ? AND id = ?", (context, eid))
                   if _readable(principal, r)]
    if as_of is not None:
        entity_rows = [r for r in entity_rows if r["created_at"] <= as_of]
    if not entity_rows:
        raise missing
    sql, args = (_CURRENT, (context, eid)) if as_of is None else (_AS_OF, (as_of, context, eid))
    attrs = [r for r in con.execute(sql, args) if _readable(principal, r) and not expired(r, now)]
    rels = [r for r in con.execute(_RELATIONS, (context, eid, context, eid)) if _readable(principal, r)]
    if as_of is None:
        rels = [r for r in rels if r["valid_until"] is None and not expired(r, now)]
    else:
        rels = [r for r in rels if r["created_at"] <= as_of
                and (r["valid_until"] is None or r["valid_until"] > as_of) and not expired(r, now)]
    return wire.EntityResponse(
        entity=_entity_detail(entity_rows),
        attributes=[attribute_detail(r, now) for r in attrs],
        relations=[_relation_detail(r) for r in rels],
    )


def history(con: sqlite3.Connection, context: str, principal: Principal, type_: str, name: str, key: str,
            now: datetime) -> wire.EntityHistoryResponse:
    normal_name, normal_key = norm.token(name), norm.token(key)
    if normal_name is None or normal_key is None:
        return wire.EntityHistoryResponse(history=[])
    eid = norm.entity_id(norm.fold_type(type_), normal_name)
    rows = con.execute(
        "SELECT * FROM attribute WHERE context = ? AND entity_id = ? AND key = ? ORDER BY created_at, seq",
        (context, eid, normal_key),
    )
    return wire.EntityHistoryResponse(
        history=[attribute_detail(r, now) for r in rows if _readable(principal, r)]
    )


def entities(con: sqlite3.Connection, context: str, principal: Principal, query: Mapping[str, str]) -> wire.EntityListResponse:
    if query.get("type"):
        rows = con.execute("SELECT * FROM entity WHERE context = ? AND entity_type = ? ORDER BY id, created_at",
                           (context, norm.fold_type(query["type"])))
    else:
        rows = con.execute("SELECT * FROM entity WHERE context = ? ORDER BY id, created_at", (context,))
    grouped: dict[str, list] = {}
    for row in rows:
        if _readable(principal, row):
            grouped.setdefault(row["id"], []).append(row)
    details = [_entity_detail(group) for group in grouped.values()][:MAX_ENTITIES]
    return wire.EntityListResponse(entities=details)
