"""API keys and `GET /me`, which only `lumente memory serve`'s admins use (contract §1.2)."""

from __future__ import annotations

from pydantic import Field

from lumente_cli.agent_memory.wire.base_shapes import Grants, RequestBody, ResponseBody


class MintKeyBody(RequestBody):
    name: str | None = None
    grants: Grants | None = None


class MintedKey(ResponseBody):
    """Returned once by `POST /keys`. The key is kept out of repr()."""

    key: str = Field(repr=False)
    id: str
    valid_until: str | None = None


class KeyDetail(ResponseBody):
    id: str
    name: str
    created_at: str
    grants: Grants | None = None
    last_used_at: str | None = None
    valid_until: str | None = None


class Whoami(ResponseBody):
    principal_id: str
    kind: str
    display_name: str
    grants: Grants
    effective_grants: Grants
    enforce: bool
    token_grants: Grants | None = None
    delegated_principal_id: str | None = None
