"""`POST /{ctx}/facts`: triples in, supersession chains out (contract §2, §11.4).

The embedded engine only stores triples (`infer: "triples"`); every other
mode needs an LLM and is answered with a 400 that says so.

For each triple with a `value`, the chain is (entity, key, scope):
* no open row → a new row (`validFrom` = T);
* open row with the same value → nothing is written; the existing id is
  returned in `extraction.attributes` (the value "folds into" the state);
* open row with another value → a new row with `supersedes` = old id and
  `validFrom` = T; the old row gets `validUntil` = T and `supersededBy` = new
  id (its only mutation), and `corrections[]` reports old and new value.

T is the write's known time: `observed_at` when given, else now. `createdAt`
of the new row is that known time too. If a back-dated write lands before the
open row's own `validFrom`, T is clamped to it so no interval runs backwards.

Triples without a `value` but with a `target` are relations; an identical
open relation in the same scope is not written twice.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime

from lumente_cli.agent_memory import wire
from lumente_cli.memory_engine import normalise as norm
from lumente_cli.memory_engine.auth import Principal
from lumente_cli.memory_engine.errors import ApiProblem
from lumente_cli.memory_engine.ids import new_id
from lumente_cli.memory_engine.lifecycle import expired
from lumente_cli.timeutil import format_time, parse_instant

DEFAULT_CATEGORY = "knowledge"
DEFAULT_ROLE = "user"
IMPORTANCE = 1.0


@dataclass(frozen=True)
class EntityRef:
    type: str
    name: str

    @property
    def id(self) -> str:
        return norm.entity_id(self.type, self.name)


@dataclass(frozen=True)
class PlannedTriple:
    entity: EntityRef
    key: str
    value: str | None
    target: EntityRef | None
    category: str


@dataclass(frozen=True)
class Plan:
    paths: list[str]
    scope: str
    triples: list[PlannedTriple]
    session_id: str | None
    role: str
    text: str
    labels: list[str]
    observed_at: datetime | None


def _entity(raw: wire.TripleEntity, where: str) -> EntityRef:
    name = norm.token(raw.name)
    if name is None:
        raise ApiProblem(
            400, f"{where}.name {raw.name!r} is not a valid entity name: after lower-casing and "
            "turning '.' and spaces into '_', it must match [a-z0-9_]+"
        )
    return EntityRef(norm.fold_type(raw.type), name)


def plan(request: wire.FactsRequest) -> Plan:
    """Check and normalise a request without touching the store."""
    if request.infer != "triples":
        raise ApiProblem(
            400, f"infer {request.infer!r} is not supported: the embedded engine runs no model and "
            "only stores triples; send \"infer\": \"triples\" with a \"triples\" list"
        )
    if not request.triples:
        raise ApiProblem(400, "infer \"triples\" needs at least one triple in \"triples\"")
    if request.scopes is not None and request.scope is not None:
        raise ApiProblem(400, "send either \"scopes\" or the legacy \"scope\", not both")
    paths: list[str] = []
    for raw in request.scope_paths():
        try:
            path = norm.scope_path(raw)
        except ValueError as exc:
            raise ApiProblem(400, str(exc)) from None
        if path not in paths:
            paths.append(path)
    paths = paths or [norm.ROOT]  # the default write region
    if len(request.triples) > MAX_TRIPLES:
        raise ApiProblem(400, f"at most {MAX_TRIPLES} triples per request (got {len(request.triples)}); "
                              "send more requests")
    triples = []
    for i, t in enumerate(request.triples):
        where = f"triples[{i}]"
        key = norm.token(t.key)
        if key is None:
            raise ApiProblem(
                400, f"{where}.key {t.key!r} is not a valid key: after lower-casing and turning "
                "'.' and spaces into '_', it must match [a-z0-9_]+"
            )
        if t.value is None and t.target is None:
            raise ApiProblem(400, f"{where} needs a \"value\" (attribute) or a \"target\" (relation)")
        triples.append(PlannedTriple(
            entity=_entity(t.entity, f"{where}.entity"),
            key=key,
            value=t.value,
            target=_entity(t.target, f"{where}.target") if t.value is None and t.target else None,
            category=request.memory_category or t.memory_category or DEFAULT_CATEGORY,
        ))
    return Plan(
        paths=paths,
        scope=norm.scope_json(paths),
        triples=triples,
        session_id=request.session_id,
        role=request.role or DEFAULT_ROLE,
        text=request.text or "",
        labels=list(request.labels),
        observed_at=_observed(request.observed_at) if request.observed_at else None,
    )


# One request holds one write's triples; a body of thousands held the write lock long
# enough to stall every other writer. Lumente itself sends one triple per request.
MAX_TRIPLES = 100
_EARLIEST, _LATEST = 1970, 2200


def _observed(text: str) -> datetime:
    try:
        moment = parse_instant(text)
    except (ValueError, OverflowError):
        raise ApiProblem(400, f"observed_at {text[:40]!r} is not an RFC 3339 time with a zone") from None
    if not _EARLIEST <= moment.year <= _LATEST:
        raise ApiProblem(400, f"observed_at {text[:40]!r} is outside {_EARLIEST}-{_LATEST}")
    return moment


def authorise(principal: Principal, p: Plan) -> None:
    for path in p.paths:
        if not principal.can("memory:write", path):
            raise ApiProblem(403, f"this key may not write to scope {path!r} (no memory:write grant over it)")


def check_registered(con: sqlite3.Connection, context: str, paths: list[str]) -> None:
    """Writes may only target live, registered scope paths (the root always exists)."""
    for path in paths:
        if path == norm.ROOT:
            continue
        for node in norm.ancestors(path)[1:]:
            row = con.execute(
                "SELECT tombstoned_at FROM scope_node WHERE context = ? AND path = ?", (context, node)
            ).fetchone()
            if row is None:
                raise ApiProblem(
                    400, f"scope {path!r} is not registered; register it with POST /scopes before writing to it"
                )
            if row["tombstoned_at"] is not None:
                raise ApiProblem(400, f"scope {node!r} was deleted (tombstoned); register it again to write to it")


def apply(con: sqlite3.Connection, context: str, p: Plan, now: datetime) -> wire.FactsResponse:
    """Write one request inside the caller's transaction."""
    check_registered(con, context, p.paths)
    known = p.observed_at or now
    at = format_time(known)
    if p.session_id is not None:
        if not con.execute("SELECT 1 FROM session WHERE context = ? AND id = ?", (context, p.session_id)).fetchone():
            raise ApiProblem(400, f"unknown session_id {p.session_id!r}")
        session_id = p.session_id
    else:
        session_id = new_id("session")
        con.execute("INSERT INTO session (context, id, scope, created_at) VALUES (?, ?, ?, ?)",
                    (context, session_id, p.scope, at))
    seq = con.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM turn WHERE context = ? AND session_id = ?",
                      (context, session_id)).fetchone()[0]
    turn_id = new_id("turn")
    con.execute(
        """INSERT INTO turn (context, id, session_id, role, content, labels, seq, scope, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (context, turn_id, session_id, p.role, p.text, json.dumps(p.labels), seq, p.scope, at),
    )
    w = _Writer(con, context, p.scope, session_id, turn_id, known, now)
    for t in p.triples:
        w.entity(t.entity, t.category)
        if t.value is not None:
            w.attribute(t)
        else:
            assert t.target is not None
            w.entity(t.target, t.category)
            w.relation(t)
    return wire.FactsResponse(
        mode="triples",
        session_id=session_id,
        turn_id=turn_id,
        extraction=wire.ExtractionResult(
            turn_id=turn_id,
            entities=list(w.entities.values()),
            attributes=w.attributes,
            relations=w.relations,
            instructions=[],
            uncertainties=[],
            corrections=w.corrections,
        ),
    )


class _Writer:
    def __init__(self, con: sqlite3.Connection, context: str, scope: str, session_id: str, turn_id: str,
                 known: datetime, now: datetime) -> None:
        self.con, self.context, self.scope = con, context, scope
        self.session_id, self.turn_id = session_id, turn_id
        self.known, self.at, self.now = known, format_time(known), now
        self.entities: dict[str, wire.EntitySummary] = {}
        self.attributes: list[wire.AttributeSummary] = []
        self.relations: list[wire.RelationSummary] = []
        self.corrections: list[wire.CorrectionSummary] = []

    def entity(self, ref: EntityRef, category: str) -> None:
        row = self.con.execute(
            "SELECT created_at, updated_at FROM entity WHERE context = ? AND id = ? AND scope = ?",
            (self.context, ref.id, self.scope),
        ).fetchone()
        if row is None:
            self.con.execute(
                """INSERT INTO entity (context, id, scope, entity_type, name, memory_category,
                   importance, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (self.context, ref.id, self.scope, ref.type, ref.name, category, IMPORTANCE, self.at, self.at),
            )
        else:
            self.con.execute(
                """UPDATE entity SET created_at = MIN(created_at, ?), updated_at = MAX(updated_at, ?)
                   WHERE context = ? AND id = ? AND scope = ?""",
                (self.at, self.at, self.context, ref.id, self.scope),
            )
        if ref.id not in self.entities:
            self.entities[ref.id] = wire.EntitySummary(
                id=ref.id, name=ref.name, entity_type=ref.type, memory_category=category, is_new=row is None
            )

    def attribute(self, t: PlannedTriple) -> None:
        assert t.value is not None
        eid = t.entity.id
        old = self.con.execute(
            """SELECT * FROM attribute WHERE context = ? AND entity_id = ? AND key = ? AND scope = ?
               AND valid_until IS NULL""",
            (self.context, eid, t.key, self.scope),
        ).fetchone()
        if old is not None and old["value"] == t.value and not expired(old, self.now):
            self.attributes.append(wire.AttributeSummary(
                id=old["id"], entity_id=eid, key=t.key, value=old["value"], memory_category=old["memory_category"]
            ))
            return
        new = new_id("attribute")
        valid_from = self.at
        if old is not None:
            valid_from = format_time(max(self.known, parse_instant(old["valid_from"])))
            self.con.execute("UPDATE attribute SET valid_until = ?, superseded_by = ? WHERE id = ?",
                             (valid_from, new, old["id"]))
            if old["value"] != t.value:
                self.corrections.append(wire.CorrectionSummary(
                    entity_id=eid, key=t.key, old_value=old["value"], new_value=t.value
                ))
        self.con.execute(
            """INSERT INTO attribute (context, id, entity_id, key, value, memory_category, importance,
               created_at, valid_from, valid_until, supersedes, superseded_by, scope,
               session_id, turn_id, turn_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, NULL, ?, ?, ?, ?)""",
            (self.context, new, eid, t.key, t.value, t.category, IMPORTANCE, self.at, valid_from,
             old["id"] if old is not None else None, self.scope, self.session_id, self.turn_id, self.at),
        )
        self.attributes.append(wire.AttributeSummary(
            id=new, entity_id=eid, key=t.key, value=t.value, memory_category=t.category
        ))

    def relation(self, t: PlannedTriple) -> None:
        assert t.target is not None
        subject, obj = t.entity.id, t.target.id
        same = self.con.execute(
            """SELECT 1 FROM relation WHERE context = ? AND subject = ? AND label = ? AND object = ?
               AND scope = ? AND valid_until IS NULL""",
            (self.context, subject, t.key, obj, self.scope),
        ).fetchone()
        if same is None:
            self.con.execute(
                """INSERT INTO relation (context, id, subject, label, object, memory_category, importance,
                   created_at, valid_from, valid_until, scope, session_id, turn_id, turn_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)""",
                (self.context, new_id("relation"), subject, t.key, obj, t.category, IMPORTANCE,
                 self.at, self.at, self.scope, self.session_id, self.turn_id, self.at),
            )
        self.relations.append(wire.RelationSummary(
            subject=subject, label=t.key, object=obj, memory_category=t.category
        ))
