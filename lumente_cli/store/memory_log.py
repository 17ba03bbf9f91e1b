"""Lumente's own log of memory: which facts each agent call was given (read
counts), and every fact queued for the memory service (the outbox)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lumente_cli.sqlite_tx import write_tx
from lumente_cli.store.readonly import count_reads
from lumente_cli.timeutil import now


@dataclass(frozen=True)
class OutboxFact:
    """One memory write as the outbox keeps it: the request body to send, under the
    Idempotency-Key that makes sending it again harmless."""

    idempotency_key: str
    scope: str
    session_id: str | None
    entity: str
    key: str  # the fact's key, e.g. `level_coordinate`
    body: dict[str, Any]  # the `/facts` request body, as JSON


@dataclass(frozen=True)
class PendingFact(OutboxFact):
    """A queued fact not delivered yet, and how many deliveries of it have failed."""

    attempts: int = 0


class MemoryLog:
    """Methods on `self.con` for the read counts and the outbox."""

    con: sqlite3.Connection

    # agent calls (read counts) ---------------------------------------------------

    def record_agent_call(
        self,
        session_id: str | None,
        agent: str,
        provider: str,
        *,
        scope: str | None,
        facts_given: Iterable[str],
        cites_kept: Sequence[str] = (),
        cites_dropped: Sequence[str] = (),
    ) -> None:
        with write_tx(self.con):
            cur = self.con.execute(
                """INSERT INTO agent_call(session_id, agent, provider, scope, cites_kept, cites_dropped, at)
                   VALUES (?, ?, ?, ?, ?, ?, ?)""",
                (session_id, agent, provider, scope, json.dumps(list(cites_kept)), json.dumps(list(cites_dropped)), now()),
            )
            self.con.executemany(
                "INSERT OR IGNORE INTO agent_call_fact(call_id, fact_id) VALUES (?, ?)",
                [(cur.lastrowid, fid) for fid in facts_given],
            )

    def read_counts(self, fact_ids: Iterable[str]) -> dict[str, int]:
        return count_reads(self.con, fact_ids)

    # memory facts: queue, outbox, delivery log -------------------------------------

    def queue_facts(self, facts: Iterable[OutboxFact]) -> int:
        """Queue facts for delivery; a key already queued is kept as is. Returns how many were added."""
        stamp = now()
        with write_tx(self.con):
            before = self.con.total_changes
            self.con.executemany(
                """INSERT OR IGNORE INTO memory_fact(idempotency_key, scope, session_id, entity, key, body, queued_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?)""",
                [(f.idempotency_key, f.scope, f.session_id, f.entity, f.key, json.dumps(f.body, sort_keys=True), stamp)
                 for f in facts],
            )
            return self.con.total_changes - before

    def pending_facts(self, scope: str | None = None) -> list[PendingFact]:
        sql = "SELECT * FROM memory_fact WHERE delivered_at IS NULL"
        args: list[Any] = []
        if scope is not None:
            sql += " AND scope = ?"
            args.append(scope)
        rows = self.con.execute(sql + " ORDER BY queued_at, rowid", args).fetchall()
        return [
            PendingFact(idempotency_key=r["idempotency_key"], scope=r["scope"], session_id=r["session_id"],
                        entity=r["entity"], key=r["key"], body=json.loads(r["body"]), attempts=int(r["attempts"]))
            for r in rows
        ]

    def count_pending(self, scope: str | None = None) -> int:
        sql = "SELECT COUNT(*) FROM memory_fact WHERE delivered_at IS NULL"
        args: list[Any] = []
        if scope is not None:
            sql += " AND scope = ?"
            args.append(scope)
        return int(self.con.execute(sql, args).fetchone()[0])

    def mark_delivered(self, idempotency_key: str, fact_id: str | None) -> None:
        with write_tx(self.con):
            self.con.execute(
                """UPDATE memory_fact SET delivered_at = ?, fact_id = ?, attempts = attempts + 1, last_error = NULL
                   WHERE idempotency_key = ?""",
                (now(), fact_id, idempotency_key),
            )

    def mark_failed(self, idempotency_key: str, error: str) -> None:
        with write_tx(self.con):
            self.con.execute(
                "UPDATE memory_fact SET attempts = attempts + 1, last_error = ? WHERE idempotency_key = ?",
                (error[:500], idempotency_key),
            )

    def fact_ids_of_session(self, session_id: str) -> set[str]:
        rows = self.con.execute(
            "SELECT fact_id FROM memory_fact WHERE session_id = ? AND fact_id IS NOT NULL", (session_id,)
        ).fetchall()
        return {r["fact_id"] for r in rows}

    def has_fact_key(self, scope: str, entity: str, key: str) -> bool:
        """Whether Lumente already wrote (or queued) this key for this entity since the last forget."""
        row = self.con.execute(
            "SELECT 1 FROM memory_fact WHERE scope = ? AND entity = ? AND key = ? LIMIT 1", (scope, entity, key)
        ).fetchone()
        return row is not None

    def forget_scope(self, scope: str) -> dict[str, int]:
        """Clear every local cache tied to a memory scope: the outbox, the delivery log, read counts."""
        with write_tx(self.con):
            pending = self.con.execute(
                "SELECT COUNT(*) FROM memory_fact WHERE scope = ? AND delivered_at IS NULL", (scope,)
            ).fetchone()[0]
            facts = self.con.execute("DELETE FROM memory_fact WHERE scope = ?", (scope,)).rowcount
            reads = self.con.execute(
                "DELETE FROM agent_call_fact WHERE call_id IN (SELECT id FROM agent_call WHERE scope = ?)", (scope,)
            ).rowcount
        return {"outbox": int(pending), "fact_log": int(facts), "read_counts": int(reads)}
