"""The Agent Memory wire shapes Lumente uses, written by hand from the contract.

Two casing rules meet here (docs/spec/agent-memory-contract.md §1.6, cited below as "contract §n"): `/facts` request bodies are
snake_case, every response is camelCase. Response models accept either
spelling (aliases + `populate_by_name`) and ignore fields they do not know, so
a newer service that adds fields does not break the client. Request models
forbid unknown fields: the embedded engine validates incoming bodies with the
same classes and answers 400 naming the stray field.

`tests/memory/test_memory_wire_schema.py` checks every model here against the
service's generated OpenAPI (`components.schemas.*Json`).

The models live in one module per route family and are imported from there
on first use (`wire.FactsRequest` loads the write shapes): a command that only
reads memory never creates the classes for writes, scopes or keys, and
creating a pydantic model class costs even when its validator is deferred.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lumente_cli.agent_memory.wire.base_shapes import CONTEXT_ID, Grants, InferMode, MemoryCategory, Stamp, TurnRole

if TYPE_CHECKING:  # for type checkers: the names below, as `__getattr__` provides them
    from lumente_cli.agent_memory.wire.write_shapes import (
        TripleEntity as TripleEntity,
        Triple as Triple,
        FactsRequest as FactsRequest,
        EntitySummary as EntitySummary,
        AttributeSummary as AttributeSummary,
        RelationSummary as RelationSummary,
        InstructionSummary as InstructionSummary,
        UncertaintySummary as UncertaintySummary,
        CorrectionSummary as CorrectionSummary,
        ExtractionResult as ExtractionResult,
        FactsResponse as FactsResponse,
    )
    from lumente_cli.agent_memory.wire.read_shapes import (
        Span as Span,
        Source as Source,
        AttributeDetail as AttributeDetail,
        EntityDetail as EntityDetail,
        RelationDetail as RelationDetail,
        EntityResponse as EntityResponse,
        EntityListResponse as EntityListResponse,
        EntityHistoryResponse as EntityHistoryResponse,
    )
    from lumente_cli.agent_memory.wire.scope_shapes import (
        RegisterScopeRequest as RegisterScopeRequest,
        ScopeNode as ScopeNode,
        ScopeForgetRequest as ScopeForgetRequest,
        ForgetScopeResponse as ForgetScopeResponse,
    )
    from lumente_cli.agent_memory.wire.key_shapes import (
        MintKeyBody as MintKeyBody,
        MintedKey as MintedKey,
        KeyDetail as KeyDetail,
        Whoami as Whoami,
    )
    from lumente_cli.agent_memory.wire.error_shape import (
        ApiError as ApiError,
    )

# Where each model lives; `__getattr__` below imports its module on first use.
_MODULES: dict[str, tuple[str, ...]] = {
    "write_shapes": ("TripleEntity", "Triple", "FactsRequest", "EntitySummary", "AttributeSummary",
                     "RelationSummary", "InstructionSummary", "UncertaintySummary", "CorrectionSummary",
                     "ExtractionResult", "FactsResponse"),
    "read_shapes": ("Span", "Source", "AttributeDetail", "EntityDetail", "RelationDetail", "EntityResponse",
                    "EntityListResponse", "EntityHistoryResponse"),
    "scope_shapes": ("RegisterScopeRequest", "ScopeNode", "ScopeForgetRequest", "ForgetScopeResponse"),
    "key_shapes": ("MintKeyBody", "MintedKey", "KeyDetail", "Whoami"),
    "error_shape": ("ApiError",),
}
_MODULE_OF = {name: module for module, names in _MODULES.items() for name in names}

__all__ = ["CONTEXT_ID", "Grants", "InferMode", "MemoryCategory", "Stamp", "TurnRole", *_MODULE_OF]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # found once, then an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
