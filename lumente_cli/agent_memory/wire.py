"""The Agent Memory wire shapes Lumente uses, written by hand from the contract.

Two casing rules meet here (docs/spec/agent-memory-contract.md §1.6, cited below as "contract §n"): `/facts` request bodies are
snake_case, every response is camelCase. Response models accept either
spelling (aliases + `populate_by_name`) and ignore fields they do not know, so
a newer service that adds fields does not break the client. Request models
forbid unknown fields: the embedded engine validates incoming bodies with the
same classes and answers 400 naming the stray field.

`tests/memory/test_memory_wire_schema.py` checks every model here against the
service's generated OpenAPI (`components.schemas.*Json`).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from lumente_cli.timeutil import parse_instant, parse_stamp

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


class _Request(BaseModel):
    """A body we send (snake_case, as the service spells it)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


class _CamelRequest(BaseModel):
    """A camelCase body we send (`/scopes`)."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True, defer_build=True)


class _Response(BaseModel):
    """A body we receive: camelCase on the wire, snake_case in Python."""

    model_config = ConfigDict(extra="ignore", alias_generator=to_camel, populate_by_name=True, defer_build=True)


# ---------------------------------------------------------------- /facts in


class TripleEntity(_Request):
    type: str
    name: str


class Triple(_Request):
    """`value` makes an attribute; `value=None` with a `target` makes a relation."""

    entity: TripleEntity
    key: str
    value: str | None = None
    target: TripleEntity | None = None
    memory_category: MemoryCategory | None = None


def _clause(raw: Any) -> list[str]:
    items = [raw] if isinstance(raw, str) else raw
    if not isinstance(items, list):
        raise ValueError("a scope clause must be a path or a list of paths")
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise ValueError("scope paths must be strings")
        if item.strip() and item not in out:
            out.append(item)
    return out


class FactsRequest(_Request):
    """Body of `POST /api/v1/{ctx}/facts` (contract §2.1).

    `scopes` is a DNF selector: a list of AND-clauses, OR-ed. A bare string is
    one clause, and a flat list of strings means one clause per path (OR), as
    the current service reads it (§2.4). Empty paths are dropped and an empty
    selector is sent as nothing (the caller's default write region).
    `scope` is the legacy flat spelling from the OpenAPI; send one or the other.
    """

    infer: InferMode = "full"
    text: str | None = None
    triples: list[Triple] = Field(default_factory=list)
    scopes: list[list[str]] | None = None
    scope: list[str] | None = None
    session_id: str | None = None
    role: TurnRole | None = None
    memory_category: MemoryCategory | None = None
    labels: list[str] = Field(default_factory=list)
    observed_at: str | None = None

    @field_validator("scopes", mode="before")
    @classmethod
    def _dnf(cls, raw: Any) -> Any:
        if raw is None:
            return None
        clauses = [raw] if isinstance(raw, str) else raw
        if not isinstance(clauses, list):
            raise ValueError("scopes must be a path, a list of paths, or a list of lists of paths")
        out = [c for c in (_clause(c) for c in clauses) if c]
        return out or None

    @field_validator("scope", mode="before")
    @classmethod
    def _flat(cls, raw: Any) -> Any:
        if raw is None:
            return None
        return _clause(raw) or None

    @field_validator("labels")
    @classmethod
    def _labels(cls, labels: list[str]) -> list[str]:
        for label in labels:
            key, eq, _ = label.partition("=")
            if not eq or not key:
                raise ValueError(f"label {label!r} is not of the form key=value")
            if key.startswith("_"):
                raise ValueError(f"label key {key!r} must not start with '_'")
        return labels

    @field_validator("observed_at")
    @classmethod
    def _rfc3339(cls, raw: str | None) -> str | None:
        if raw is not None:
            parse_instant(raw)
        return raw

    def scope_paths(self) -> list[str]:
        """Every path the write is tagged with (the union over the clauses)."""
        out: list[str] = []
        for clause in (self.scopes or []) + ([self.scope] if self.scope else []):
            for path in clause:
                if path not in out:
                    out.append(path)
        return out


# --------------------------------------------------------------- /facts out


class EntitySummary(_Response):
    id: str
    name: str
    entity_type: str
    memory_category: MemoryCategory
    is_new: bool


class AttributeSummary(_Response):
    id: str
    entity_id: str
    key: str
    value: str
    memory_category: MemoryCategory


class RelationSummary(_Response):
    subject: str
    label: str
    object: str
    memory_category: MemoryCategory


class InstructionSummary(_Response):
    id: str
    label: str
    description: str


class UncertaintySummary(_Response):
    about: str
    reason: str


class CorrectionSummary(_Response):
    entity_id: str
    key: str
    old_value: str
    new_value: str


class ExtractionResult(_Response):
    turn_id: str
    entities: list[EntitySummary]
    attributes: list[AttributeSummary]
    relations: list[RelationSummary]
    instructions: list[InstructionSummary]
    uncertainties: list[UncertaintySummary]
    corrections: list[CorrectionSummary]


class FactsResponse(_Response):
    """`POST /facts` → 200. The new row ids are `extraction.attributes[i].id`."""

    mode: InferMode
    session_id: str
    turn_id: str | None = None
    chunk_id: str | None = None
    preview: bool | None = None
    extraction: ExtractionResult | None = None


# -------------------------------------------------------------------- reads


class Span(_Response):
    start: int
    end: int


class Source(_Response):
    """Provenance of a row (contract §10). Not in the OpenAPI; the docs show it."""

    kind: str
    ref: str | None = None
    session_id: str | None = None
    turn_at: str | None = None
    valid_from: str | None = None
    span: Span | None = None
    trust: float | None = None
    derived_from: list[str] = Field(default_factory=list)


class AttributeDetail(_Response):
    """One attribute row. `valid_until is None` means it is still current."""

    id: str
    entity: str
    key: str
    value: str
    memory_category: MemoryCategory
    importance: float
    created_at: Stamp
    valid_from: Stamp | None = None
    valid_until: Stamp | None = None
    supersedes: str | None = None
    superseded_by: str | None = None
    source: Source | None = None


class EntityDetail(_Response):
    id: str
    name: str
    entity_type: str
    memory_category: MemoryCategory
    importance: float
    created_at: Stamp
    updated_at: str


class RelationDetail(_Response):
    id: str
    subject: str
    object: str
    label: str
    memory_category: MemoryCategory
    created_at: Stamp
    valid_from: Stamp | None = None
    valid_until: Stamp | None = None


class EntityResponse(_Response):
    """`GET /entities/{type}/{name}`: the entity and its current rows."""

    entity: EntityDetail
    attributes: list[AttributeDetail]
    relations: list[RelationDetail]


class EntityListResponse(_Response):
    entities: list[EntityDetail]


class EntityHistoryResponse(_Response):
    history: list[AttributeDetail]


# ------------------------------------------------------------------- scopes


class RegisterScopeRequest(_CamelRequest):
    path: str
    display_name: str | None = None
    description: str | None = None


class ScopeNode(_Response):
    path: str
    created_at: str
    tombstoned_at: str | None = None


class ScopeForgetRequest(_Request):
    path: str | None = None


class ForgetScopeResponse(_Response):
    forgotten: int = Field(ge=0)


# ------------------------------------------------------------- keys and me


class MintKeyBody(_Request):
    name: str | None = None
    grants: Grants | None = None


class MintedKey(_Response):
    """Returned once by `POST /keys`. The key is kept out of repr()."""

    key: str = Field(repr=False)
    id: str
    valid_until: str | None = None


class KeyDetail(_Response):
    id: str
    name: str
    created_at: str
    grants: Grants | None = None
    last_used_at: str | None = None
    valid_until: str | None = None


class Whoami(_Response):
    principal_id: str
    kind: str
    display_name: str
    grants: Grants
    effective_grants: Grants
    enforce: bool
    token_grants: Grants | None = None
    delegated_principal_id: str | None = None


# ------------------------------------------------------------------- errors


class ApiError(_Response):
    """An error body in either shape the service is documented to send:
    `{"message"}` (OpenAPI) or RFC 7807 `{"type","title","status","detail","instance"}`
    (docs). The embedded engine sends both at once."""

    message: str | None = None
    type: str | None = None
    title: str | None = None
    status: int | None = None
    detail: str | None = None
    instance: str | None = None
    error: str | None = None

    def text(self) -> str | None:
        """What to show a person: `detail`, then `message`, `title`, `error`."""
        for value in (self.detail, self.message, self.title, self.error):
            if value:
                return value
        return None
