"""`memory show` and `memory history` for people."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from lumente_cli.memory.inspect import ShownFact
from lumente_cli.parts import LABELS
from lumente_cli.views.console import safe


def _when(stamp: str | None) -> str:
    return f"{stamp[:10]} {stamp[11:16]}Z" if stamp else "-"


def _group_label(fact: ShownFact) -> str:
    return LABELS[fact.part] if fact.part else "Calibration"


def _provenance(fact: ShownFact) -> Text:
    line = Text(fact.id, style="dim cyan")
    line.append(f" · written {_when(fact.written_at)}", style="dim")
    if fact.source_kind:
        trust = f" {fact.trust:.2f}" if fact.trust is not None else ""
        line.append(f" · {fact.source_kind}{trust}", style="dim")
    line.append(f" · given to {fact.reads} agent call{'s' if fact.reads != 1 else ''}", style="dim")
    return line


def remembered(facts: list[ShownFact], names: dict[str, str], *, as_of: str | None) -> RenderableType:
    blocks: list[RenderableType] = []
    if as_of:
        blocks.append(Text(f"As memory held it at {_when(as_of)}:", style="italic"))
    concept = group = None
    for fact in facts:
        if fact.concept != concept:
            concept, group = fact.concept, None
            blocks.append(Text(names.get(fact.concept, fact.concept), style="bold"))
        if _group_label(fact) != group:
            group = _group_label(fact)
            blocks.append(Padding(Text(group, style="cyan"), (0, 0, 0, 2)))
        blocks.append(Padding(Group(safe(fact.sentence), _provenance(fact)), (0, 0, 0, 4)))
    return Group(*blocks)


def chains(chain_list: Iterable[list[ShownFact]], names: dict[str, str]) -> RenderableType:
    blocks: list[RenderableType] = []
    for chain in chain_list:
        if not chain:
            continue
        head = chain[0]
        title = Text(f"{names.get(head.concept, head.concept)} · {_group_label(head)}", style="bold")
        title.append(f"  ({head.key}, {len(chain)} value{'s' if len(chain) != 1 else ''})", style="dim")
        blocks.append(title)
        for fact in chain:
            if fact.valid_until is None:
                mark = Text("  ● now              ", style="green")
            else:
                mark = Text(f"  ○ until {_when(fact.valid_until)} ", style="dim")
            blocks.append(mark + safe(fact.sentence))
            detail = Text("                     ") + _provenance(fact)
            if fact.superseded_by:
                detail.append(f" · replaced by {fact.superseded_by}", style="dim")
            blocks.append(detail)
        blocks.append(Text())
    return Group(*blocks)
