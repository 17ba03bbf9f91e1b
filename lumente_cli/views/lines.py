"""Styled lines, wrapped at the terminal's width, written without Rich: for
the screens that are nothing but lines (the concept list, progress, what
memory holds).

Importing Rich's console costs more than these screens take to print, and
every command is a new process (docs/benchmarks.md). The decisions are the
ones the Rich consoles of views/console.py make, so both kinds of screen look
alike: no escape sequence at all with --no-color or NO_COLOR; styles on a
terminal, or anywhere with FORCE_COLOR (TTY_COMPATIBLE too), never on a dumb
one; the width from COLUMNS, else the terminal's, else 80; words wrapped as
Rich wraps them, a word longer than the line folded. Outside text is
sanitised on its way in (`safe`), as it is for Rich.
"""

from __future__ import annotations

import os
import re
import sys
import unicodedata
from collections.abc import Mapping
from typing import NamedTuple, TextIO

from lumente_cli.text import sanitize

_SGR = {"bold": "1", "dim": "2", "italic": "3", "underline": "4", "black": "30", "red": "31", "green": "32",
        "yellow": "33", "blue": "34", "magenta": "35", "cyan": "36", "white": "37"}
_COLOURS = frozenset(("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"))
_WORD = re.compile(r"\s*\S+\s*")
# Every character up to U+02FF takes one column (controls are sanitised away before
# text gets here); past it, combining, format and wide characters are looked up.
_BEYOND_LATIN = re.compile("[^\x00-\u02ff]")
TAB_SIZE = 8
DEFAULT_WIDTH = 80


def _combined(base: str, own: str) -> str:
    """`base` with `own` on top: attributes add up, `own`'s colour wins."""
    if not base:
        return own
    if not own:
        return base
    words = own.split()
    if any(w in _COLOURS for w in words):
        return " ".join([w for w in base.split() if w not in _COLOURS] + words)
    return f"{base} {own}"


class Styled:
    """Text made of styled spans, like a Rich `Text`: a base style for the whole
    of it, and each span's own style on top."""

    __slots__ = ("spans", "style")

    def __init__(self, text: str = "", style: str = "") -> None:
        self.style = style
        self.spans: list[tuple[str, str]] = [(text.expandtabs(TAB_SIZE), "")] if text else []

    def append(self, text: str | Styled, style: str = "") -> Styled:
        if isinstance(text, Styled):
            self.spans += [(t, _combined(text.style, s)) for t, s in text.spans]
        elif text:
            self.spans.append((text.expandtabs(TAB_SIZE), style))
        return self

    def __add__(self, other: Styled) -> Styled:
        joined = Styled(style=self.style)
        joined.spans = list(self.spans)
        return joined.append(other)

    @property
    def plain(self) -> str:
        return "".join(t for t, _ in self.spans)

    def _cut(self, start: int, end: int) -> Styled:
        """The characters from `start` to `end`, trailing whitespace dropped."""
        part = Styled(style=self.style)
        at = 0
        for text, style in self.spans:
            lo, hi = max(start, at), min(end, at + len(text))
            if lo < hi:
                part.spans.append((text[lo - at:hi - at], style))
            at += len(text)
        while part.spans and not part.spans[-1][0].rstrip():
            part.spans.pop()
        if part.spans:
            text, style = part.spans[-1]
            part.spans[-1] = (text.rstrip(), style)
        return part

    def render(self, colour: bool) -> str:
        """The text, with SGR sequences around each run of one style when `colour`."""
        if not colour:
            return self.plain
        runs: list[tuple[str, str]] = []
        for text, own in self.spans:
            codes = ";".join(sorted({_SGR[w] for w in _combined(self.style, own).split() if w in _SGR}, key=int))
            if runs and runs[-1][1] == codes:
                runs[-1] = (runs[-1][0] + text, codes)
            else:
                runs.append((text, codes))
        return "".join(f"\x1b[{codes}m{text}\x1b[0m" if codes else text for text, codes in runs)


def safe(text: str, style: str = "") -> Styled:
    """Outside text (a concept file, a memory row), sanitised."""
    return Styled(sanitize(text), style)


def cell_len(text: str) -> int:
    """Columns `text` takes on a terminal: wide characters two, combining ones none."""
    if text.isascii():
        return len(text)
    return len(text) + sum(_cells(ch) - 1 for ch in _BEYOND_LATIN.findall(text))


def _cells(ch: str) -> int:
    if unicodedata.combining(ch) or unicodedata.category(ch) == "Cf":
        return 0
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def _breaks(text: str, width: int) -> list[int]:
    """Where to break `text` so each line fits `width`: Rich's word wrap, folding a
    word longer than a line."""
    measure = len if text.isascii() else cell_len
    cuts: list[int] = []
    offset = 0
    for match in _WORD.finditer(text):
        start, word = match.start(), match.group()
        length = measure(word.rstrip())
        if width - offset >= length:
            offset += measure(word)
        elif length > width:
            pieces = _chop(word, width)
            for i, piece in enumerate(pieces):
                if start:
                    cuts.append(start)
                if i == len(pieces) - 1:
                    offset = cell_len(piece)
                else:
                    start += len(piece)
        elif offset and start:
            cuts.append(start)
            offset = measure(word)
    return cuts


def _chop(word: str, width: int) -> list[str]:
    pieces, used = [""], 0
    for ch in word:
        cells = _cells(ch)
        if used + cells > width and pieces[-1]:
            pieces.append(ch)
            used = cells
        else:
            pieces[-1] += ch
            used += cells
    return pieces


def wrap(text: Styled, width: int) -> list[Styled]:
    """`text` in lines of at most `width` columns, without trailing spaces; a
    line break in the text starts a new line."""
    plain = text.plain
    if "\n" not in plain and not plain.endswith(" ") and cell_len(plain) <= width:
        return [text]  # most lines: nothing to cut
    lines: list[Styled] = []
    start = 0
    for paragraph in plain.split("\n"):
        end = start + len(paragraph)
        cuts = [start + c for c in _breaks(paragraph, width)] if cell_len(paragraph) > width else []
        for lo, hi in zip([start, *cuts], [*cuts, end]):
            lines.append(text._cut(lo, hi))
        start = end + 1
    return lines


class Row(NamedTuple):
    """`text` wrapped in the columns after `left`, with `lead` before its first line
    (a left cell, or nothing for an indented block)."""

    text: Styled
    left: int = 0
    lead: Styled | None = None


def block(indent: int, text: Styled) -> Row:
    return Row(text, indent)


def columns(header: tuple[Styled, Styled], rows: list[tuple[Styled, Styled]], gap: int = 2) -> list[Row]:
    """A short left cell and a long right one wrapped beside it, under a header."""
    left = max(cell_len(name.plain) for name, _ in [header, *rows]) + gap
    return [Row(text, left, name) for name, text in [header, *rows]]


def table(header: list[Styled], rows: list[list[Styled]], *, right: frozenset[int] = frozenset(),
          gap: int = 2) -> list[Row]:
    """Cells aligned in columns (those numbered in `right` to the right), `gap` apart."""
    widths = [max(cell_len(r[i].plain) for r in [header, *rows]) for i in range(len(header))]
    lines = []
    for cells in [header, *rows]:
        line = Styled()
        for i, cell in enumerate(cells):
            pad = " " * (widths[i] - cell_len(cell.plain))
            if i in right:
                line.append(pad)
            line.append(cell)
            if i < len(cells) - 1:
                line.append(" " * gap if i in right else pad + " " * gap)
        lines.append(Row(line))
    return lines


class Screen:
    """Where a command's lines go: stdout (or `file`), with or without styles."""

    def __init__(self, file: TextIO | None = None, *, no_color: bool = False) -> None:
        self.file = file if file is not None else sys.stdout
        environ = os.environ
        terminal = _is_terminal(self.file, environ)
        dumb = environ.get("TERM", "").lower() in ("dumb", "unknown")
        self.colour = terminal and not dumb and not no_color and not environ.get("NO_COLOR")
        self.width = DEFAULT_WIDTH if terminal and dumb else _width(environ)

    @property
    def encoding(self) -> str:
        return (getattr(self.file, "encoding", None) or "utf-8").lower()

    def print(self, rows: list[Row] | Styled | str) -> None:
        if isinstance(rows, str):
            rows = Styled(rows)
        if isinstance(rows, Styled):
            rows = [Row(rows)]
        out: list[str] = []
        for row in rows:
            blank = " " * row.left
            lead, lead_gap = "", blank
            if row.lead is not None:
                lead = row.lead.render(self.colour)
                lead_gap = " " * max(0, row.left - cell_len(row.lead.plain))
            for i, line in enumerate(wrap(row.text, max(1, self.width - row.left))):
                text = line.render(self.colour)
                before = (lead + lead_gap if i == 0 else blank) if text else (lead if i == 0 else "")
                out.append((before + text).rstrip(" "))
        self.file.write("".join(line + "\n" for line in out))
        self.file.flush()


def _is_terminal(file: TextIO, environ: Mapping[str, str]) -> bool:
    compatible = environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    forced = environ.get("FORCE_COLOR")
    if forced is not None:
        return forced != ""
    if sys.platform == "win32":  # a Windows console may not read escape sequences: plain unless told
        return False
    try:
        return file.isatty()
    except (AttributeError, ValueError):
        return False


def _width(environ: Mapping[str, str]) -> int:
    """COLUMNS, else the size of the first standard stream that is a terminal, else 80."""
    columns = environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns):
        return int(columns)
    for fd in (0, 1, 2):
        try:
            width = os.get_terminal_size(fd).columns
        except (AttributeError, ValueError, OSError):
            continue
        return width or DEFAULT_WIDTH
    return DEFAULT_WIDTH
