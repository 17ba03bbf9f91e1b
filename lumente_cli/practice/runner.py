"""The practice loop: read the student's input, call the agents, feed the
engine, save every step, and emit events. All decisions about points and
levels are `advance()`'s; this module only moves data between the parts."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from lumente_cli.agents.contracts import (
    AskInput,
    CoachInput,
    EvaluateInput,
    MAX_SHOWN_CHARS,
    HintInput,
    JudgeInput,
    PartResult,
    Remark,
    Shown,
)
from lumente_cli.agents.memory import CallRecord, MemoryTurn
from lumente_cli.agents.provider import Agents, Usage, call_agent
from lumente_cli.concepts.schema import Concept
from lumente_cli.errors import LumenteError, SessionBusy
from lumente_cli.exitcodes import ExitCode
from lumente_cli.memory.recall import Recall
from lumente_cli.memory.service import LearnerMemory
from lumente_cli.parts import LABELS, LEVEL_NAMES, MAX_LEVEL, PARTS
from lumente_cli.practice.events import Emitter
from lumente_cli.practice.student_io import EndOfInput, StudentIO, is_help
from lumente_cli.session import (
    MAX_SCORE,
    AnswerJudged,
    HelpTapped,
    Predicted,
    QuestionJudged,
    SessionState,
    advance,
    replay,
    start,
)
from lumente_cli.store import LocalStore, SessionRecord
from lumente_cli.timeutil import now

ResumeChoice = Literal["ask", "resume", "restart"]


@contextlib.contextmanager
def _no_spinner(_message: str) -> Iterator[None]:
    yield


@dataclass
class PracticeRun:
    concept: Concept
    store: LocalStore
    learner_id: int
    agents: Agents
    io: StudentIO
    emitter: Emitter
    memory: LearnerMemory | None = None
    memory_kind: str = "off"
    predict: int | None = None
    resume: ResumeChoice = "ask"
    spinner: Callable[[str], contextlib.AbstractContextManager[Any]] = _no_spinner
    usage: Usage = field(default_factory=Usage)
    # Called when the write budget ran out while memory was still answering.
    deliver_later: Callable[[], bool] | None = None
    record: SessionRecord | None = field(default=None, init=False)
    state: SessionState | None = field(default=None, init=False)
    turn: MemoryTurn | None = field(default=None, init=False)
    # What this part showed the student so far: the evaluator does not credit copies of it.
    shown: Shown = field(default_factory=Shown, init=False)

    # entry point -------------------------------------------------------------

    def run(self) -> ExitCode:
        self._open_session()
        try:
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
        self.store.release(self.record.id)  # type: ignore[union-attr]
        return ExitCode.OK

    # session lifecycle -----------------------------------------------------------

    def _open_session(self) -> None:
        unfinished = self.store.unfinished_session(self.learner_id, self.concept.id)
        resumed = False
        if unfinished is not None and (holder := self.store.holder_of(unfinished.id)):
            # Neither resumed nor set aside under a running process's feet.
            raise SessionBusy(
                f"this {self.concept.name} session is open in another lumente ({holder}).",
                hint="Finish or quit it there (Ctrl-C pauses it), then run this again.",
            )
        left_paused = False
        if unfinished is not None:
            set_aside = True
            if self.resume == "ask" and not self.io.interactive:
                # A script that did not say --resume wants a session of its own: it gets a new
                # one, and the paused one stays paused for whoever wants to resume it.
                resumed, set_aside = False, False
                left_paused = True
            elif self.resume == "ask":
                done = sum(p.status == "done" for p in unfinished.state.parts)
                resumed = self.io.confirm(
                    f"You have a paused {self.concept.name} session ({done} of {len(PARTS)} parts done). Resume it?",
                    True,
                )
            else:
                resumed = self.resume == "resume"
            if not resumed and set_aside:
                self.store.set_status(unfinished.id, "abandoned")
        if resumed and unfinished is not None:
            self.record = unfinished
            # The saved state must be what its saved events produce; replay proves it.
            self.state = replay(unfinished.initial, unfinished.events)
        else:
            initial = start(self.concept.id, self.store.levels(self.learner_id, self.concept.id))
            self.record = self.store.create_session(self.learner_id, self.concept.id, self.agents.name, initial)
            self.state = initial
        if (holder := self.store.claim(self.record.id)) is not None:  # lost a race with another process
            raise SessionBusy(f"this {self.concept.name} session was just opened by another lumente ({holder}).")
        self.emitter.session_id = self.record.id
        self.emitter.add(lambda event: self.store.log_event(self.record.id, event["event"], event))  # type: ignore[union-attr]
        self.turn = MemoryTurn(
            call_agent=lambda role, inp: call_agent(self.agents, role, inp),
            recall=self._recall,
            on_recall=self._announce_recall,
            on_call=self._log_call,
        )
        self.emitter.emit(
            "session_started",
            concept=self.concept.id,
            concept_name=self.concept.name,
            provider=self.agents.name,
            memory=self.memory_kind,
            resumed=resumed,
            levels={p.part: p.level for p in self.state.parts},
        )
        if left_paused:
            self.emitter.emit("notice", message=(
                f"A paused {self.concept.name} session is left as it was; this run starts a new one "
                f"(`lumente practice {self.concept.id} --resume` continues the paused one)."))

    def _pause(self, reason: str) -> None:
        if self.record is None:
            return
        if self.state is not None and self.state.stage == "predict" and not self.record.events:
            # Stopped before a prediction: nothing to resume and nothing written; it must not
            # become the newest paused session and hide the one the student wants back.
            self.store.set_status(self.record.id, "abandoned")
            self.store.release(self.record.id)
            return
        self.store.set_status(self.record.id, "paused")
        self.store.release(self.record.id)
        active = self.state.active if self.state else None
        self.emitter.emit("session_paused", reason=reason, part=active.part if active else None)

    # the session ------------------------------------------------------------------

    def _play(self) -> None:
        assert self.state is not None
        if self.state.stage == "predict":
            value = self.predict if self.predict is not None else self.io.prediction()
            self._step(Predicted(value=value))
            self.emitter.emit("predicted", prediction=value)
        while not self.state.finished:
            self._play_part()

    def _play_part(self) -> None:
        assert self.state is not None
        part = self.state.active
        assert part is not None
        key, level = part.part, part.level
        self._present(key, level)
        if self.state.stage == "answer":
            text = self._read_until_answer(f"{LABELS[key]} > ")
            with self.spinner("Reading your answer…"):
                evaluation = self.turn.call(  # type: ignore[union-attr]
                    "evaluator", EvaluateInput(concept=self.concept.id, part=key, level=level, answer=text, shown=self.shown)
                )
            self.store.record_answer(self.record.id, key, "answer", level, text, evaluation.verdict, evaluation.feedback)  # type: ignore[union-attr]
            self.emitter.emit(
                "verdict", part=key, kind="answer", verdict=evaluation.verdict, feedback=evaluation.feedback,
                covered=evaluation.covered,
            )
            self._step(AnswerJudged(verdict=evaluation.verdict))
        if self.state.stage == "question" and self.state.active is not None and self.state.active.part == key:
            question = self._read_until_answer("Your own question > ")
            with self.spinner("Reading your question…"):
                judgement = self.turn.call("question_judge", JudgeInput(concept=self.concept.id, part=key, question=question))  # type: ignore[union-attr]
            self.store.record_answer(self.record.id, key, "question", level, question, judgement.verdict, judgement.feedback)  # type: ignore[union-attr]
            self.emitter.emit("verdict", part=key, kind="question", verdict=judgement.verdict, feedback=judgement.feedback, covered=[])
            self._step(QuestionJudged(verdict=judgement.verdict))
        done = self.state.parts[PARTS.index(key)]
        if done.status == "done":
            assert done.new_level is not None
            if done.new_level != done.level:
                self.emitter.emit("level_changed", part=key, **{"from": done.level, "to": done.new_level})
            self.emitter.emit(
                "part_finished", part=key, points=done.points, verdict=done.answer, question_verdict=done.question,
                help_taps=done.help_taps, level=done.level, new_level=done.new_level,
            )

    def _present(self, key: Any, level: int) -> None:
        own = level == MAX_LEVEL
        if own:
            prompt = (
                f"{LABELS[key]} of {self.concept.name}, on your own: write it, then ask a question of your own about it."
            )
            cues: list[str] = []
            example = None
        else:
            with self.spinner("Preparing the question…"):
                q = self.turn.call("question_asker", AskInput(concept=self.concept.id, part=key, level=level))  # type: ignore[union-attr]
            prompt, cues, example = q.prompt, q.cues, q.worked_example
        self.shown = Shown(prompt=prompt[:MAX_SHOWN_CHARS], cues=tuple(c[:MAX_SHOWN_CHARS] for c in cues[:12]),
                           worked_example=(example or "")[:MAX_SHOWN_CHARS])
        self.emitter.emit(
            "part_started", part=key, label=LABELS[key], index=PARTS.index(key) + 1, level=level,
            level_name=LEVEL_NAMES[level], prompt=prompt, cues=cues, worked_example=example, own_question=own,
        )

    def _read_until_answer(self, prompt: str) -> str:
        """Read lines; each Help tap goes through the engine and the hint giver."""
        assert self.state is not None
        while True:
            text = self.io.line(prompt)
            if not is_help(text):
                return text
            self._step(HelpTapped())
            part = self.state.active
            assert part is not None
            with self.spinner("Finding a hint…"):
                remark = self.turn.call(  # type: ignore[union-attr]
                    "hint_giver", HintInput(concept=self.concept.id, part=part.part, level=part.level, tap=part.help_taps,
                                            given=self.shown.hints)
                )
            self.emitter.emit("hint", part=part.part, tap=part.help_taps, message=remark.message, citations=self._citations(remark))
            self.shown = self.shown.model_copy(update={"hints": (*self.shown.hints, remark.message[:MAX_SHOWN_CHARS])[-12:]})

    def _step(self, event: Any) -> None:
        assert self.state is not None and self.record is not None
        self.state = advance(self.state, event)
        self.store.record_step(self.record.id, event, self.state)

    # the end ------------------------------------------------------------------------

    def _finish(self) -> None:
        assert self.state is not None and self.record is not None and self.turn is not None
        state = self.state
        assert state.prediction is not None
        self.store.finish_session(self.record, state)
        results = tuple(
            PartResult(part=p.part, level=p.level, new_level=p.new_level or p.level, verdict=p.answer or "missing",
                       question=p.question, points=p.points or 0, help_taps=p.help_taps)
            for p in state.parts
        )
        # The coach runs before the score is shown so the usage reported with it is complete.
        with self.spinner("Writing your coach note…"):
            remark = self.turn.call(
                "coach", CoachInput(concept=self.concept.id, prediction=state.prediction, score=state.score, results=results)
            )
        self.store.add_usage(self.record.id, self.usage.input_tokens, self.usage.output_tokens)
        self.emitter.emit(
            "session_finished", score=state.score, max_score=MAX_SCORE, prediction=state.prediction,
            gap=state.score - state.prediction,
            reference={key: part.reference.strip() for key, part in self.concept.parts()},
            usage={"calls": self.usage.calls, "input_tokens": self.usage.input_tokens,
                   "output_tokens": self.usage.output_tokens, "fallbacks": self.usage.fallbacks},
        )
        self.emitter.emit("coach", message=remark.message, citations=self._citations(remark))
        self._write_memory(state)

    def _write_memory(self, state: SessionState) -> None:
        if self.memory is None or not self.memory.backend.enabled:
            return
        assert self.record is not None
        self.memory.queue_session(self.record.id, self.concept.name, state, observed_at=now())
        with self.spinner("Saving to memory…"):
            delivery = self.memory.deliver()
        background = bool(delivery.queued and delivery.out_of_time and self.deliver_later and self.deliver_later())
        self.emitter.emit("memory_written", written=delivery.written, queued=delivery.queued, reason=delivery.error,
                          background=background, refused=delivery.refused)

    # memory plumbing -------------------------------------------------------------------

    def _recall(self) -> Recall:
        if self.memory is None:
            return Recall("off", reason="memory is off")
        assert self.record is not None
        with self.spinner("Remembering…"):
            return self.memory.recall(self.record.id)

    def _announce_recall(self, result: Recall) -> None:
        if result.status in ("recalled", "empty"):
            self.emitter.emit(
                "memory_recalled",
                facts=[{"id": f.id, "key": f.key, "sentence": f.sentence, "at": f.at, "reason": f.reason} for f in result.facts],
            )
        elif result.status == "unavailable":
            self.emitter.emit("memory_unavailable", reason=result.reason)

    def _log_call(self, call: CallRecord) -> None:
        assert self.record is not None
        scope = self.memory.scope if self.memory is not None else None
        self.store.record_agent_call(
            self.record.id, call.role, self.agents.name, scope=scope, facts_given=call.facts_given,
            cites_kept=call.cites_kept, cites_dropped=call.cites_dropped,
        )

    def _citations(self, remark: Remark) -> list[dict[str, str]]:
        assert self.turn is not None
        return [{"id": f.id, "sentence": f.sentence, "at": f.at} for f in self.turn.cited(remark)]

