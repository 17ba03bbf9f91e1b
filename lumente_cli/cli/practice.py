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

    from lumente_cli.practice.wiring import PracticeOptions
    from lumente_cli.workspace import Workspace


class ProviderChoice(str, Enum):
    offline = "offline"
    claude = "claude"


@handle_errors
def practice(
    concept: Annotated[Optional[str], typer.Argument(
        metavar="[CONCEPT]", autocompletion=concept_names,
        help="The concept to practise, e.g. jwt (`lumente concepts` lists them). Without one: your paused "
             "session, else what `lumente next` suggests.")] = None,
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
    interactive = sys.stdin is not None and sys.stdin.isatty()  # `<&-` leaves no stdin at all
    ws = Workspace()
    try:
        if concept is None:
            concept, options = _offered(ws, options, interactive)
            if concept is None:
                return
        chosen = choose_concept(ws, concept, options.provider, spinner=spinner)
        if chosen.mapped_to is not None:
            prompts.print(safe(f"Mapped {chosen.concept.name} and saved it to {chosen.mapped_to}.", "dim"),
                          soft_wrap=True)
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


def _offered(ws: Workspace, options: PracticeOptions, interactive: bool) -> tuple[str | None, PracticeOptions]:
    """No concept named: the paused session's (resumed unless --restart), else the top
    recommendation, asked on a terminal. A script is never asked: it gets the suggestion
    in a usage error, so that no answer line of it is read as a yes or a no."""
    import dataclasses

    from lumente_cli.practice.next_concept import offer
    from lumente_cli.views.console import safe

    found = offer(ws)
    if found is None:
        raise UsageError("no concept given, and nothing to suggest yet.",
                         hint="Name one (`lumente concepts` lists them), or run `lumente scan` in your project first.")
    prompts = err_console()
    if found.paused:
        prompts.print(safe(f"Resuming your paused {found.name} session.", "dim"), soft_wrap=True)
        resume = "restart" if options.resume == "restart" else "resume"
        return found.concept, dataclasses.replace(options, resume=resume)
    if not interactive:
        raise UsageError("no concept given, and no terminal to ask on.",
                         hint=f"Lumente suggests `lumente practice {found.concept}`: {found.reason}.")
    question = safe(f"Practise {found.name}? ({found.reason})")
    err_console(quiet_ok=False).print(question, soft_wrap=True)
    if not typer.confirm("Start it?", default=True, err=True):
        prompts.print("Nothing started. `lumente next` lists more; `lumente concepts` lists them all.")
        return None, options
    return found.concept, options

