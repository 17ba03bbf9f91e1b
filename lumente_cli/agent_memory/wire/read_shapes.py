"""Entity reads: the current view, one key's history, the entity list (contract §3)."""

from __future__ import annotations

from lumente_cli.agent_memory.wire.base_shapes import MemoryCategory, Stamp, ResponseBody


class Span(ResponseBody):
    start: int
    end: int


class Source(ResponseBody):
    """Provenance of a row (contract §10). Not in the OpenAPI; the docs show it."""

    kind: str
    ref: str | None = None
    session_id: str | None = None
    turn_at: str | None = None
    valid_from: str | None = None
    span: Span | None = None
    trust: float | None = None
    derived_from: list[str] = []  # pydantic copies a mutable default per instance


class AttributeDetail(ResponseBody):
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


class EntityDetail(ResponseBody):
    id: str
    name: str
    entity_type: str
    memory_category: MemoryCategory
    importance: float
    created_at: Stamp
    updated_at: str


class RelationDetail(ResponseBody):
    id: str
    subject: str
    object: str
    label: str
    memory_category: MemoryCategory
    created_at: Stamp
    valid_from: Stamp | None = None
    valid_until: Stamp | None = None


class EntityResponse(ResponseBody):
    """`GET /entities/{type}/{name}`: the entity and its current rows."""

    entity: EntityDetail
    attributes: list[AttributeDetail]
    relations: list[RelationDetail]


class EntityListResponse(ResponseBody):
    entities: list[EntityDetail]


class EntityHistoryResponse(ResponseBody):
    history: list[AttributeDetail]
