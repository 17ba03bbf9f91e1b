"""`POST /facts`: the body Lumente sends (snake_case) and the answer (contract §2)."""

from __future__ import annotations

from typing import Any

from pydantic import field_validator

from lumente_cli.agent_memory.wire.base_shapes import InferMode, MemoryCategory, TurnRole, RequestBody, ResponseBody
from lumente_cli.timeutil import parse_instant


class TripleEntity(RequestBody):
    type: str
    name: str


class Triple(RequestBody):
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


class FactsRequest(RequestBody):
    """Body of `POST /api/v1/{ctx}/facts` (contract §2.1).

    `scopes` is a DNF selector: a list of AND-clauses, OR-ed. A bare string is
    one clause, and a flat list of strings means one clause per path (OR), as
    the current service reads it (§2.4). Empty paths are dropped and an empty
    selector is sent as nothing (the caller's default write region).
    `scope` is the legacy flat spelling from the OpenAPI; send one or the other.
    """

    infer: InferMode = "full"
    text: str | None = None
    triples: list[Triple] = []  # pydantic copies a mutable default per instance
    scopes: list[list[str]] | None = None
    scope: list[str] | None = None
    session_id: str | None = None
    role: TurnRole | None = None
    memory_category: MemoryCategory | None = None
    labels: list[str] = []
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


class EntitySummary(ResponseBody):
    id: str
    name: str
    entity_type: str
    memory_category: MemoryCategory
    is_new: bool


class AttributeSummary(ResponseBody):
    id: str
    entity_id: str
    key: str
    value: str
    memory_category: MemoryCategory


class RelationSummary(ResponseBody):
    subject: str
    label: str
    object: str
    memory_category: MemoryCategory


class InstructionSummary(ResponseBody):
    id: str
    label: str
    description: str


class UncertaintySummary(ResponseBody):
    about: str
    reason: str


class CorrectionSummary(ResponseBody):
    entity_id: str
    key: str
    old_value: str
    new_value: str


class ExtractionResult(ResponseBody):
    turn_id: str
    entities: list[EntitySummary]
    attributes: list[AttributeSummary]
    relations: list[RelationSummary]
    instructions: list[InstructionSummary]
    uncertainties: list[UncertaintySummary]
    corrections: list[CorrectionSummary]


class FactsResponse(ResponseBody):
    """`POST /facts` → 200. The new row ids are `extraction.attributes[i].id`."""

    mode: InferMode
    session_id: str
    turn_id: str | None = None
    chunk_id: str | None = None
    preview: bool | None = None
    extraction: ExtractionResult | None = None
