"""Rich consoles and safe text. Outside text (concept files, model replies) is
sanitised and printed as plain Text, never parsed as Rich markup. (Screens
that are only lines print without Rich: views/lines.py.)"""

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

    The same output as nesting Padding around each block, at half the cost,
    and without the trailing spaces Padding adds to fill every line."""

    def __init__(self, blocks: list[tuple[int, Text]]) -> None:
        self.blocks = blocks

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.segment import Segment

        for indent, text in self.blocks:
            for line in _lines(text, console, max(1, options.max_width - indent)):
                if line.plain:  # a blank line gets no trailing spaces
                    yield Segment(" " * indent)
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
