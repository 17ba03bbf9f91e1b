"""`lumente practice CONCEPT`."""

from __future__ import annotations

import sys
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from lumente_cli.cli.common import err_console, globals_of, handle_errors, out_console
from lumente_cli.errors import UsageError
from lumente_cli.exitcodes import ExitCode
from lumente_cli.cli.completion import concept_names

if TYPE_CHECKING:
    from rich.status import Status


class ProviderChoice(str, Enum):
    offline = "offline"
    claude = "claude"


@handle_errors
def practice(
    concept: Annotated[str, typer.Argument(metavar="CONCEPT", help="The concept to practise, e.g. jwt (`lumente concepts` lists them).",
                                           autocompletion=concept_names)],
    predict: Annotated[Optional[int], typer.Option("--predict", min=0, max=8, metavar="N",
                                                    help="Your predicted score, 0-8, instead of asking.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the session's events as NDJSON on stdout.")] = False,
    no_memory: Annotated[bool, typer.Option("--no-memory", help="Do not read or write long-term memory this time.")] = False,
    provider: Annotated[Optional[ProviderChoice], typer.Option("--provider", help="Which agents run (default: claude when ANTHROPIC_API_KEY is set, else offline).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Resume a paused session on this concept without asking.")] = False,
    restart: Annotated[bool, typer.Option("--restart", help="Start over, setting a paused session aside, without asking.")] = False,
) -> None:
    """Practise a concept: predict your score, work out the four parts, then see what you proved."""
    from lumente_cli.practice.events import Emitter, ndjson_sink
    from lumente_cli.practice.student_io import ScriptedIO, TerminalIO
    from lumente_cli.practice.wiring import PracticeOptions, choose_concept, practise
    from lumente_cli.views.console import safe
    from lumente_cli.views.session import SessionView
    from lumente_cli.workspace import Workspace

    if resume and restart:
        raise UsageError("--resume and --restart cannot be used together.")
    g = globals_of()
    prompts = err_console()  # notices, spinners, the echo of a script: -q hides them

    def spinner(message: str) -> Status:
        return prompts.status(message, spinner="dots")

    options = PracticeOptions(predict=predict, provider=provider.value if provider else None, no_memory=no_memory,
                              resume="resume" if resume else ("restart" if restart else "ask"))
    ws = Workspace()
    try:
        chosen = choose_concept(ws, concept, options.provider, spinner=spinner)
        if chosen.mapped_to is not None:
            prompts.print(safe(f"Mapped {chosen.concept.name} and saved it to {chosen.mapped_to}.", "dim"),
                          soft_wrap=True)
        interactive = sys.stdin is not None and sys.stdin.isatty()  # `<&-` leaves no stdin at all
        # -q hides notices, never the questions a student must answer.
        io = TerminalIO(err_console(quiet_ok=False)) if interactive else ScriptedIO(echo=prompts)
        emitter = Emitter()
        emitter.add(SessionView(err_console() if json_out else out_console(), verbose=g.verbose))
        if json_out:
            emitter.add(ndjson_sink(sys.stdout))
        for problem in chosen.problems:
            prompts.print(safe(f"warning: {problem}", "yellow"), soft_wrap=True)
        code = practise(ws, chosen.concept, options, io=io, emitter=emitter, spinner=spinner)
    finally:
        ws.close()
    if code != ExitCode.OK:
        raise typer.Exit(int(code))
