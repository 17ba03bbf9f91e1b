"""`lumente doctor` for people: one line per check, how to fix what is wrong, and a summary."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from lumente_cli.doctor import Check
from lumente_cli.views.console import safe

STYLE = {"ok": "green", "warn": "yellow", "fail": "bold red"}
LABEL = {"ok": "ok", "warn": "warn", "fail": "FAIL"}


def show_checks(console: Console, checks: list[Check], *, quiet: bool) -> None:
    """Every check (with -q, only those that are not ok), then the count of problems.
    A check's detail and fix quote outside text (paths, a server's reply): sanitised."""
    width = max(len(c.name) for c in checks)
    for c in checks:
        if quiet and c.status == "ok":
            continue
        line = Text(f"{LABEL[c.status]:<4}  ", style=STYLE[c.status])
        line.append(f"{c.name:<{width}}  ", style="cyan")
        line.append_text(safe(c.detail))
        console.print(line, soft_wrap=True)
        if c.fix:
            fix = Text(" " * (width + 6)) + Text("fix: ", style="bold") + safe(c.fix)
            console.print(fix, soft_wrap=True)
    failed = sum(c.status == "fail" for c in checks)
    warned = sum(c.status == "warn" for c in checks)
    if not quiet or failed or warned:
        summary = (f"{failed} problem{'s' if failed != 1 else ''}"
                   f"{f', {warned} warning' + ('s' if warned != 1 else '') if warned else ''}."
                   if failed or warned else "All is well.")
        console.print(Text(summary, style="bold red" if failed else ("yellow" if warned else "green")))
