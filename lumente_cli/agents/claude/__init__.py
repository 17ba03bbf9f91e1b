"""The Claude provider: the same agents on Claude, through the official SDK.

Importing this package does not import `anthropic` (about two seconds): the SDK
is imported only when a client is made or an SDK error is examined.
"""

from lumente_cli.agents.claude.client import DEFAULT_MODEL, Usage, make_anthropic_client
from lumente_cli.agents.claude.mapper import map_concept, save_mapped_concept
from lumente_cli.agents.claude.agents import ClaudeAgents

__all__ = [
    "DEFAULT_MODEL",
    "ClaudeAgents",
    "Usage",
    "make_anthropic_client",
    "map_concept",
    "save_mapped_concept",
]
