"""What every wire model shares: the casing rules of contract §1.6 as three base
classes, the timestamp check, and the enumerations the contract names."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from lumente_cli.timeutil import parse_stamp

InferMode = Literal["full", "triples", "preview", "none"]
MemoryCategory = Literal["identity", "knowledge", "context"]
TurnRole = Literal["user", "assistant", "system", "tool"]
Grants = dict[str, list[str]]
# A context id, the `{ctx}` of every route (contract §1.1).
CONTEXT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _iso_instant(text: str) -> str:
    """A timestamp from the service must be one: Lumente sorts and compares them, and a
    server that sends 'yesterday' has sent a malformed response, not a fact."""
    try:
        parse_stamp(text)
    except ValueError:
        raise ValueError(f"{text[:40]!r} is not an ISO 8601 timestamp") from None
    return text


Stamp = Annotated[str, AfterValidator(_iso_instant)]


# Every model defers building its validator to first use (`defer_build`): a
# command uses a handful of these, and building all of them at import would slow
# the start of every command that reads memory.


class RequestBody(BaseModel):
    """A body we send (snake_case, as the service spells it)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


class CamelRequestBody(BaseModel):
    """A camelCase body we send (`/scopes`)."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True, defer_build=True)


class ResponseBody(BaseModel):
    """A body we receive: camelCase on the wire, snake_case in Python."""

    model_config = ConfigDict(extra="ignore", alias_generator=to_camel, populate_by_name=True, defer_build=True)
