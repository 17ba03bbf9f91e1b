"""`memory show` (plain styled lines, views/lines.py: it may print thousands)
and `memory history` (Rich) for people."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from lumente_cli.memory.inspection import ShownFact
from lumente_cli.parts import LABELS
from lumente_cli.text import sanitize
from lumente_cli.views import lines

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.text import Text


def _when(stamp: str | None) -> str:
    return sanitize(f"{stamp[:10]} {stamp[11:16]}Z") if stamp else "-"


def _group_label(fact: ShownFact) -> str:
    if fact.part:
        return LABELS[fact.part]
    return "Check the AI" if fact.kind in ("check", "check_level") else "Calibration"


def _provenance_lines(fact: ShownFact) -> tuple[lines.Styled, lines.Styled]:
    first = lines.safe(fact.id, "dim cyan")
    first.append(f"  written {_when(fact.written_at)}", "dim")
    second = lines.Styled(style="dim")
    if fact.source_kind:
        trust = f", trust {fact.trust:.2f}" if fact.trust is not None else ""
        second.append(sanitize(f"source {fact.source_kind}{trust} · "))
    second.append(f"sent to {fact.reads} agent call{'s' if fact.reads != 1 else ''}")
    return first, second


def remembered(facts: list[ShownFact], names: dict[str, str], *, as_of: str | None) -> list[lines.Row]:
    rows: list[lines.Row] = []
    if as_of:
        rows.append(lines.block(0, lines.Styled(f"As memory held it at {_when(as_of)}:", "italic")))
    concept = group = None
    for fact in facts:
        if fact.concept != concept:
            concept, group = fact.concept, None
            rows.append(lines.block(0, lines.safe(names.get(fact.concept, fact.concept), "bold")))
        if _group_label(fact) != group:
            group = _group_label(fact)
            rows.append(lines.block(2, lines.Styled(group, "cyan")))
        rows.append(lines.block(4, lines.safe(fact.sentence)))
        rows += [lines.block(4, line) for line in _provenance_lines(fact)]
        if fact.supersedes:  # its value, and every earlier one, are `memory history`'s to show
            rows.append(lines.block(4, lines.safe(f"replaced {fact.supersedes}", "dim")))
    if any(fact.supersedes for fact in facts):
        rows.append(lines.block(0, lines.Styled(
            "Earlier values, such as those your last session's hint giver and coach were given and cited: "
            "lumente memory history", "dim italic")))
    return rows


def _provenance(fact: ShownFact) -> Text:
    from rich.text import Text

    first, second = _provenance_lines(fact)
    return Text("\n").join(_rich(line) for line in (first, second))


def _rich(line: lines.Styled) -> Text:
    """A plain styled line as a Rich Text, for the screens Rich lays out."""
    from rich.text import Text

    text = Text(style=line.style)
    for part, style in line.spans:
        text.append(part, style=style or None)
    return text


def chains(chain_list: Iterable[list[ShownFact]], names: dict[str, str]) -> RenderableType:
    from rich.console import Group
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    from lumente_cli.views.console import safe

    blocks: list[RenderableType] = []
    for chain in chain_list:
        if not chain:
            continue
        head = chain[0]
        title = safe(f"{names.get(head.concept, head.concept)} · {_group_label(head)}", "bold")
        title.append(sanitize(f"  {head.key}, {len(chain)} value{'s' if len(chain) != 1 else ''}, newest first"),
                     style="dim")
        blocks.append(title)
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True, min_width=19)
        grid.add_column(ratio=1)
        for fact in chain:
            if fact.valid_until is None:
                mark = Text("● now", style="green")
            else:
                mark = Text(f"○ until\n  {_when(fact.valid_until)}", style="dim")
            body = Text.assemble(safe(fact.sentence), "\n", _provenance(fact))
            if fact.superseded_by:
                body.append(sanitize(f"\nreplaced by {fact.superseded_by}"), style="dim")
            grid.add_row(mark, body)
        blocks.append(Padding(grid, (0, 0, 1, 2)))
    return Group(*blocks)
