"""`lumente practice CONCEPT`."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated, Optional

import typer

from lumente_cli.cli.common import err_console, globals_of, handle_errors, out_console
from lumente_cli.errors import UsageError
from lumente_cli.exitcodes import ExitCode
from lumente_cli.cli.completion import concept_names


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
    from lumente_cli.agents.factory import make_agents
    from lumente_cli.memory.background import deliver_later
    from lumente_cli.memory.service import LearnerMemory
    from lumente_cli.practice.concept_choice import find_or_map
    from lumente_cli.practice.events import Emitter, ndjson_sink
    from lumente_cli.practice.runner import PracticeRun
    from lumente_cli.practice.student_io import ScriptedIO, TerminalIO
    from lumente_cli.views.console import safe
    from lumente_cli.views.session import SessionView
    from lumente_cli.workspace import Workspace

    if resume and restart:
        raise UsageError("--resume and --restart cannot be used together.")
    g = globals_of()
    ws = Workspace()
    try:
        lib = ws.library()
        prompts = err_console()  # notices, spinners, the echo of a script: -q hides them
        found, saved = find_or_map(lib, concept, settings=ws.settings, provider=provider.value if provider else None,
                                   mapped_dir=ws.paths.mapped_concepts_dir,
                                   mapping=lambda message: prompts.status(message, spinner="dots"))
        if saved is not None:
            prompts.print(safe(f"Mapped {found.name} and saved it to {saved}.", "dim"), soft_wrap=True)
        interactive = sys.stdin is not None and sys.stdin.isatty()  # `<&-` leaves no stdin at all
        # -q hides notices, never the questions a student must answer.
        io = TerminalIO(err_console(quiet_ok=False)) if interactive else ScriptedIO(echo=prompts)
        emitter = Emitter()
        view_console = err_console() if json_out else out_console()
        emitter.add(SessionView(view_console, verbose=g.verbose))
        if json_out:
            emitter.add(ndjson_sink(sys.stdout))
        for problem in lib.problems:
            prompts.print(safe(f"warning: {problem}", "yellow"), soft_wrap=True)
        agents, usage = make_agents(found, ws.settings, provider.value if provider else None,
                                    notify=lambda message: emitter.emit("notice", message=message))
        store = ws.store
        learner_id = store.learner_id(ws.pseudonym)
        backend = ws.memory_backend(disabled=no_memory)
        memory = LearnerMemory(backend, store, ws.pseudonym, found.id) if backend.enabled else None
        run = PracticeRun(
            concept=found, store=store, learner_id=learner_id, agents=agents, io=io, emitter=emitter,
            memory=memory, memory_kind=backend.kind, predict=predict,
            resume="resume" if resume else ("restart" if restart else "ask"),
            spinner=lambda message: prompts.status(message, spinner="dots"), usage=usage,
            deliver_later=deliver_later,
        )
        with _stop_signals_pause():
            code = run.run()
        backend.close()
    finally:
        ws.close()
    if code != ExitCode.OK:
        raise typer.Exit(int(code))


class _StopSignal(KeyboardInterrupt):
    """SIGTERM or SIGHUP during a session: pause it, as Ctrl-C does."""


def _stop_signals_pause():  # noqa: ANN202 - a context manager
    import contextlib
    import signal

    @contextlib.contextmanager
    def installed():  # noqa: ANN202
        def stop(signum: int, _frame: object) -> None:
            raise _StopSignal(signal.Signals(signum).name)

        previous = {}
        for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if sig is not None:
                try:
                    previous[sig] = signal.signal(sig, stop)
                except ValueError:  # not the main thread (an embedding test): leave signals alone
                    pass
        try:
            yield
        finally:
            for sig, old in previous.items():
                signal.signal(sig, old)

    return installed()
