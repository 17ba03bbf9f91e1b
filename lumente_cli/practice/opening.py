"""Opening a practice session before anything is played: resume the paused one
or start a new one, and hold it for this process."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from lumente_cli.concepts.schema import Concept
from lumente_cli.errors import SessionBusy
from lumente_cli.parts import PARTS
from lumente_cli.practice.student_io import StudentIO
from lumente_cli.session import SessionState, replay, start
from lumente_cli.store import LocalStore, SessionRecord

ResumeChoice = Literal["ask", "resume", "restart"]


@dataclass(frozen=True)
class OpenedSession:
    record: SessionRecord
    state: SessionState
    resumed: bool
    # A script found a paused session and, not told to resume it, left it as it was.
    left_paused: bool


def open_session(store: LocalStore, learner_id: int, concept: Concept, provider: str, io: StudentIO,
                 resume: ResumeChoice) -> OpenedSession:
    """The session this run plays, held by this process. Raises SessionBusy when
    another running lumente holds it."""
    unfinished = store.unfinished_session(learner_id, concept.id)
    resumed = left_paused = False
    if unfinished is not None and (holder := store.holder_of(unfinished.id)):
        # Neither resumed nor set aside under a running process's feet.
        raise SessionBusy(
            f"this {concept.name} session is open in another lumente ({holder}).",
            hint="Finish or quit it there (Ctrl-C pauses it), then run this again.",
        )
    if unfinished is not None:
        set_aside = True
        if resume == "ask" and not io.interactive:
            # A script that did not say --resume wants a session of its own: it gets a new
            # one, and the paused one stays paused for whoever wants to resume it.
            set_aside, left_paused = False, True
        elif resume == "ask":
            done = sum(p.status == "done" for p in unfinished.state.parts)
            resumed = io.confirm(
                f"You have a paused {concept.name} session ({done} of {len(PARTS)} parts done). Resume it?",
                True,
            )
        else:
            resumed = resume == "resume"
        if not resumed and set_aside:
            store.set_status(unfinished.id, "abandoned")
    if resumed and unfinished is not None:
        record = unfinished
        # The saved state must be what its saved events produce; replay proves it.
        state = replay(unfinished.initial, unfinished.events)
    else:
        state = start(concept.id, store.levels(learner_id, concept.id))
        record = store.create_session(learner_id, concept.id, provider, state)
    if (holder := store.claim(record.id)) is not None:  # lost a race with another process
        raise SessionBusy(f"this {concept.name} session was just opened by another lumente ({holder}).")
    return OpenedSession(record, state, resumed, left_paused)
