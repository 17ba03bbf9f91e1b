"""Which concept a session is on: one the library has, or, for a name it does not
know, a new concept Claude maps once and saves. A near miss is a typo, not a new
concept: the student is offered the close names instead of a mapped stranger."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from lumente_cli.agents.factory import claude_available, map_new_concept
from lumente_cli.concepts.library import Library
from lumente_cli.concepts.schema import Concept
from lumente_cli.errors import ConceptError
from lumente_cli.settings import Settings
from lumente_cli.text import slug


def find_or_map(
    lib: Library, name: str, *, settings: Settings, provider: str | None, mapped_dir: Path,
    mapping: Callable[[str], AbstractContextManager[object]],
) -> tuple[Concept, Path | None]:
    """The concept called `name`, and where it was saved if it was mapped just now.

    `mapping(message)` is held while Claude maps (the CLI shows a spinner). Raises
    ConceptError, with the close names, when the name is unknown and not to be mapped."""
    found = lib.find(name)
    if found is not None:
        return found, None
    if lib.close_matches(name) or not claude_available(settings, provider):
        lib.resolve(name)  # raises: the close names, or the problem of the student's own file by that name
    concept_id = slug(name)
    if not concept_id:
        raise ConceptError(f"{name!r} has no letters or digits to name a concept by.")
    with mapping(f"Mapping {name!r} with Claude (once; it is saved for next time)…"):
        return map_new_concept(settings, name, concept_id, mapped_dir)
