"""`lumente doctor`: check everything Lumente depends on, and say how to fix what is wrong."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.text import Text

from lumente_cli.cli.common import globals_of, handle_errors, out_console, print_json
from lumente_cli.exitcodes import ExitCode

STYLE = {"ok": "green", "warn": "yellow", "fail": "bold red"}
LABEL = {"ok": "ok", "warn": "warn", "fail": "FAIL"}


@handle_errors
def doctor(
    json_out: Annotated[bool, typer.Option(
        "--json", help="Print the checks as JSON: {ok, checks: [{name, status, detail, fix}]}.")] = False,
    online: Annotated[bool, typer.Option(
        "--online", help="Also check the Claude key and model with one small request (it is billed).")] = False,
) -> None:
    """Check Python, folders, config, database, outbox, memory, learner, provider and concept files, one line each.

    Exits 0 when no check fails (warnings are fine), 1 otherwise. Doctor only reads: it creates and changes nothing,
    and it calls Claude only with --online.
    """
    from lumente_cli.doctor import run_checks
    from lumente_cli.views.console import safe

    g = globals_of()
    checks = run_checks(verbose=g.verbose, online=online)
    failed = [c for c in checks if c.status == "fail"]
    if json_out:
        print_json({"ok": not failed, "checks": [c.to_json() for c in checks]})
    else:
        console = out_console()
        width = max(len(c.name) for c in checks)
        for c in checks:
            if g.quiet and c.status == "ok":
                continue
            line = Text(f"{LABEL[c.status]:<4}  ", style=STYLE[c.status])
            line.append(f"{c.name:<{width}}  ", style="cyan")
            line.append_text(safe(c.detail))
            console.print(line, soft_wrap=True)
            if c.fix:
                fix = Text(" " * (width + 6)) + Text("fix: ", style="bold") + safe(c.fix)
                console.print(fix, soft_wrap=True)
        warned = sum(c.status == "warn" for c in checks)
        if not g.quiet or failed or warned:
            summary = (f"{len(failed)} problem{'s' if len(failed) != 1 else ''}"
                       f"{f', {warned} warning' + ('s' if warned != 1 else '') if warned else ''}."
                       if failed or warned else "All is well.")
            console.print(Text(summary, style="bold red" if failed else ("yellow" if warned else "green")))
    if failed:
        raise typer.Exit(int(ExitCode.ERROR))
