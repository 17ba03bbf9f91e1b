"""The two light renderables: they wrap within the width, indent every line,
leave no trailing spaces, and keep each text's own style."""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text

from lumente_cli.views.console import Columns, Indented

LONG = "A compact, signed token that carries claims between parties, and nobody needs a session store for it."


def _render(renderable, *, color: bool) -> str:
    console = Console(file=io.StringIO(), width=40, force_terminal=color, color_system="standard" if color else None)
    console.print(renderable)
    return console.file.getvalue()


def test_indented_blocks_wrap_within_the_width_and_keep_their_style():
    out = _render(Indented([(0, Text("JWT", style="bold")), (4, Text(LONG))]), color=False)
    lines = out.splitlines()
    assert lines[0] == "JWT"
    assert all(len(line) <= 40 and line.startswith("    ") and line == line.rstrip() for line in lines[1:])
    assert " ".join(line.strip() for line in lines[1:]) == LONG
    assert "\x1b[1mJWT\x1b[0m" in _render(Indented([(0, Text("JWT", style="bold"))]), color=True)


def test_columns_wrap_the_right_cell_beside_the_left_one():
    out = _render(Columns((Text("concept"), Text("what it is")), [(Text("jwt", style="cyan"), Text(LONG))]),
                  color=False)
    lines = out.splitlines()
    assert lines[0] == "concept  what it is"
    assert lines[1].startswith("jwt      A compact")
    assert all(len(line) <= 40 and line == line.rstrip() for line in lines)
    assert all(line.startswith(" " * 9) for line in lines[2:])
    assert "\x1b[36mjwt\x1b[0m" in _render(Columns((Text("c"), Text("w")), [(Text("jwt", style="cyan"), Text("x"))]),
                                           color=True)
