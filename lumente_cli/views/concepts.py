"""The concept list and one concept's map."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from lumente_cli.parts import ASKS, LABELS, PARTS, START_LEVEL
from lumente_cli.text import reflow
from lumente_cli.views.console import Columns, safe

if TYPE_CHECKING:
    from lumente_cli.concepts.library import Library
    from lumente_cli.concepts.schema import Concept


def concept_list(lib: Library, levels: dict[str, dict[str, int]] | None = None) -> RenderableType:
    """The library by area, each concept with its summary and, once practised, its four levels."""
    from lumente_cli.concepts.areas import AREA_TITLES

    levels = levels or {}
    groups: dict[str, list[str]] = {}
    for cid in lib.ids():
        area = lib.concepts[cid].area
        groups.setdefault(area if area in AREA_TITLES else "", []).append(cid)
    rows: list[tuple[Text, Text]] = []
    for area in [*AREA_TITLES, ""]:
        if area not in groups:
            continue
        rows.append((Text(AREA_TITLES.get(area, "Other"), style="bold"), Text()))
        for cid in groups[area]:
            source = lib.concepts[cid]
            summary = safe(source.summary)
            if source.origin != "library":
                summary.append(f"  ({source.origin})", style="dim")
            if cid in levels:
                shown = " ".join(str(levels[cid].get(part, START_LEVEL)) for part in PARTS)
                summary.append(f"  levels {shown}", style="green")
            rows.append((Text("  " + cid, style="cyan"), summary))
    return Columns((Text("concept", style="bold"), Text("what it is", style="bold")), rows)


def concept_map(concept: Concept, linked: dict[str, str] | None = None) -> RenderableType:
    title = safe(concept.name, "bold")
    if concept.full_name:
        title.append_text(safe(f" · {concept.full_name}", "bold"))
    parts: list[RenderableType] = [title, safe(concept.summary, "italic"), Text()]
    if linked:
        line = Text("Practise next to it: ", style="dim")
        line.append_text(safe(", ".join(f"{name} (lumente practice {cid})" for cid, name in linked.items())))
        parts += [line, Text()]
    for key, part in concept.parts():
        parts.append(Text(f"{LABELS[key]}", style="bold cyan") + Text(f"  ({ASKS[key]})", style="dim"))
        parts.append(safe(reflow(part.reference)))
        parts.append(Text("Key points:", style="dim"))
        for kp in part.key_points:
            parts.append(Text("  · ", style="dim") + safe(kp.point, "dim"))
        parts.append(Text())
    return Group(*parts)
