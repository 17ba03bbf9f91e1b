"""A check round: show the AI's explanation, read the prediction, the flags and a
reason for each, judge them, and save the round, its level and its memory facts.
The score and the level are `rules`' and the reasons' verdicts `rubric`'s; this
module moves data between the student, them, the store, memory and the events."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from lumente_cli.agents.contracts import CheckCoachInput, CheckHintInput
from lumente_cli.agents.memory_aware import MemoryAwareAgents
from lumente_cli.agents.offline.checking import OfflineCheckAgents
from lumente_cli.agents.offline.agents import OfflineAgents
from lumente_cli.checking import rules
from lumente_cli.checking.rubric import ReasonJudgement, judge_reason
from lumente_cli.concepts.explanations import Explanation
from lumente_cli.concepts.schema import Concept
from lumente_cli.exitcodes import ExitCode
from lumente_cli.memory.recall import Recall
from lumente_cli.memory.service import LearnerMemory
from lumente_cli.practice.events import Emitter
from lumente_cli.practice.runner import Spinner, deliver_queued, log_memory_use, no_spinner
from lumente_cli.practice.student_io import EndOfInput, StudentIO, is_help
from lumente_cli.store import CheckedClaim, CheckRound, LocalStore
from lumente_cli.store.repository import new_session_id
from lumente_cli.timeutil import now

T = TypeVar("T")

CHECK_EVENT_KINDS = (
    "check_started",
    "memory_recalled",
    "memory_unavailable",
    "predicted",
    "hint",
    "claim_judged",
    "check_finished",
    "coach",
    "memory_written",
    "check_stopped",
    "notice",
)


@dataclass(frozen=True)
class Flagged:
    """What the student wrote about one claim they flagged."""

    number: int
    reason: str
    question: str | None = None


@dataclass
class CheckRun:
    """One round on one explanation, at the learner's check level."""

    concept: Concept
    explanation: Explanation
    level: int
    store: LocalStore
    learner_id: int
    io: StudentIO
    emitter: Emitter
    memory: LearnerMemory | None = None
    predict: int | None = None
    provider: str = "offline"  # who wrote the explanation: the judging is offline either way
    notices: tuple[str, ...] = ()  # said after the round is announced (why a shipped explanation is shown)
    spinner: Spinner = no_spinner
    deliver_later: Callable[[], bool] | None = None
    id: str = field(default_factory=new_session_id)
    started_at: str = field(default_factory=now)
    hints: list[str] = field(default_factory=list, init=False)
    agents: MemoryAwareAgents = field(init=False)
    check_agents: OfflineCheckAgents = field(init=False)

    def __post_init__(self) -> None:
        self.emitter.session_id = self.id
        memory = self.memory

        def recall() -> Recall:
            if memory is None:
                return Recall("off", reason="memory is off")
            with self.spinner("Remembering…"):
                return memory.recall(self.id, focus="check")

        # The wrapper's recall-once and citation check, around the check's own agents.
        self.agents = MemoryAwareAgents(OfflineAgents(self.concept), recall)
        self.check_agents = OfflineCheckAgents(self.concept)

    @property
    def claims(self) -> int:
        return len(self.explanation.claims)

    # entry point -------------------------------------------------------------------

    def run(self, arm: Callable[[], None] | None = None) -> ExitCode:
        """Play the round. Nothing is saved before it ends: a round stopped early
        leaves no trace, and the next `lumente check` starts a new one. `arm` is
        called first, where a stop signal held back until now can stop the round."""
        try:
            if arm is not None:
                arm()
            self._announce()
            prediction = self._predict()
            flagged = self._read_flags()
        except KeyboardInterrupt:
            self.emitter.emit("check_stopped", reason="interrupted")
            return ExitCode.INTERRUPTED
        except EndOfInput:
            self.emitter.emit("check_stopped", reason="end_of_input")
            return ExitCode.PAUSED
        self._finish(prediction, flagged)
        return ExitCode.OK

    # the round ------------------------------------------------------------------------

    def _announce(self) -> None:
        e = self.explanation
        self.emitter.emit(
            "check_started", concept=self.concept.id, concept_name=self.concept.name, explanation=e.id,
            level=self.level, asked=e.asked,
            claims=[{"number": n, "text": c.text} for n, c in enumerate(e.claims, 1)],
            flaws=len(e.flaws) if rules.shows_flaw_count(self.level) else None,
            questions=rules.asks_questions(self.level), provider=self.provider,
            memory=self.memory.backend.kind if self.memory is not None else "off",
        )
        for message in self.notices:
            self.emitter.emit("notice", message=message)

    def _predict(self) -> int:
        value = self.predict
        if value is None:
            value = self._read_value(f"How many of the {self.claims} claims will you judge right? (0-{self.claims}) ",
                                     self._prediction)
        self.emitter.emit("predicted", prediction=value)
        return value

    def _prediction(self, text: str) -> int | str:
        value = rules.parse_prediction(text, self.claims)
        return value if value is not None else f"not a whole number from 0 to {self.claims}"

    def _read_flags(self) -> list[Flagged]:
        numbers = self._read_value("Which claims are wrong? Their numbers, or none > ",
                                   lambda text: rules.parse_flags(text, self.claims))
        out = []
        for n in numbers:
            reason = self._read_line(f"Why is claim {n} wrong? > ")
            question = None
            if rules.asks_questions(self.level):
                question = self._read_line(f"Claim {n}: the question you would ask the AI to expose it > ")
            out.append(Flagged(n, reason, question))
        return out

    def _read_value(self, prompt: str, parse: Callable[[str], T | str]) -> T:
        """A line `parse` accepts (a string back is what is wrong with it)."""
        while True:
            value = parse(self._read_line(prompt))
            if not isinstance(value, str):
                return value
            self.io.reject(value)

    def _read_line(self, prompt: str) -> str:
        """Read a line; `?` is a hint, and the line is read again."""
        while True:
            text = self.io.line(prompt)
            if not is_help(text):
                return text
            self._hint()

    def _hint(self) -> None:
        """The next flaw's nudge, labelled with the part of the map it breaks."""
        flawed = [c for c in self.explanation.claims if c.flaw is not None]
        claim = flawed[len(self.hints) % len(flawed)]
        assert claim.flaw is not None
        inp = CheckHintInput(concept=self.concept.id, level=self.level, tap=len(self.hints) + 1, part=claim.part,
                             nudge=claim.flaw.nudge)
        remark = self.agents.fed("hint_giver", lambda facts: self.check_agents.hint(inp.model_copy(update={"memory": facts})))
        self.hints.append(remark.message)
        self.emitter.emit("hint", tap=len(self.hints), message=remark.message, citations=self._log_memory_use())

    # the end ----------------------------------------------------------------------------

    def _finish(self, prediction: int, flagged: list[Flagged]) -> None:
        by_number = {f.number: f for f in flagged}
        outcomes, judged, checked = [], [], []
        with self.spinner("Judging your reasons…"):
            for n, claim in enumerate(self.explanation.claims, 1):
                mine = by_number.get(n)
                reason = question = None
                if mine is not None and claim.flaw is not None:
                    reason = judge_reason(self.concept, self.explanation, claim, mine.reason, self.hints)
                    if mine.question is not None:
                        question = judge_reason(self.concept, self.explanation, claim, mine.question, self.hints)
                outcome = rules.ClaimOutcome(n, claim.flaw is not None, mine is not None,
                                             reason is not None and reason.holds)
                outcomes.append(outcome)
                judged.append((outcome, reason, question))
                checked.append(CheckedClaim(n, outcome.verdict, mine.reason if mine else None,
                                            mine.question if mine else None, question.verdict if question else None))
        result = rules.score(outcomes)
        new_level = rules.next_level(self.level, result)
        for outcome, reason, question in judged:
            self._emit_claim(outcome, reason, question)

        missed_parts = tuple(dict.fromkeys(
            self.explanation.claims[o.number - 1].part for o in outcomes if o.flawed and not o.right))
        coach_in = CheckCoachInput(
            concept=self.concept.id, level=self.level, new_level=new_level, prediction=prediction,
            score=result.score, claims=result.claims, flaws=result.flaws, caught=result.caught,
            wrong_reasons=result.wrong_reasons, false_alarms=result.false_alarms, missed_parts=missed_parts,
        )
        with self.spinner("Writing your coach note…"):
            remark = self.agents.fed("coach", lambda facts: self.check_agents.coach(
                coach_in.model_copy(update={"memory": facts})))
        citations = self._log_memory_use()
        finished_at = now()
        self.store.record_check_round(self.learner_id, CheckRound(
            id=self.id, concept=self.concept.id, explanation=self.explanation.id, level=self.level,
            new_level=new_level, prediction=prediction, claims=result.claims, flaws=result.flaws,
            caught=result.caught, false_alarms=result.false_alarms, score=result.score, hints=len(self.hints),
            started_at=self.started_at, finished_at=finished_at,
        ), checked)
        self.emitter.emit(
            "check_finished", caught=result.caught, missed=result.missed, wrong_reasons=result.wrong_reasons,
            false_alarms=result.false_alarms, flaws=result.flaws, score=result.score, prediction=prediction,
            claims=result.claims, level=self.level, new_level=new_level, hints=len(self.hints),
        )
        self.emitter.emit("coach", message=remark.message, citations=citations)
        self._write_memory(result, new_level, finished_at)

    def _emit_claim(self, outcome: rules.ClaimOutcome, reason: ReasonJudgement | None,
                    question: ReasonJudgement | None) -> None:
        claim = self.explanation.claims[outcome.number - 1]
        flaw = claim.flaw
        self.emitter.emit(
            "claim_judged", number=outcome.number, text=claim.text, part=claim.part, flagged=outcome.flagged,
            flawed=flaw is not None, verdict=outcome.verdict,
            feedback=reason.feedback if reason is not None else None,
            question_verdict=question.verdict if question is not None else None,
            kind=flaw.kind if flaw is not None else None, why=flaw.why if flaw is not None else None,
        )

    def _write_memory(self, result: rules.RoundScore, new_level: int, observed_at: str) -> None:
        if self.memory is None or not self.memory.backend.enabled:
            return
        self.memory.queue_check(self.id, self.concept.name, caught=result.caught, flaws=result.flaws,
                                false_alarms=result.false_alarms, level=self.level, new_level=new_level,
                                claims=result.claims, observed_at=observed_at)
        deliver_queued(self.memory, self.emitter, self.spinner, self.deliver_later)

    # what memory gave the hint giver and the coach -------------------------------------------

    def _log_memory_use(self) -> list[dict[str, str]]:
        # A round is not a practice session: its agent calls are logged without one.
        return log_memory_use(self.agents, self.store, self.emitter, self.memory, None)
