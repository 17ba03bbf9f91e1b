"""Scope routes (contract §4, §11.9).

* `POST /scopes` → 201 with the canonical node. Missing ancestors (and the
  root `/`) are created too. Registering a path that already exists is not an
  error: 201 with the existing node (its `createdAt` unchanged); if the node or
  an ancestor was tombstoned, registering brings it back.
* `GET /scopes` → a bare array of every node the caller has any grant over,
  tombstoned ones included.
* `DELETE /scopes?path=` → 204; sets `tombstonedAt` only, data untouched.
  Writes to a tombstoned node (or below one) are refused with 400.
* `POST /scopes/forget` → `{"forgotten": N}`: hard-deletes every attribute,
  relation, entity, session and turn row whose scope touches the subtree, and
  N counts them all. Stored idempotency replays for those writes are dropped
  too (not counted: they are a cache, not memory). Scope nodes stay
  registered, so the learner can be written to again without re-registering.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from lumente_cli.agent_memory import wire
from lumente_cli.memory_engine import normalise as norm
from lumente_cli.memory_engine.auth import Principal
from lumente_cli.memory_engine.errors import ApiProblem
from lumente_cli.memory_engine.database import Store
from lumente_cli.timeutil import format_time

FORGET_TABLES = ("attribute", "relation", "entity", "turn", "session")


def _path(raw: str | None, what: str = "path") -> str:
    if raw is None or not str(raw).strip():
        raise ApiProblem(400, f"missing scope {what}")
    try:
        return norm.scope_path(str(raw))
    except ValueError as exc:
        raise ApiProblem(400, str(exc)) from None


def _node(row: sqlite3.Row) -> wire.ScopeNode:
    return wire.ScopeNode(path=row["path"], created_at=row["created_at"], tombstoned_at=row["tombstoned_at"])


def register(store: Store, context: str, principal: Principal, body: wire.RegisterScopeRequest,
             now: datetime) -> wire.ScopeNode:
    path = _path(body.path)
    if not principal.can("scope:create", path):
        raise ApiProblem(403, f"this key may not register scope {path!r} (no scope:create grant over it)")
    with store.write() as con:
        for node in norm.ancestors(path):
            con.execute(
                "INSERT OR IGNORE INTO scope_node (context, path, created_at) VALUES (?, ?, ?)",
                (context, node, format_time(now)),
            )
            con.execute(
                "UPDATE scope_node SET tombstoned_at = NULL WHERE context = ? AND path = ?", (context, node)
            )
        if body.display_name is not None or body.description is not None:
            con.execute(
                """UPDATE scope_node SET display_name = COALESCE(?, display_name),
                   description = COALESCE(?, description) WHERE context = ? AND path = ?""",
                (body.display_name, body.description, context, path),
            )
        row = con.execute("SELECT * FROM scope_node WHERE context = ? AND path = ?", (context, path)).fetchone()
    return _node(row)


def list_nodes(store: Store, context: str, principal: Principal) -> list[wire.ScopeNode]:
    with store.read() as con:
        rows = con.execute("SELECT * FROM scope_node WHERE context = ? ORDER BY path", (context,)).fetchall()
    return [_node(r) for r in rows if principal.sees_node(r["path"])]


def tombstone(store: Store, context: str, principal: Principal, raw: str | None, now: datetime) -> None:
    path = _path(raw)
    if path == norm.ROOT:
        raise ApiProblem(400, "the root scope '/' cannot be deleted")
    if not principal.can("scope:delete", path):
        raise ApiProblem(403, f"this key may not delete scope {path!r} (no scope:delete grant over it)")
    with store.write() as con:
        cur = con.execute(
            "UPDATE scope_node SET tombstoned_at = COALESCE(tombstoned_at, ?) WHERE context = ? AND path = ?",
            (format_time(now), context, path),
        )
        if cur.rowcount == 0:
            raise ApiProblem(404, f"scope {path!r} is not registered")


def forget(store: Store, context: str, principal: Principal, body: wire.ScopeForgetRequest) -> wire.ForgetScopeResponse:
    path = _path(body.path)
    if not principal.can_subtree("memory:forget", path):
        raise ApiProblem(403, f"this key may not forget scope {path!r} (no memory:forget grant over its subtree)")
    forgotten = 0
    with store.write() as con:
        for table in FORGET_TABLES:
            cur = con.execute(f"DELETE FROM {table} WHERE context = ? AND scope_touches(scope, ?)", (context, path))
            forgotten += cur.rowcount
        con.execute("DELETE FROM idempotency WHERE context = ? AND scope_touches(scope, ?)", (context, path))
    return wire.ForgetScopeResponse(forgotten=forgotten)
