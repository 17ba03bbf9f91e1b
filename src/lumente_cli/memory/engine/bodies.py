"""Request bodies: JSON parsing and validation errors that name the field."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from lumente_cli.memory.engine.errors import ApiProblem

M = TypeVar("M", bound=BaseModel)
MAX_BODY = 1 << 20


def parse_json(body: bytes, *, required: bool = True) -> Any:
    if len(body) > MAX_BODY:
        raise ApiProblem(413, f"request body is larger than {MAX_BODY} bytes")
    if not body.strip():
        if required:
            raise ApiProblem(400, "request body is empty; send a JSON object")
        return None
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ApiProblem(400, f"request body is not valid JSON: {exc}") from None


def _where(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif "[" in str(part) or str(part).startswith("function-"):
            continue  # pydantic's union/validator tags, not a field
        else:
            out += ("." if out else "") + str(part)
    return out or "body"


def describe(exc: ValidationError) -> str:
    problems = []
    for err in exc.errors(include_url=False):
        where = _where(tuple(err["loc"]))
        if err["type"] == "extra_forbidden":
            problems.append(f"unknown field '{where}'")
        elif err["type"] == "missing":
            problems.append(f"missing field '{where}'")
        else:
            message = err["msg"].removeprefix("Value error, ")
            problems.append(f"invalid '{where}': {message}")
    return "; ".join(problems)


def validate(model: type[M], data: Any) -> M:
    if not isinstance(data, dict):
        raise ApiProblem(400, "request body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ApiProblem(400, f"invalid request body: {describe(exc)}") from None
