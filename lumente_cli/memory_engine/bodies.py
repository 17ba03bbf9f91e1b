"""Request bodies: JSON parsing and validation errors that name the field."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from lumente_cli.memory_engine.errors import ApiProblem

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
        value = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ApiProblem(400, f"request body is not valid JSON: {exc}") from None
    except RecursionError:  # the parser's own limit: an attack, not a body Lumente sends
        raise ApiProblem(400, "request body nests too deeply") from None
    if _has_lone_surrogate(value):
        raise ApiProblem(400, "request body has a lone UTF-16 surrogate (\\ud800-\\udfff) in a string; "
                              "it is not a character and cannot be stored")
    return value


def _has_lone_surrogate(value: Any) -> bool:
    """Any string in the document holding half a surrogate pair (walked without
    recursion, so a deep document cannot overflow the stack here either)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


_SURROGATE = re.compile("[\ud800-\udfff]")


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
