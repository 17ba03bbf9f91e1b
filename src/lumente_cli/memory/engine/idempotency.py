"""Idempotency-Key for `POST /facts` (contract §1.4, §11.8).

Records are keyed (context, principal, key) and live 24 hours. A request
first *claims* its key in a short transaction (a `pending` row with a lease);
the write then runs in its own transaction and *completes* the claim in that
same transaction, storing the status and body. So a crash can never leave
facts without their record or a record without its facts: it can only leave
a pending claim, which stops blocking once its lease runs out.

* same key, same body, completed within 24 h → the stored response, no write;
* same key, different body → 409;
* same key while the first request is still in flight (claim not expired) → 409;
* a write that fails releases its claim, so a retry runs again.

The body hash is SHA-256 over the canonical JSON of the body (sorted keys), so
key order and whitespace do not matter.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from lumente_cli.memory.engine.errors import ApiProblem
from lumente_cli.memory.engine.ids import random_token
from lumente_cli.memory.engine.store import Store

WINDOW = timedelta(hours=24)
LEASE = timedelta(seconds=30)
_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")


@dataclass(frozen=True)
class Claim:
    context: str
    principal: str
    key: str
    token: str


@dataclass(frozen=True)
class Replay:
    status: int
    body: bytes


def check_key(key: str) -> str:
    if not _KEY.match(key):
        raise ApiProblem(400, "Idempotency-Key must be 1 to 255 printable ASCII characters without spaces")
    return key


def body_hash(body: Any) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def claim(store: Store, context: str, principal: str, key: str, digest: str, now: datetime) -> Claim | Replay:
    at = now.timestamp()
    token = random_token(16)
    with store.write() as con:
        con.execute(
            "DELETE FROM idempotency WHERE context = ? AND created_at < ?",
            (context, at - WINDOW.total_seconds()),
        )
        row = con.execute(
            "SELECT * FROM idempotency WHERE context = ? AND principal = ? AND key = ?",
            (context, principal, key),
        ).fetchone()
        if row is not None and row["state"] == "done":
            if row["body_hash"] != digest:
                raise ApiProblem(
                    409, "this Idempotency-Key was already used with a different request body"
                )
            return Replay(row["status"], bytes(row["response"]))
        if row is not None and row["lease_until"] > at:
            raise ApiProblem(409, "a request with this Idempotency-Key is still being processed")
        con.execute(
            """INSERT OR REPLACE INTO idempotency
               (context, principal, key, body_hash, state, token, created_at, lease_until)
               VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)""",
            (context, principal, key, digest, token, at, at + LEASE.total_seconds()),
        )
    return Claim(context, principal, key, token)


def complete(con, held: Claim, status: int, body: bytes, scope: str) -> None:
    """Store the response; call inside the transaction that wrote the facts."""
    cur = con.execute(
        """UPDATE idempotency SET state = 'done', status = ?, response = ?, scope = ?, lease_until = NULL
           WHERE context = ? AND principal = ? AND key = ? AND token = ? AND state = 'pending'""",
        (status, body, scope, held.context, held.principal, held.key, held.token),
    )
    if cur.rowcount != 1:  # our lease ran out and another request took the key over
        raise ApiProblem(409, "this Idempotency-Key was taken over by another request; retry")


def release(store: Store, held: Claim) -> None:
    with store.write() as con:
        con.execute(
            """DELETE FROM idempotency
               WHERE context = ? AND principal = ? AND key = ? AND token = ? AND state = 'pending'""",
            (held.context, held.principal, held.key, held.token),
        )
