"""Wiring a practice run from the workspace: the concept (from the library, or
mapped with Claude for a name new to it), the agents, the learner's memory,
and the run itself. `lumente practice` parses its options, calls these with
its terminal's input and views, and renders what they return."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from lumente_cli.agents.factory import make_agents
from lumente_cli.concepts.schema import Concept
from lumente_cli.exitcodes import ExitCode
from lumente_cli.memory.background import deliver_later
from lumente_cli.memory.service import LearnerMemory
from lumente_cli.practice.concept_choice import find_or_map
from lumente_cli.practice.events import Emitter
from lumente_cli.practice.opening import ResumeChoice
from lumente_cli.practice.runner import PracticeRun, Spinner, no_spinner
from lumente_cli.practice.student_io import StudentIO
from lumente_cli.workspace import Workspace


@dataclass(frozen=True)
class ChosenConcept:
    concept: Concept
    # Where Claude's map of a name new to the library was saved; None for a library concept.
    mapped_to: Path | None
    # Concept files that could not be read, for the student to be warned about.
    problems: tuple[str, ...]


def choose_concept(ws: Workspace, name: str, provider: str | None, *,
                   spinner: Spinner = no_spinner) -> ChosenConcept:
    """The concept called `name` (id, name or alias). A name nothing in the library
    comes close to is mapped with Claude, once, when Claude is configured; a near
    miss is a typo, and gets a suggestion instead (a ConceptError)."""
    lib = ws.library()
    found, mapped_to = find_or_map(lib, name, settings=ws.settings, provider=provider,
                                   mapped_dir=ws.paths.mapped_concepts_dir, mapping=spinner)
    return ChosenConcept(found, mapped_to, tuple(lib.problems))


@dataclass(frozen=True)
class PracticeOptions:
    predict: int | None = None
    provider: str | None = None  # "offline" or "claude"; None lets the settings choose
    no_memory: bool = False
    resume: ResumeChoice = "ask"


def practise(ws: Workspace, concept: Concept, options: PracticeOptions, *, io: StudentIO, emitter: Emitter,
             spinner: Spinner = no_spinner) -> ExitCode:
    """Play one session on `concept` to its end (or a pause) and say how it ended."""
    agents, usage = make_agents(concept, ws.settings, options.provider,
                                notify=lambda message: emitter.emit("notice", message=message))
    store = ws.store
    backend = ws.memory_backend(disabled=options.no_memory)
    try:
        with stop_signals_pause() as stops:
            run = PracticeRun.open(
                concept=concept, store=store, learner_id=store.learner_id(ws.pseudonym), agents=agents, io=io,
                emitter=emitter, memory=LearnerMemory(backend, store, ws.pseudonym, concept.id) if backend.enabled else None,
                predict=options.predict, resume=options.resume, spinner=spinner, usage=usage,
                deliver_later=deliver_later,
            )
            return run.run(arm=stops.arm)
    finally:
        backend.close()


class StopSignal(KeyboardInterrupt):
    """SIGTERM or SIGHUP during a session: pause it, as Ctrl-C does."""


class StopSignals:
    """SIGTERM and SIGHUP become a StopSignal once the run can pause its session. One
    that lands while the session is being opened waits for that moment, instead of
    escaping with the session half-open."""

    def __init__(self) -> None:
        self.armed = False
        self.pending: str | None = None

    def on_signal(self, signum: int, _frame: object) -> None:
        name = signal.Signals(signum).name
        if not self.armed:
            self.pending = name
            return
        raise StopSignal(name)

    def arm(self) -> None:
        """From now on a stop signal pauses the run; one that came earlier does so now."""
        self.armed = True
        if self.pending is not None:
            raise StopSignal(self.pending)


@contextlib.contextmanager
def stop_signals_pause() -> Iterator[StopSignals]:
    stops = StopSignals()
    previous = {}
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            try:
                previous[sig] = signal.signal(sig, stops.on_signal)
            except ValueError:  # not the main thread (an embedding test): leave signals alone
                pass
    try:
        yield stops
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
