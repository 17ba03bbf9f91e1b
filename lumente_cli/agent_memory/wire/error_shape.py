"""An error body, in either documented shape (contract §8.1)."""

from __future__ import annotations

from lumente_cli.agent_memory.wire.base_shapes import ResponseBody


class ApiError(ResponseBody):
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
