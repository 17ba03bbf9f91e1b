"""`lumente doctor`: check everything Lumente depends on, and say how to fix what is wrong."""

from __future__ import annotations

from typing import Annotated

import typer

from lumente_cli.cli.common import globals_of, handle_errors, out_console, print_json
from lumente_cli.exitcodes import ExitCode


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
    from lumente_cli.views.doctor import show_checks

    g = globals_of()
    checks = run_checks(verbose=g.verbose, online=online)
    failed = any(c.status == "fail" for c in checks)
    if json_out:
        print_json({"ok": not failed, "checks": [c.to_json() for c in checks]})
    else:
        show_checks(out_console(), checks, quiet=g.quiet)
    if failed:
        raise typer.Exit(int(ExitCode.ERROR))
