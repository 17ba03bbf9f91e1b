"""Consoles and safe text. Outside text (concept files, model replies) is
sanitised and printed as plain Text, never parsed as Rich markup."""

from __future__ import annotations

import os
import sys

from rich.console import Console
from rich.text import Text

from lumente_cli.text import sanitize


def make_console(*, stderr: bool = False, no_color: bool = False, quiet: bool = False) -> Console:
    color_off = no_color or bool(os.environ.get("NO_COLOR"))
    return Console(
        stderr=stderr,
        no_color=color_off,
        highlight=False,
        emoji=False,
        quiet=quiet,
        file=sys.stderr if stderr else sys.stdout,
    )


def safe(text: str, style: str = "") -> Text:
    return Text(sanitize(text), style=style)
