"""Scope registration, listing and forgetting (contract §4)."""

from __future__ import annotations

from pydantic import Field

from lumente_cli.agent_memory.wire.base_shapes import CamelRequestBody, RequestBody, ResponseBody


class RegisterScopeRequest(CamelRequestBody):
    path: str
    display_name: str | None = None
    description: str | None = None


class ScopeNode(ResponseBody):
    path: str
    created_at: str
    tombstoned_at: str | None = None


class ScopeForgetRequest(RequestBody):
    path: str | None = None


class ForgetScopeResponse(ResponseBody):
    forgotten: int = Field(ge=0)
