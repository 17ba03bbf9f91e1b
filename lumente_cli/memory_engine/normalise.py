"""Identity rules: entity types, names, keys, scope paths and grant patterns.

* Keys and entity names: trim, lower-case, `.` → `_`, space → `_`; the result
  must match `[a-z0-9_]+` (at most 128 characters). The service publishes no
  rule beyond the `.` → `_` seen live (contract §9.1, §12.12); this one keeps
  Lumente's own keys unchanged.
* Entity types fold into the closed set of contract §2.3; unknown → `other`.
* Scope paths are canonical with a trailing `/` (`learner/p_7f3a/`); the root
  is `/`. Segments use `[A-Za-z0-9_.=-]`; `*` only appears in grant patterns.
"""

from __future__ import annotations

import json
import re

ENTITY_TYPES = frozenset(
    {"person", "organisation", "project", "location", "topic", "product",
     "policy", "concept", "event", "agent", "service", "other"}
)
TYPE_SYNONYMS = {
    "company": "organisation", "org": "organisation", "organization": "organisation",
    "corporation": "organisation", "business": "organisation",
    "human": "person", "individual": "person", "people": "person",
    "place": "location", "city": "location", "country": "location",
}

_TOKEN = re.compile(r"^[a-z0-9_]{1,128}$")
_SEGMENT = re.compile(r"^[A-Za-z0-9_.=-]{1,64}$")
MAX_DEPTH = 16
ROOT = "/"


def token(raw: str) -> str | None:
    """A normalised key or entity name, or None if it cannot be one."""
    text = raw.strip().lower().replace(".", "_").replace(" ", "_")
    return text if _TOKEN.match(text) else None


def fold_type(raw: str) -> str:
    text = raw.strip().lower()
    if text in ENTITY_TYPES:
        return text
    return TYPE_SYNONYMS.get(text, "other")


def entity_id(entity_type: str, name: str) -> str:
    return f"entity:{entity_type}/{name}"


def scope_path(raw: str) -> str:
    """The canonical form of a scope path; ValueError with the reason if invalid."""
    text = raw.strip()
    if not text:
        raise ValueError("a scope path must not be empty")
    if text == ROOT:
        return ROOT
    inner = text[1:] if text.startswith("/") else text
    inner = inner[:-1] if inner.endswith("/") else inner
    segments = inner.split("/")
    if len(segments) > MAX_DEPTH:
        raise ValueError(f"scope path {raw!r} is deeper than {MAX_DEPTH} segments")
    for seg in segments:
        if not _SEGMENT.match(seg) or seg in (".", ".."):
            raise ValueError(
                f"scope path {raw!r} has an invalid segment {seg!r} "
                "(use letters, digits, '_', '-', '.', '=', separated by '/')"
            )
    return "/".join(segments) + "/"


def ancestors(path: str) -> list[str]:
    """Root first, then each ancestor, then the path itself."""
    if path == ROOT:
        return [ROOT]
    segments = path.rstrip("/").split("/")
    return [ROOT] + ["/".join(segments[: i + 1]) + "/" for i in range(len(segments))]


def in_subtree(path: str, subtree: str) -> bool:
    return subtree == ROOT or path == subtree or path.startswith(subtree)


def scope_touches(scope_json: str | None, subtree: str) -> bool:
    """SQL function: does a row tagged with these paths touch the subtree?"""
    if scope_json is None:
        return False
    return any(in_subtree(p, subtree) for p in json.loads(scope_json))


def scope_json(paths: list[str]) -> str:
    """How a row's scope is stored: a sorted JSON array of canonical paths.
    The same text also identifies a supersession chain's scope."""
    return json.dumps(sorted(set(paths)), separators=(",", ":"))


# ---------------------------------------------------------------- grants

VERBS = (
    "memory:read", "memory:write", "memory:forget",
    "scope:read", "scope:create", "scope:delete", "grant:manage",
)


def pattern(raw: str) -> tuple[str, bool]:
    """(base path, covers the subtree?) for `org/acme` (node), `org/acme/*`, `/*` or `*`."""
    text = raw.strip()
    if text in ("*", "/*"):
        return ROOT, True
    if text.endswith("/*"):
        return scope_path(text[:-2]), True
    if "*" in text:
        raise ValueError(f"grant pattern {raw!r}: '*' may only end a pattern, as '/*'")
    return scope_path(text), False


def covers(patterns: list[str], path: str) -> bool:
    """Does any pattern cover this one node?"""
    for raw in patterns:
        base, subtree = pattern(raw)
        if (subtree and in_subtree(path, base)) or (not subtree and path == base):
            return True
    return False


def covers_subtree(patterns: list[str], root: str) -> bool:
    """Does any pattern cover the whole subtree under `root`?"""
    for raw in patterns:
        base, subtree = pattern(raw)
        if subtree and in_subtree(root, base):
            return True
    return False


def pattern_within(requested: str, held: list[str]) -> bool:
    """Is the requested pattern inside what the held patterns allow?"""
    base, subtree = pattern(requested)
    return covers_subtree(held, base) if subtree else covers(held, base)
