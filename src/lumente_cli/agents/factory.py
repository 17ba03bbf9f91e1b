"""Choosing the provider for a session: Claude when configured, else offline."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lumente_cli.agents.offline import OfflineAgents
from lumente_cli.agents.provider import Agents, Usage
from lumente_cli.concepts.schema import Concept
from lumente_cli.errors import ConceptError, UsageError
from lumente_cli.settings import Settings

if TYPE_CHECKING:
    from rich.console import Console

    from lumente_cli.workspace import Workspace


def chosen_provider(settings: Settings, override: str | None) -> str:
    """'claude' or 'offline'. `auto` means Claude exactly when an API key is set."""
    choice = override or settings["provider"]
    if choice == "auto":
        return "claude" if settings["anthropic_api_key"] else "offline"
    return choice


def claude_available(settings: Settings, override: str | None) -> bool:
    return chosen_provider(settings, override) == "claude" and bool(settings["anthropic_api_key"])


def make_agents(
    concept: Concept, settings: Settings, override: str | None, *, notify: Callable[[str], None]
) -> tuple[Agents, Usage]:
    usage = Usage()
    offline = OfflineAgents(concept)
    if chosen_provider(settings, override) == "offline":
        return offline, usage
    if not settings["anthropic_api_key"]:
        raise UsageError(
            "--provider claude needs an API key.", hint="Set ANTHROPIC_API_KEY, or `lumente config set anthropic_api_key`."
        )
    raise UsageError("the Claude provider is not available in this build yet.")


def map_new_concept(ws: Workspace, name: str, override: str | None, *, console: Console) -> Concept:
    lib = ws.library()
    raise ConceptError(f"unknown concept {name!r}.", hint=lib.suggestion(name))
