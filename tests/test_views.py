"""The light renderers: Rich's `Indented` and the plain lines of views/lines.py
wrap within the width, indent every line, leave no trailing spaces, and keep
each text's own style; the plain lines make Rich's choices about colour."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.text import Text

from lumente_cli.views import lines
from lumente_cli.views.console import Indented

LONG = "A compact, signed token that carries claims between parties, and nobody needs a session store for it."


def _render(renderable, *, color: bool) -> str:
    console = Console(file=io.StringIO(), width=40, force_terminal=color, color_system="standard" if color else None)
    console.print(renderable)
    return console.file.getvalue()


def test_indented_blocks_wrap_within_the_width_and_keep_their_style():
    out = _render(Indented([(0, Text("JWT", style="bold")), (4, Text(LONG))]), color=False)
    text_lines = out.splitlines()
    assert text_lines[0] == "JWT"
    assert all(len(line) <= 40 and line.startswith("    ") and line == line.rstrip() for line in text_lines[1:])
    assert " ".join(line.strip() for line in text_lines[1:]) == LONG
    assert "\x1b[1mJWT\x1b[0m" in _render(Indented([(0, Text("JWT", style="bold"))]), color=True)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _screen(monkeypatch, *, width: int = 40, tty: bool = False, no_color: bool = False, **env: str) -> lines.Screen:
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TERM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", str(width))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return lines.Screen(Terminal() if tty else io.StringIO(), no_color=no_color)


def _printed(screen: lines.Screen, rows) -> str:
    screen.print(rows)
    return screen.file.getvalue()


def test_plain_blocks_wrap_as_rich_wraps_them(monkeypatch):
    for width in (40, 23, 9):
        rows = [lines.block(0, lines.Styled("JWT", "bold")), lines.block(4, lines.Styled(LONG))]
        ours = _printed(_screen(monkeypatch, width=width), rows)
        console = Console(file=io.StringIO(), width=width, color_system=None)
        console.print(Indented([(0, Text("JWT", style="bold")), (4, Text(LONG))]))
        assert ours == console.file.getvalue()


def test_columns_wrap_the_right_cell_beside_the_left_one(monkeypatch):
    rows = lines.columns((lines.Styled("concept"), lines.Styled("what it is")),
                         [(lines.Styled("  Web", "bold"), lines.Styled()), (lines.Styled("jwt", "cyan"), lines.Styled(LONG))])
    out_lines = _printed(_screen(monkeypatch), rows).splitlines()
    assert out_lines[0] == "concept  what it is"
    assert out_lines[1] == "  Web"
    assert out_lines[2].startswith("jwt      A compact")
    assert all(len(line) <= 40 and line == line.rstrip() for line in out_lines)
    assert all(line.startswith(" " * 9) for line in out_lines[3:])
    assert " ".join(line.strip() for line in out_lines[2:])[len("jwt "):].strip() == LONG


def test_a_word_longer_than_the_line_is_folded_and_wide_characters_take_two_columns(monkeypatch):
    out = _printed(_screen(monkeypatch, width=10), lines.Styled("x" * 25 + " 漢字漢字漢字"))
    assert out.splitlines() == ["x" * 10, "x" * 10, "x" * 5, "漢字漢字漢", "字"]
    assert all(lines.cell_len(line) <= 10 for line in out.splitlines())


def test_a_table_aligns_its_columns_and_leaves_no_trailing_spaces(monkeypatch):
    rows = lines.table([lines.Styled("part"), lines.Styled("now"), lines.Styled("trend")],
                       [[lines.Styled("Category"), lines.Styled("3"), lines.Styled("▁▅")],
                        [lines.Styled("Features"), lines.Styled("12"), lines.Styled("")]], right=frozenset({1}))
    assert _printed(_screen(monkeypatch), rows).splitlines() == [
        "part      now  trend", "Category    3  ▁▅", "Features   12"]


def test_styles_stack_as_in_rich_and_become_one_escape_sequence_per_run(monkeypatch):
    head = lines.Styled("JWT", "bold").append("  2 sessions", "dim").append(" shrinking", "green")
    out = _printed(_screen(monkeypatch, tty=True), head)
    assert out == "\x1b[1mJWT\x1b[0m\x1b[1;2m  2 sessions\x1b[0m\x1b[1;32m shrinking\x1b[0m\n"
    label = lines.Styled("Category", "bold cyan") + lines.Styled(" (asks)", "dim")
    assert _printed(_screen(monkeypatch, tty=True), label) == "\x1b[1;36mCategory\x1b[0m\x1b[1;2;36m (asks)\x1b[0m\n"


@pytest.mark.parametrize("tty, env, no_color, coloured", [
    (True, {}, False, True),
    (False, {}, False, False),  # a pipe or a file
    (False, {"FORCE_COLOR": "1"}, False, True),
    (True, {"FORCE_COLOR": ""}, False, False),
    (False, {"TTY_COMPATIBLE": "1"}, False, True),
    (True, {"TTY_COMPATIBLE": "0", "FORCE_COLOR": "1"}, False, False),
    (True, {"TERM": "dumb"}, False, False),
    (True, {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False, False),
    (True, {"FORCE_COLOR": "1"}, True, False),  # --no-color
])
def test_escape_sequences_only_where_rich_would_print_them(monkeypatch, tty, env, no_color, coloured):
    out = _printed(_screen(monkeypatch, tty=tty, no_color=no_color, **env), lines.Styled("jwt", "cyan"))
    assert out == ("\x1b[36mjwt\x1b[0m\n" if coloured else "jwt\n")


def test_outside_text_is_sanitised_on_the_way_in(monkeypatch):
    out = _printed(_screen(monkeypatch, tty=True), lines.safe("evil\x1b[2J\x1b]8;;http://x\x07name\u202e", "bold"))
    assert out == "\x1b[1mevilname\x1b[0m\n"
