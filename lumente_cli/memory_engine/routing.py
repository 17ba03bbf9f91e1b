"""Paths → handlers. Paths are split on `/` *before* each segment is
URL-decoded, so an entity name containing `%2F` stays one parameter."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote

from lumente_cli.agent_memory.wire import CONTEXT_ID
from lumente_cli.memory_engine.errors import ApiProblem

PREFIX = ("api", "v1")

# (method, segments after /api/v1/{ctx}, handler name); "{x}" is a parameter.
ROUTES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("POST", ("facts",), "post_facts"),
    ("GET", ("entities",), "list_entities"),
    ("GET", ("entities", "{type}", "{name}"), "get_entity"),
    ("GET", ("entities", "{type}", "{name}", "history", "{key}"), "get_history"),
    ("POST", ("scopes",), "register_scope"),
    ("GET", ("scopes",), "list_scopes"),
    ("DELETE", ("scopes",), "delete_scope"),
    ("POST", ("scopes", "forget"), "forget_scope"),
    ("GET", ("me",), "whoami"),
    ("POST", ("keys",), "mint_key"),
    ("GET", ("keys",), "list_keys"),
    ("DELETE", ("keys", "{id}"), "revoke_key"),
)


@dataclass(frozen=True)
class Match:
    handler: str
    context: str | None  # None for the health route
    params: dict[str, str]


def split(raw_path: str) -> list[str]:
    path = raw_path.split("?", 1)[0]
    if not path.startswith("/"):
        raise ApiProblem(404, f"no route for {raw_path!r}")
    if len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    try:
        return [unquote(seg, errors="strict") for seg in path[1:].split("/")]
    except UnicodeDecodeError:
        raise ApiProblem(400, "the request path is not valid UTF-8 after URL-decoding") from None


def _fits(pattern: tuple[str, ...], segments: list[str]) -> dict[str, str] | None:
    if len(pattern) != len(segments):
        return None
    params = {}
    for want, got in zip(pattern, segments):
        if want.startswith("{"):
            if not got:
                return None
            params[want[1:-1]] = got
        elif want != got:
            return None
    return params


def template(raw_path: str) -> str | None:
    """The route a path matches, with its parameters as `{type}`, `{name}`,
    `{key}` (the context id is kept): for logs that must not show names.
    None when no route fits."""
    try:
        segments = split(raw_path)
    except ApiProblem:
        return None
    if tuple(segments[:2]) != PREFIX or len(segments) < 3:
        return None
    if segments[2:] == ["health"]:
        return "/api/v1/health"
    context, rest = segments[2], segments[3:]
    if not CONTEXT_ID.match(context):
        return None
    for _method, pattern, _handler in ROUTES:
        if _fits(pattern, rest) is not None:
            return "/".join(("", *PREFIX, context, *pattern))
    return None


def match(method: str, raw_path: str) -> Match:
    segments = split(raw_path)
    if tuple(segments[:2]) != PREFIX or len(segments) < 3:
        raise ApiProblem(404, f"no route for {method} {raw_path}")
    if segments[2:] == ["health"]:
        if method not in ("GET", "HEAD"):
            raise ApiProblem(405, f"{method} is not allowed on /api/v1/health", headers={"Allow": "GET"})
        return Match("health", None, {})
    context, rest = segments[2], segments[3:]
    if not CONTEXT_ID.match(context):
        raise ApiProblem(422, f"invalid context id {context!r}: use 1 to 64 of A-Z a-z 0-9 _ -")
    allowed = []
    for route_method, pattern, handler in ROUTES:
        params = _fits(pattern, rest)
        if params is None:
            continue
        if route_method == method:
            return Match(handler, context, params)
        allowed.append(route_method)
    if allowed:
        raise ApiProblem(405, f"{method} is not allowed here", headers={"Allow": ", ".join(allowed)})
    raise ApiProblem(
        404, f"no route for {method} /{'/'.join(rest)} (the embedded engine serves facts, entities, "
        "history, scopes, me, keys and health)"
    )
