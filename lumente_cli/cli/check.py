"""`lumente check CONCEPT`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from lumente_cli.cli.common import err_console, globals_of, handle_errors, out_console
from lumente_cli.cli.completion import concept_names
from lumente_cli.cli.practice import ProviderChoice
from lumente_cli.exitcodes import ExitCode

if TYPE_CHECKING:
    from rich.status import Status

MAX_CLAIMS = 10  # the most claims an explanation has (concepts/explanations.py)


@handle_errors
def check(
    concept: Annotated[str, typer.Argument(metavar="CONCEPT", help="The concept the AI explains, e.g. jwt.",
                                           autocompletion=concept_names)],
    predict: Annotated[Optional[int], typer.Option("--predict", min=0, max=MAX_CLAIMS, metavar="N",
                                                    help="How many claims you will judge right, instead of asking.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the round's events as NDJSON on stdout.")] = False,
    no_memory: Annotated[bool, typer.Option("--no-memory", help="Do not read or write long-term memory this time.")] = False,
    provider: Annotated[Optional[ProviderChoice], typer.Option(
        "--provider", help="Who writes the explanation: claude writes a fresh one, offline shows a shipped one "
                           "(default: claude when ANTHROPIC_API_KEY is set, else offline). Judging is offline.")] = None,
) -> None:
    """Check the AI: judge an AI's explanation of a concept, claim by claim.
    Predict how many claims you will judge right, flag the wrong ones and say why."""
    from lumente_cli.checking.runner import CHECK_EVENT_KINDS
    from lumente_cli.checking.wiring import CheckOptions, check as play, find_concept
    from lumente_cli.practice.events import Emitter, ndjson_sink
    from lumente_cli.practice.student_io import ScriptedIO, TerminalIO
    from lumente_cli.views.check import CheckView
    from lumente_cli.views.console import safe
    from lumente_cli.workspace import Workspace

    g = globals_of()
    prompts = err_console()

    def spinner(message: str) -> Status:
        return prompts.status(message, spinner="dots")

    ws = Workspace()
    try:
        lib = ws.library()
        chosen = find_concept(lib, concept)
        interactive = sys.stdin is not None and sys.stdin.isatty()
        io = TerminalIO(err_console(quiet_ok=False)) if interactive else ScriptedIO(echo=prompts)
        emitter = Emitter(kinds=CHECK_EVENT_KINDS)
        emitter.add(CheckView(err_console() if json_out else out_console(), verbose=g.verbose))
        if json_out:
            emitter.add(ndjson_sink(sys.stdout))
        for problem in lib.problems:
            prompts.print(safe(f"warning: {problem}", "yellow"), soft_wrap=True)
        code = play(ws, chosen, CheckOptions(predict=predict, no_memory=no_memory,
                                                      provider=provider.value if provider else None), io=io, emitter=emitter,
                    spinner=spinner)
    finally:
        ws.close()
    if code != ExitCode.OK:
        raise typer.Exit(int(code))
