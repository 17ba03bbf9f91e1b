"""The engine's framework-neutral response and the request it hands handlers."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel

JSON = "application/json"
PROBLEM_JSON = "application/problem+json"


@dataclass
class EngineResponse:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


@dataclass
class Request:
    """One parsed request: route parameters are already URL-decoded."""

    method: str
    path: str
    context: str
    params: dict[str, str]
    query: Mapping[str, str]
    headers: Mapping[str, str]  # lower-case names
    body: bytes
    now: datetime
    principal: Any = None  # auth.Principal, set after authentication


def dump(value: Any) -> Any:
    """Wire form of a model (camelCase, nulls kept) or of plain JSON data."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, list):
        return [dump(v) for v in value]
    return value


def json_bytes(value: Any) -> bytes:
    return json.dumps(dump(value), ensure_ascii=False, separators=(",", ":")).encode()


def json_response(status: int, value: Any) -> EngineResponse:
    return EngineResponse(status, {"Content-Type": JSON}, json_bytes(value))


def raw_json_response(status: int, body: bytes, **headers: str) -> EngineResponse:
    return EngineResponse(status, {"Content-Type": JSON, **headers}, body)


def no_content() -> EngineResponse:
    return EngineResponse(204, {}, b"")
