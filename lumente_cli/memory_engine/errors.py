"""Errors the engine answers with. Every error body carries both shapes the
contract knows (§8.1): RFC 7807 fields and a `message`, so any client reads it."""

from __future__ import annotations

import json

TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    408: "Request timeout",
    409: "Conflict",
    411: "Length required",
    413: "Payload too large",
    414: "URI too long",
    422: "Unprocessable entity",
    431: "Request header fields too large",
    500: "Internal server error",
    501: "Not implemented",
    503: "Service unavailable",
    505: "HTTP version not supported",
}

SLUGS = {
    400: "validation-error",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    408: "request-timeout",
    409: "conflict",
    411: "length-required",
    413: "payload-too-large",
    414: "uri-too-long",
    422: "invalid-context",
    431: "headers-too-large",
    500: "internal-error",
    501: "not-implemented",
    503: "unavailable",
    505: "http-version-not-supported",
}

PROBLEM_TYPE = "urn:lumente:memory:error:"


class ApiProblem(Exception):
    """Raise anywhere in a handler to answer with this status and detail."""

    def __init__(self, status: int, detail: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.headers = dict(headers or {})


def problem_body(status: int, detail: str, instance: str) -> bytes:
    body = {
        "type": PROBLEM_TYPE + SLUGS.get(status, "error"),
        "title": TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
        "instance": instance,
        "message": detail,
    }
    return json.dumps(body, ensure_ascii=False).encode()
