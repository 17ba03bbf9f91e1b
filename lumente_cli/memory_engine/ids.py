"""Record ids that look like SurrealDB record ids: `attribute:` + 20 characters
from [a-z0-9] (contract §11.12). Clients must treat them as opaque."""

from __future__ import annotations

import secrets
import string

_ALPHABET = string.ascii_lowercase + string.digits


def random_token(length: int = 20, alphabet: str = _ALPHABET) -> str:
    """`length` characters drawn uniformly from `alphabet` (rejection sampling
    over random bytes: one system call, not one per character)."""
    size = len(alphabet)
    limit = 256 - 256 % size
    out: list[str] = []
    while len(out) < length:
        out += [alphabet[b % size] for b in secrets.token_bytes(length + 8) if b < limit]
    return "".join(out[:length])


def new_id(table: str) -> str:
    return f"{table}:{random_token()}"


def trace_id() -> str:
    return "req_" + random_token(24)
