"""The concept list and one concept's map."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from lumente_cli.parts import ASKS, LABELS
from lumente_cli.text import reflow
from lumente_cli.views.console import Columns, safe

if TYPE_CHECKING:
    from lumente_cli.concepts.library import Library
    from lumente_cli.concepts.schema import Concept


def concept_list(lib: Library) -> RenderableType:
    rows = []
    for cid in lib.ids():
        source = lib.concepts[cid]
        summary = safe(source.summary)
        if source.origin != "library":
            summary.append(f"  ({source.origin})", style="dim")
        rows.append((Text(cid, style="cyan"), summary))
    return Columns((Text("concept", style="bold"), Text("what it is", style="bold")), rows)


def concept_map(concept: Concept) -> RenderableType:
    title = safe(concept.name, "bold")
    if concept.full_name:
        title.append_text(safe(f" · {concept.full_name}", "bold"))
    parts: list[RenderableType] = [title, safe(concept.summary, "italic"), Text()]
    for key, part in concept.parts():
        parts.append(Text(f"{LABELS[key]}", style="bold cyan") + Text(f"  ({ASKS[key]})", style="dim"))
        parts.append(safe(reflow(part.reference)))
        parts.append(Text("Key points:", style="dim"))
        for kp in part.key_points:
            parts.append(Text("  · ", style="dim") + safe(kp.point, "dim"))
        parts.append(Text())
    return Group(*parts)
