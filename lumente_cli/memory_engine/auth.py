"""Who is calling, and what they may touch.

`auth=None` is trusted in-process use (the embedded default): every call acts
as the `local` principal with every grant, and no bearer is needed.

A `KeyRing` turns on bearer keys (served mode). Keys are stored as SHA-256
hashes in the engine's SQLite file, never in plain text:

* admin keys (`KeyRing(admin_keys=[...])`, or `ring.mint_admin_key()` once the
  engine is built) hold every verb over `/*` and work in every context;
* minted keys (`POST /{ctx}/keys`) belong to the minter's principal, are bound
  to that one context, and carry attenuated grants that must lie inside the
  minter's effective grants (else 400). A mint body without `grants` copies the
  caller's *effective* grants, so a narrow key can never mint a wider one.

Grant semantics (contract §4): `org/acme` covers that node only, `org/acme/*`
the node and its subtree, `/*` everything. Writes and forgets outside the
grant are 403; reads outside it come back empty (never 403).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from lumente_cli.agent_memory import wire
from lumente_cli.memory_engine import normalise as norm
from lumente_cli.memory_engine.errors import ApiProblem
from lumente_cli.memory_engine.ids import random_token
from lumente_cli.timeutil import format_time, parse_instant

if TYPE_CHECKING:
    from lumente_cli.memory_engine.database import Store

ALL_GRANTS: dict[str, list[str]] = {verb: ["/*"] for verb in norm.VERBS}
_LAST_USED_EVERY = timedelta(minutes=1)


@dataclass(frozen=True)
class Principal:
    id: str
    kind: str
    display_name: str
    grants: dict[str, list[str]]
    token_grants: dict[str, list[str]] | None = None
    key_id: str | None = None
    enforce: bool = True
    is_admin: bool = False

    @property
    def effective(self) -> dict[str, list[str]]:
        return self.token_grants if self.token_grants is not None else self.grants

    def can(self, verb: str, path: str) -> bool:
        return norm.covers(self.effective.get(verb, []), path)

    def can_all(self, verb: str, paths: Iterable[str]) -> bool:
        return all(self.can(verb, p) for p in paths)

    def can_subtree(self, verb: str, root: str) -> bool:
        return norm.covers_subtree(self.effective.get(verb, []), root)

    @property
    def manages_keys(self) -> bool:
        """Admins, and keys holding grant:manage, may list every key and mint and revoke them."""
        return self.is_admin or bool(self.effective.get("grant:manage"))

    @property
    def idempotency_owner(self) -> str:
        return f"key:{self.key_id}" if self.key_id else self.id

    def sees_node(self, path: str) -> bool:
        return any(norm.covers(patterns, path) for patterns in self.effective.values())

    def whoami(self) -> wire.Whoami:
        return wire.Whoami(
            principal_id=self.id,
            kind=self.kind,
            display_name=self.display_name,
            grants=self.grants,
            effective_grants=self.effective,
            enforce=self.enforce,
            token_grants=self.token_grants,
        )


LOCAL = Principal(id="local", kind="service", display_name="embedded (trusted, in-process)",
                  grants=ALL_GRANTS, enforce=False)


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _new_key() -> tuple[str, str]:
    key_id = random_token(12)
    return key_id, f"sp-{key_id}-{random_token(32, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}"


class KeyRing:
    """Bearer-key authentication for the served engine (see the module doc)."""

    def __init__(self, *, admin_keys: Iterable[str] = ()) -> None:
        self._admin_keys = tuple(admin_keys)
        self._store: Store | None = None
        self._clock = None

    def __repr__(self) -> str:  # never show key material
        return f"KeyRing(admin_keys=<{len(self._admin_keys)} hidden>)"

    def bind(self, store: Store, clock: Callable[[], datetime]) -> None:
        """Called by MemoryEngine: installs the configured admin keys."""
        self._store, self._clock = store, clock
        for secret in self._admin_keys:
            digest = _hash(secret)
            with store.write() as con:
                if con.execute("SELECT 1 FROM api_key WHERE secret_hash = ?", (digest,)).fetchone():
                    continue
                key_id = "adm" + digest[:9]
                con.execute(
                    """INSERT INTO api_key (id, context, name, secret_hash, principal_id,
                       principal_grants, token_grants, is_admin, created_at)
                       VALUES (?, NULL, ?, ?, 'admin', ?, NULL, 1, ?)""",
                    (key_id, f"admin-{key_id}", digest, json.dumps(ALL_GRANTS), format_time(clock())),
                )

    def mint_admin_key(self, name: str | None = None) -> str:
        """Create a new admin key and return it in plain text (shown once)."""
        if self._store is None:
            raise RuntimeError("pass the KeyRing to MemoryEngine before minting keys")
        key_id, secret = _new_key()
        with self._store.write() as con:
            con.execute(
                """INSERT INTO api_key (id, context, name, secret_hash, principal_id,
                   principal_grants, token_grants, is_admin, created_at)
                   VALUES (?, NULL, ?, ?, 'admin', ?, NULL, 1, ?)""",
                (key_id, name or f"admin-{key_id}", _hash(secret), json.dumps(ALL_GRANTS), format_time(self._clock())),
            )
        return secret

    def retire_other_admin_keys(self) -> int:
        """Delete every stored admin key except the ones this ring was given.

        `lumente memory serve` calls this at start, so the running server's
        admin key (from --api-key-file, or generated and shown once) is the
        only admin key: a key generated by an earlier run stops working instead
        of piling up, still valid, in the file. Minted keys are untouched."""
        if self._store is None:
            raise RuntimeError("pass the KeyRing to MemoryEngine first")
        keep = [_hash(secret) for secret in self._admin_keys]
        sql = "DELETE FROM api_key WHERE is_admin = 1"
        if keep:
            sql += f" AND secret_hash NOT IN ({','.join('?' * len(keep))})"
        with self._store.write() as con:
            return con.execute(sql, keep).rowcount

    # ------------------------------------------------------------ per request

    def authenticate(self, context: str, authorization: str | None, now: datetime) -> Principal:
        assert self._store is not None
        scheme, _, token = (authorization or "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise _unauthorized("missing bearer token (send Authorization: Bearer <key>)")
        with self._store.read() as con:
            row = con.execute("SELECT * FROM api_key WHERE secret_hash = ?", (_hash(token),)).fetchone()
        if row is None:
            raise _unauthorized("unknown API key")
        if row["context"] is not None and row["context"] != context:
            raise _unauthorized("this API key belongs to another context")
        if row["valid_until"] is not None and parse_instant(row["valid_until"]) <= now:
            raise _unauthorized("this API key has expired")
        last = row["last_used_at"]
        if last is None or parse_instant(last) + _LAST_USED_EVERY <= now:
            with self._store.write() as con:
                con.execute("UPDATE api_key SET last_used_at = ? WHERE id = ?", (format_time(now), row["id"]))
        token_grants = json.loads(row["token_grants"]) if row["token_grants"] else None
        return Principal(
            id=row["principal_id"],
            kind="service",
            display_name=row["name"],
            grants=json.loads(row["principal_grants"]),
            token_grants=token_grants,
            key_id=row["id"],
            is_admin=bool(row["is_admin"]),
        )

    def mint(self, context: str, caller: Principal, body: wire.MintKeyBody,
             ttl_seconds: int | None, now: datetime) -> wire.MintedKey:
        assert self._store is not None
        grants = _attenuate(caller, body.grants)
        key_id, secret = _new_key()
        name = (body.name or "").strip() or f"key-{key_id}"
        valid_until = format_time(now + timedelta(seconds=ttl_seconds)) if ttl_seconds is not None else None
        with self._store.write() as con:
            taken = con.execute(
                "SELECT 1 FROM api_key WHERE COALESCE(context, '') = ? AND name = ?", (context, name)
            ).fetchone()
            if taken:
                raise ApiProblem(409, f"a key named {name!r} already exists in this context")
            con.execute(
                """INSERT INTO api_key (id, context, name, secret_hash, principal_id,
                   principal_grants, token_grants, is_admin, created_at, valid_until)
                   VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)""",
                (key_id, context, name, _hash(secret), caller.id, json.dumps(caller.grants),
                 json.dumps(grants), format_time(now), valid_until),
            )
        return wire.MintedKey(key=secret, id=key_id, valid_until=valid_until)

    def list_keys(self, context: str, caller: Principal) -> list[wire.KeyDetail]:
        """A manager sees the principal's keys in this context; any other key sees only itself."""
        assert self._store is not None
        with self._store.read() as con:
            if caller.manages_keys:
                rows = con.execute(
                    """SELECT * FROM api_key WHERE principal_id = ? AND (context = ? OR context IS NULL)
                       ORDER BY created_at, id""",
                    (caller.id, context),
                ).fetchall()
            else:
                rows = con.execute("SELECT * FROM api_key WHERE id = ?", (caller.key_id,)).fetchall()
        return [
            wire.KeyDetail(
                id=r["id"], name=r["name"], created_at=r["created_at"],
                grants=json.loads(r["token_grants"]) if r["token_grants"] else None,
                last_used_at=r["last_used_at"], valid_until=r["valid_until"],
            )
            for r in rows
        ]


    def revoke(self, context: str, caller: Principal, key_id: str) -> None:
        """A manager revokes any minted key of its principal in this context; any key may
        revoke itself. Admin keys are retired by restarting the server with another key."""
        assert self._store is not None
        with self._store.write() as con:
            row = con.execute("SELECT * FROM api_key WHERE id = ?", (key_id,)).fetchone()
            own = caller.key_id == key_id
            visible = row is not None and (own or (
                caller.manages_keys and row["principal_id"] == caller.id and row["context"] in (context, None)))
            if not visible:
                raise ApiProblem(404, f"no key {key_id!r} that this key may revoke")
            if row["is_admin"]:
                raise ApiProblem(400, "an admin key is not revoked here: restart the server with another key")
            con.execute("DELETE FROM api_key WHERE id = ?", (key_id,))


def _attenuate(caller: Principal, requested: dict[str, list[str]] | None) -> dict[str, list[str]]:
    held = caller.effective
    if requested is None:
        return {verb: list(patterns) for verb, patterns in held.items()}
    out: dict[str, list[str]] = {}
    for verb, patterns in requested.items():
        if verb not in norm.VERBS:
            raise ApiProblem(400, f"unknown grant verb {verb!r} (known: {', '.join(norm.VERBS)})")
        for raw in patterns:
            try:
                norm.pattern(raw)
            except ValueError as exc:
                raise ApiProblem(400, str(exc)) from None
            if not norm.pattern_within(raw, held.get(verb, [])):
                raise ApiProblem(400, f"grant {verb} {raw!r} would widen the calling key's grants")
        out[verb] = list(patterns)
    return out


def _unauthorized(detail: str) -> ApiProblem:
    return ApiProblem(401, detail, headers={"WWW-Authenticate": 'Bearer realm="agent-memory"'})
