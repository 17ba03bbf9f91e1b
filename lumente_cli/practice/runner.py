"""The practice loop: read the student's input, call the agents, feed the
engine, save every step, and emit events. All decisions about points and
levels are `advance()`'s; this module only moves data between the parts."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from lumente_cli.agents.contracts import (
    AskInput,
    CoachInput,
    EvaluateInput,
    MAX_SHOWN_CHARS,
    HintInput,
    JudgeInput,
    PartResult,
    Shown,
)
from lumente_cli.agents.memory_aware import MemoryAwareAgents
from lumente_cli.agents.protocol import Agents, Usage
from lumente_cli.concepts.schema import Concept
from lumente_cli.errors import LumenteError
from lumente_cli.exitcodes import ExitCode
from lumente_cli.memory.recall import Recall
from lumente_cli.memory.service import LearnerMemory
from lumente_cli.parts import LABELS, LEVEL_NAMES, MAX_LEVEL, PARTS, PartKey
from lumente_cli.practice.events import Emitter
from lumente_cli.practice.opening import ResumeChoice, open_session
from lumente_cli.practice.student_io import EndOfInput, StudentIO, is_help
from lumente_cli.session import (
    MAX_SCORE,
    AnswerJudged,
    HelpTapped,
    Predicted,
    QuestionJudged,
    SessionState,
    advance,
)
from lumente_cli.store import JudgedAnswer, LocalStore, SessionRecord
from lumente_cli.timeutil import now

Spinner = Callable[[str], contextlib.AbstractContextManager[Any]]


@contextlib.contextmanager
def no_spinner(_message: str) -> Iterator[None]:
    yield


@dataclass
class PracticeRun:
    """One session being played. Built by `open`, which opens (or resumes) the
    session first, so the record, the state and the agents are there from the start."""

    concept: Concept
    store: LocalStore
    record: SessionRecord
    state: SessionState
    agents: MemoryAwareAgents
    io: StudentIO
    emitter: Emitter
    resumed: bool = False
    left_paused: bool = False
    memory: LearnerMemory | None = None
    predict: int | None = None
    spinner: Spinner = no_spinner
    usage: Usage = field(default_factory=Usage)
    # Called when the write budget ran out while memory was still answering.
    deliver_later: Callable[[], bool] | None = None
    # What this part showed the student so far: the evaluator does not credit copies of it.
    shown: Shown = field(default_factory=Shown, init=False)

    @classmethod
    def open(
        cls, *, concept: Concept, store: LocalStore, learner_id: int, agents: Agents, io: StudentIO, emitter: Emitter,
        memory: LearnerMemory | None = None, predict: int | None = None, resume: ResumeChoice = "ask",
        spinner: Spinner = no_spinner, usage: Usage | None = None, deliver_later: Callable[[], bool] | None = None,
    ) -> PracticeRun:
        """Open or resume the learner's session on `concept` (see `open_session`), and
        log every event to it from now on."""
        opened = open_session(store, learner_id, concept, agents.name, io, resume)
        session_id = opened.record.id
        emitter.session_id = session_id
        emitter.log = lambda event: store.log_event(session_id, event["event"], event)

        def recall() -> Recall:
            if memory is None:
                return Recall("off", reason="memory is off")
            with spinner("Remembering…"):
                return memory.recall(session_id)

        return cls(
            concept=concept, store=store, record=opened.record, state=opened.state,
            agents=MemoryAwareAgents(agents, recall), io=io, emitter=emitter, resumed=opened.resumed,
            left_paused=opened.left_paused, memory=memory, predict=predict, spinner=spinner,
            usage=usage if usage is not None else Usage(), deliver_later=deliver_later,
        )

    # entry point -------------------------------------------------------------

    def run(self, arm: Callable[[], None] | None = None) -> ExitCode:
        """Play the session. `arm` is called first, inside the handling that pauses on an
        interrupt: a stop signal held back while the session was opened takes effect there."""
        try:
            if arm is not None:
                arm()
            self._announce()
            self._play()
        except KeyboardInterrupt:
            self._pause("interrupted")
            return ExitCode.INTERRUPTED
        except EndOfInput:
            self._pause("end_of_input")
            return ExitCode.PAUSED
        except LumenteError:
            self._pause("bad_input")
            raise
        except (OSError, sqlite3.Error):  # a full disk, a read-only file: keep what can be kept
            with contextlib.suppress(OSError, sqlite3.Error):
                self._pause("storage")
            raise
        self._finish()
        self.store.release(self.record.id)
        return ExitCode.OK

    # session lifecycle -----------------------------------------------------------

    def _announce(self) -> None:
        self.emitter.emit(
            "session_started",
            concept=self.concept.id,
            concept_name=self.concept.name,
            provider=self.agents.name,
            memory=self.memory.backend.kind if self.memory is not None else "off",
            resumed=self.resumed,
            levels={p.part: p.level for p in self.state.parts},
        )
        if self.left_paused:
            self.emitter.emit("notice", message=(
                f"A paused {self.concept.name} session is left as it was; this run starts a new one "
                f"(`lumente practice {self.concept.id} --resume` continues the paused one)."))

    def _pause(self, reason: str) -> None:
        if self.state.stage == "predict" and not self.record.events:
            # Stopped before a prediction: nothing to resume and nothing written; it must not
            # become the newest paused session and hide the one the student wants back.
            self.store.set_status(self.record.id, "abandoned")
            self.store.release(self.record.id)
            return
        self.store.set_status(self.record.id, "paused")
        self.store.release(self.record.id)
        active = self.state.active
        self.emitter.emit("session_paused", reason=reason, part=active.part if active else None)

    # the session ------------------------------------------------------------------

    def _play(self) -> None:
        if self.state.stage == "predict":
            value = self.predict if self.predict is not None else self.io.prediction()
            self._step(Predicted(value=value))
            self.emitter.emit("predicted", prediction=value)
        while not self.state.finished:
            self._play_part()

    def _play_part(self) -> None:
        part = self.state.active
        assert part is not None  # a session that is not finished has a part in play
        key, level = part.part, part.level
        self._present(key, level)
        if self.state.stage == "answer":
            text = self._read_until_answer(f"{LABELS[key]} > ")
            with self.spinner("Reading your answer…"):
                evaluation = self.agents.evaluate(
                    EvaluateInput(concept=self.concept.id, part=key, level=level, answer=text, shown=self.shown))
            self._judged(JudgedAnswer(key, "answer", level, text, evaluation.verdict, evaluation.feedback),
                         AnswerJudged(verdict=evaluation.verdict), covered=evaluation.covered)
        if self.state.stage == "question" and self.state.active is not None and self.state.active.part == key:
            question = self._read_until_answer("Your own question > ")
            with self.spinner("Reading your question…"):
                judgement = self.agents.judge(JudgeInput(concept=self.concept.id, part=key, question=question))
            self._judged(JudgedAnswer(key, "question", level, question, judgement.verdict, judgement.feedback),
                         QuestionJudged(verdict=judgement.verdict), covered=[])

    def _judged(self, answer: JudgedAnswer, step: AnswerJudged | QuestionJudged, *, covered: list[str]) -> None:
        """Save a judged answer in one transaction (its row, the engine step, the new
        state and the events that tell of it), then show those events."""
        state = advance(self.state, step)
        events = [self.emitter.stamp("verdict", part=answer.part, kind=answer.kind, verdict=answer.verdict,
                                     feedback=answer.feedback, covered=covered),
                  *self._part_end(state, answer.part)]
        self.store.record_answer(self.record.id, answer, step, state, events)
        self.state = state
        for event in events:
            self.emitter.show(event)

    def _part_end(self, state: SessionState, key: PartKey) -> list[dict[str, Any]]:
        """The events that close a part, when `state` has just finished it."""
        done = state.parts[PARTS.index(key)]
        if done.status != "done":
            return []
        assert done.new_level is not None  # a done part has its new level
        events = []
        if done.new_level != done.level:
            events.append(self.emitter.stamp("level_changed", part=key, **{"from": done.level, "to": done.new_level}))
        events.append(self.emitter.stamp(
            "part_finished", part=key, points=done.points, verdict=done.answer, question_verdict=done.question,
            help_taps=done.help_taps, level=done.level, new_level=done.new_level,
        ))
        return events

    def _present(self, key: PartKey, level: int) -> None:
        own = level == MAX_LEVEL
        if own:
            prompt = (
                f"{LABELS[key]} of {self.concept.name}, on your own: write it, then ask a question of your own about it."
            )
            cues: list[str] = []
            example = None
        else:
            with self.spinner("Preparing the question…"):
                q = self.agents.ask(AskInput(concept=self.concept.id, part=key, level=level))
            prompt, cues, example = q.prompt, q.cues, q.worked_example
        self.shown = Shown(prompt=prompt[:MAX_SHOWN_CHARS], cues=tuple(c[:MAX_SHOWN_CHARS] for c in cues[:12]),
                           worked_example=(example or "")[:MAX_SHOWN_CHARS])
        self.emitter.emit(
            "part_started", part=key, label=LABELS[key], index=PARTS.index(key) + 1, level=level,
            level_name=LEVEL_NAMES[level], prompt=prompt, cues=cues, worked_example=example, own_question=own,
        )

    def _read_until_answer(self, prompt: str) -> str:
        """Read lines; each Help tap goes through the engine and the hint giver."""
        while True:
            text = self.io.line(prompt)
            if not is_help(text):
                return text
            self._step(HelpTapped())
            part = self.state.active
            assert part is not None  # Help is only read while a part is in play
            with self.spinner("Finding a hint…"):
                remark = self.agents.hint(HintInput(concept=self.concept.id, part=part.part, level=part.level,
                                                    tap=part.help_taps, given=self.shown.hints))
            citations = self._log_memory_use()
            self.emitter.emit("hint", part=part.part, tap=part.help_taps, message=remark.message, citations=citations)
            self.shown = self.shown.model_copy(update={"hints": (*self.shown.hints, remark.message[:MAX_SHOWN_CHARS])[-12:]})

    def _step(self, event: Predicted | HelpTapped) -> None:
        self.state = advance(self.state, event)
        self.store.record_step(self.record.id, event, self.state)

    # the end ------------------------------------------------------------------------

    def _finish(self) -> None:
        state = self.state
        assert state.prediction is not None  # a finished session was predicted first
        self.store.finish_session(self.record, state)
        results = tuple(
            PartResult(part=p.part, level=p.level, new_level=p.new_level or p.level, verdict=p.answer or "missing",
                       question=p.question, points=p.points or 0, help_taps=p.help_taps)
            for p in state.parts
        )
        # The coach runs before the score is shown so the usage reported with it is complete.
        with self.spinner("Writing your coach note…"):
            remark = self.agents.coach(
                CoachInput(concept=self.concept.id, prediction=state.prediction, score=state.score, results=results))
        citations = self._log_memory_use()
        self.store.add_usage(self.record.id, self.usage.input_tokens, self.usage.output_tokens)
        self.emitter.emit(
            "session_finished", score=state.score, max_score=MAX_SCORE, prediction=state.prediction,
            gap=state.score - state.prediction,
            reference={key: part.reference.strip() for key, part in self.concept.parts()},
            usage={"calls": self.usage.calls, "input_tokens": self.usage.input_tokens,
                   "output_tokens": self.usage.output_tokens, "fallbacks": self.usage.fallbacks},
        )
        self.emitter.emit("coach", message=remark.message, citations=citations)
        self._write_memory(state)

    def _write_memory(self, state: SessionState) -> None:
        if self.memory is None or not self.memory.backend.enabled:
            return
        self.memory.queue_session(self.record.id, self.concept.name, state, observed_at=now())
        deliver_queued(self.memory, self.emitter, self.spinner, self.deliver_later)

    # what memory gave the hint giver and the coach -----------------------------------------

    def _log_memory_use(self) -> list[dict[str, str]]:
        return log_memory_use(self.agents, self.store, self.emitter, self.memory, self.record.id)


def deliver_queued(memory: LearnerMemory, emitter: Emitter, spinner: Spinner,
                   deliver_later: Callable[[], bool] | None) -> None:
    """Deliver what the outbox holds within the write budget, and say how it went; when
    the budget runs out while memory still answers, a background sync takes the rest."""
    with spinner("Saving to memory…"):
        delivery = memory.deliver()
    background = bool(delivery.queued and delivery.out_of_time and deliver_later and deliver_later())
    emitter.emit("memory_written", written=delivery.written, queued=delivery.queued, reason=delivery.error,
                 background=background, refused=delivery.refused)


def log_memory_use(agents: MemoryAwareAgents, store: LocalStore, emitter: Emitter, memory: LearnerMemory | None,
                   session_id: str | None) -> list[dict[str, str]]:
    """Log what the memory-fed call just made was given and cited (and, the first
    time, what recall found); return the citations to show with its remark."""
    scope = memory.scope if memory is not None else None
    citations: list[dict[str, str]] = []
    for call in agents.take_calls():
        if call.recall is not None:
            _announce_recall(emitter, call.recall)
        store.record_agent_call(
            session_id, call.role, agents.name, scope=scope, facts_given=[f.id for f in call.facts_given],
            cites_kept=call.cites_kept, cites_dropped=call.cites_dropped,
        )
        citations = [{"id": f.id, "sentence": f.sentence, "at": f.at} for f in call.cited]
    return citations


def _announce_recall(emitter: Emitter, result: Recall) -> None:
    if result.status in ("recalled", "empty"):
        emitter.emit(
            "memory_recalled",
            facts=[{"id": f.id, "key": f.key, "sentence": f.sentence, "at": f.at, "reason": f.reason} for f in result.facts],
        )
    elif result.status == "unavailable":
        emitter.emit("memory_unavailable", reason=result.reason)
