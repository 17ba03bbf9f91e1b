"""Entity reads (contract §3, §11.5, §11.6).

* `GET /entities/{type}/{name}`: the current view — rows with no `validUntil`
  (and not lapsed by the `context` TTL). With `asOf`, per chain (key, scope)
  the row with the greatest `createdAt` ≤ asOf (ties: the later write). An
  entity with no visible row at or before asOf is 404.
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

import json
import sqlite3
from datetime import datetime

from lumente_cli.memory import wire
from lumente_cli.memory.engine import normalise as norm
from lumente_cli.memory.engine.auth import Principal
from lumente_cli.memory.engine.errors import ApiProblem
from lumente_cli.memory.engine.lifecycle import expired, shown_valid_until
from lumente_cli.memory.engine.timefmt import fmt, parse

UPSERT_TRUST = 0.95
MAX_ENTITIES = 500


def _readable(principal: Principal, row) -> bool:
    return principal.can_all("memory:read", json.loads(row["scope"]))


def attribute_detail(row, now: datetime) -> wire.AttributeDetail:
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


def _relation_detail(row) -> wire.RelationDetail:
    return wire.RelationDetail(
        id=row["id"], subject=row["subject"], object=row["object"], label=row["label"],
        memory_category=row["memory_category"], created_at=row["created_at"],
        valid_from=row["valid_from"], valid_until=row["valid_until"],
    )


def _entity_detail(rows) -> wire.EntityDetail:
    first = min(rows, key=lambda r: r["created_at"])
    return wire.EntityDetail(
        id=first["id"], name=first["name"], entity_type=first["entity_type"],
        memory_category=first["memory_category"], importance=max(r["importance"] for r in rows),
        created_at=first["created_at"], updated_at=max(r["updated_at"] for r in rows),
    )


def _as_of(rows, moment: str, now: datetime) -> list:
    """Per chain, the row that was current at `moment` (known time)."""
    best: dict[tuple[str, str], sqlite3.Row] = {}
    for row in rows:  # ordered by (created_at, seq), so a later write wins a tie
        if row["created_at"] <= moment:
            best[(row["key"], row["scope"])] = row
    return [r for r in best.values() if not expired(r, now)]


def _parse_as_of(raw: str | None) -> str | None:
    if raw is None:
        return None
    try:
        return fmt(parse(raw))
    except ValueError as exc:
        raise ApiProblem(400, f"invalid asOf: {exc}") from None


def entity(con: sqlite3.Connection, context: str, principal: Principal, type_: str, name: str,
           query, now: datetime) -> wire.EntityResponse:
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
    open_only = "AND valid_until IS NULL" if as_of is None else ""  # the current view needs no closed rows
    attrs = [r for r in con.execute(
        f"SELECT * FROM attribute WHERE context = ? AND entity_id = ? {open_only} ORDER BY created_at, seq",
        (context, eid),
    ) if _readable(principal, r)]
    rels = [r for r in con.execute(
        "SELECT * FROM relation WHERE context = ? AND (subject = ? OR object = ?) ORDER BY created_at, seq",
        (context, eid, eid),
    ) if _readable(principal, r)]
    if as_of is None:
        attrs = [r for r in attrs if r["valid_until"] is None and not expired(r, now)]
        rels = [r for r in rels if r["valid_until"] is None and not expired(r, now)]
    else:
        attrs = _as_of(attrs, as_of, now)
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


def entities(con: sqlite3.Connection, context: str, principal: Principal, query) -> wire.EntityListResponse:
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
