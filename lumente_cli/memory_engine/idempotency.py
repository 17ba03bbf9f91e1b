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
* a write that fails releases its claim, so a retry runs again;
* a claim whose process has died (killed mid-write: the claim committed, the
  write did not) stops blocking at once rather than after its lease: each
  claim names its owner (host, pid, process start time), and a claim owned by
  a process on this host that no longer runs is taken over. Owners on another
  host, or where this cannot be checked, keep the 30-second lease.

The body hash is SHA-256 over the canonical JSON of the body (sorted keys), so
key order and whitespace do not matter.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from lumente_cli.memory_engine.errors import ApiProblem
from lumente_cli.memory_engine.ids import random_token
from lumente_cli.memory_engine.database import Store

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


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()  # after "pid (comm) "
    if len(fields) < 20 or fields[0] in ("Z", "X"):  # a zombie has finished running
        return None
    return fields[19]


_OWNER: tuple[int, str] | None = None


def owner() -> str:
    """This process, as a claim records it: `pid|start|host`."""
    global _OWNER
    pid = os.getpid()
    if _OWNER is None or _OWNER[0] != pid:  # computed once per process (and again after a fork)
        _OWNER = (pid, f"{pid}|{_start_time(pid) or '-'}|{socket.gethostname()}")
    return _OWNER[1]


def claimant_gone(token: str) -> bool:
    """True only when the claim's owner certainly no longer runs."""
    parts = token.split("|", 3)
    if len(parts) != 4 or parts[3] != socket.gethostname() or not parts[1].isdigit():
        return False  # another host, or an old token: trust the lease
    pid, started = int(parts[1]), parts[2]
    if pid == os.getpid():
        return False  # this process: another of its threads is writing
    if started != "-":
        return _start_time(pid) != started  # gone, a zombie, or a new process on a reused pid
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def claim(store: Store, context: str, principal: str, key: str, digest: str, now: datetime) -> Claim | Replay:
    at = now.timestamp()
    token = f"{random_token(16)}|{owner()}"
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
        if row is not None and row["lease_until"] > at and not claimant_gone(row["token"]):
            raise ApiProblem(409, "a request with this Idempotency-Key is still being processed")
        con.execute(
            """INSERT OR REPLACE INTO idempotency
               (context, principal, key, body_hash, state, token, created_at, lease_until)
               VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)""",
            (context, principal, key, digest, token, at, at + LEASE.total_seconds()),
        )
    return Claim(context, principal, key, token)


def complete(con: sqlite3.Connection, held: Claim, status: int, body: bytes, scope: str) -> None:
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
