"""Consoles and safe text. Outside text (concept files, model replies) is
sanitised and printed as plain Text, never parsed as Rich markup."""

from __future__ import annotations

import os
import sys

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from lumente_cli.text import sanitize


def make_console(*, stderr: bool = False, no_color: bool = False, quiet: bool = False) -> Console:
    """With --no-color or NO_COLOR the output has no escape sequences at all:
    no colour and no styles (bold, dim), and FORCE_COLOR cannot bring them back.
    A real terminal still gets its spinner."""
    file = sys.stderr if stderr else sys.stdout
    color_off = no_color or bool(os.environ.get("NO_COLOR"))
    extra: dict[str, object] = {}
    if color_off:
        extra = {"color_system": None, "force_terminal": _isatty(file)}
    return Console(
        stderr=stderr,
        no_color=color_off,
        highlight=False,
        emoji=False,
        quiet=quiet,
        file=file,
        **extra,  # type: ignore[arg-type]
    )


def _isatty(file: object) -> bool:
    try:
        return bool(file.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False


def safe(text: str, style: str = "") -> Text:
    return Text(sanitize(text), style=style)


class Indented:
    """Blocks of text, each wrapped to the width left after its indent.

    The same output as nesting Padding around each block, at half the cost
    (`memory show` prints hundreds of blocks), and without the trailing
    spaces Padding adds to fill every line."""

    def __init__(self, blocks: list[tuple[int, Text]]) -> None:
        self.blocks = blocks

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for indent, text in self.blocks:
            yield from _beside(Text(), indent, text, console, max(1, options.max_width - indent))


class Columns:
    """Rows of a short left cell and a long right one wrapped beside it, under
    a header: a borderless table without Table's layout pass (the concept list
    is printed on every `lumente concepts`)."""

    def __init__(self, header: tuple[Text, Text], rows: list[tuple[Text, Text]], gap: int = 2) -> None:
        self.header, self.rows, self.gap = header, rows, gap

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        left = max(t.cell_len for t, _ in [self.header, *self.rows]) + self.gap
        width = max(1, options.max_width - left)
        for name, text in [self.header, *self.rows]:
            yield from _beside(name, left, text, console, width)


def _beside(cell: Text, left: int, text: Text, console: Console, width: int):  # noqa: ANN202 - Iterable[Segment]
    """`text` wrapped to `width`, each line after `left` columns: `cell` on the first, blanks below."""
    from rich.segment import Segment

    for i, line in enumerate(_lines(text, console, width)):
        lead = cell if i == 0 else Text()
        yield from _styled(lead, console)
        if left > lead.cell_len and line.plain:  # a heading row has no right cell: no trailing spaces
            yield Segment(" " * (left - lead.cell_len))
        yield from _styled(line, console)
        yield Segment.line()


def _lines(text: Text, console: Console, width: int) -> list[Text]:
    """`text` wrapped to `width`, without trailing spaces; a line that already fits is not wrapped
    (most of them, and wrapping is most of the cost of printing)."""
    if text.cell_len <= width and "\n" not in text.plain and not text.plain.endswith(" "):
        return [text]
    lines = list(text.wrap(console, width))
    for line in lines:
        line.rstrip()
    return lines


def _styled(line: Text, console: Console):  # noqa: ANN202 - Iterable[Segment]
    """A line's segments with its base style on them (`Text.render` applies it only to spans)."""
    from rich.segment import Segment

    segments = line.render(console)
    return Segment.apply_style(segments, console.get_style(line.style)) if line.style else segments
