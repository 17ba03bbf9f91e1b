"""Consoles and safe text. Outside text (concept files, model replies) is
sanitised and printed as plain Text, never parsed as Rich markup."""

from __future__ import annotations

import os
import sys

from rich.console import Console
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

    def __rich_console__(self, console: Console, options):  # noqa: ANN201 - rich's protocol
        from rich.segment import Segment

        newline = Segment.line()
        for indent, text in self.blocks:
            pad = Segment(" " * indent) if indent else None
            for line in text.wrap(console, max(1, options.max_width - indent)):
                line.rstrip()
                if pad:
                    yield pad
                yield from line.render(console)
                yield newline
