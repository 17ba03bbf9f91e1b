"""The offline provider: deterministic agents built from the concept file."""

from lumente_cli.agents.offline.agents import OfflineAgents

__all__ = ["OfflineAgents"]
