"""The concept list and one concept's map, as plain styled lines
(views/lines.py): `lumente concepts` is run often, and needs no Rich."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lumente_cli.parts import ASKS, LABELS, PARTS, START_LEVEL
from lumente_cli.text import reflow
from lumente_cli.views import lines

if TYPE_CHECKING:
    from lumente_cli.concepts.library import Library
    from lumente_cli.concepts.schema import Concept


def concept_list(lib: Library, levels: dict[str, dict[str, int]] | None = None) -> list[lines.Row]:
    """The library by area, each concept with its summary and, once practised, its four levels."""
    from lumente_cli.concepts.areas import AREA_TITLES

    levels = levels or {}
    groups: dict[str, list[str]] = {}
    for cid in lib.ids():
        area = lib.concepts[cid].area
        groups.setdefault(area if area in AREA_TITLES else "", []).append(cid)
    rows: list[tuple[lines.Styled, lines.Styled]] = []
    for area in [*AREA_TITLES, ""]:
        if area not in groups:
            continue
        rows.append((lines.Styled(AREA_TITLES.get(area, "Other"), "bold"), lines.Styled()))
        for cid in groups[area]:
            source = lib.concepts[cid]
            summary = lines.safe(source.summary)
            if source.origin != "library":
                summary.append(f"  ({source.origin})", "dim")
            if cid in levels:
                shown = " ".join(str(levels[cid].get(part, START_LEVEL)) for part in PARTS)
                summary.append(f"  levels {shown}", "green")
            rows.append((lines.Styled("  " + cid, "cyan"), summary))
    return lines.columns((lines.Styled("concept", "bold"), lines.Styled("what it is", "bold")), rows)


def concept_map(concept: Concept, linked: dict[str, str] | None = None) -> list[lines.Row]:
    title = lines.safe(concept.name, "bold")
    if concept.full_name:
        title.append(lines.safe(f" · {concept.full_name}", "bold"))
    shown = [title, lines.safe(concept.summary, "italic"), lines.Styled()]
    if linked:
        line = lines.Styled("Practise next to it: ", "dim")
        line.append(lines.safe(", ".join(f"{name} (lumente practice {cid})" for cid, name in linked.items())))
        shown += [line, lines.Styled()]
    for key, part in concept.parts():
        shown.append(lines.Styled(f"{LABELS[key]}", "bold cyan") + lines.Styled(f"  ({ASKS[key]})", "dim"))
        shown.append(lines.safe(reflow(part.reference)))
        shown.append(lines.Styled("Key points:", "dim"))
        for kp in part.key_points:
            shown.append(lines.Styled("  · ", "dim") + lines.safe(kp.point, "dim"))
        shown.append(lines.Styled())
    return [lines.Row(text) for text in shown]
