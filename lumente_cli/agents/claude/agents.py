"""The Claude provider: the five session agents on Claude, behind the same
contracts as the offline provider, which is also its fallback.

Every call asks for structured output in the agent's contract model and
validates the reply with that model. A reply that does not fit (or a refusal,
or a reply cut off at max_tokens) is asked for once more; if the second does not
fit either, that one call is answered by the offline agent and the student gets
one line saying so. An API failure falls back the same way, with a line naming
the failure; a rejected key (or an unknown model) stops Claude for the rest of
the session, after a single notice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from lumente_cli.agents.claude import prompting
from lumente_cli.agents.claude.client import Usage, metered
from lumente_cli.agents.claude.client import MAX_RETRY_WAIT_SECONDS
from lumente_cli.agents.claude.failures import Failure, describe_api_error
from lumente_cli.agents.claude.structured import ReplyProblem, request_structured
from lumente_cli.agents.contracts import (
    AgentRole,
    AskInput,
    CoachInput,
    EvaluateInput,
    Evaluation,
    HintInput,
    JudgeInput,
    Question,
    QuestionJudgement,
    Remark,
)
from lumente_cli.agents.protocol import Agents
from lumente_cli.concepts.schema import Concept
from lumente_cli.text import sanitize

RANK = ("missing", "partial", "solid")

if TYPE_CHECKING:  # pragma: no cover
    import anthropic

T = TypeVar("T", bound=BaseModel)


class _GaveUp(Exception):
    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.cause)
        self.failure = failure


ATTEMPTS = 2  # the first reply, and one retry when it does not fit

# How hard each agent thinks. Current models think adaptively by default, at high
# effort, and thinking counts toward max_tokens: a short reply could be all thinking.
# The evaluator judges, so it thinks more; the others write a sentence or two.
EFFORT: dict[str, str] = {
    "question_asker": "low",
    "hint_giver": "low",
    "evaluator": "medium",
    "question_judge": "low",
    "coach": "low",
}
# max_tokens is only a cap (tokens are billed as used): room for the thinking the
# effort allows plus a few sentences of JSON. A reply cut off at the cap is retried
# once with twice the room.
MAX_TOKENS: dict[str, int] = {
    "question_asker": 3000,
    "hint_giver": 3000,
    "evaluator": 6000,
    "question_judge": 2000,
    "coach": 3000,
}
BACKOFF_S = 0.5  # before the one retry of a transient failure

ROLE_NAMES: dict[str, str] = {
    "question_asker": "question asker",
    "hint_giver": "hint giver",
    "evaluator": "evaluator",
    "question_judge": "question judge",
    "coach": "coach",
}
# What the offline agent did instead, finishing each notice.
FALLBACK_DID: dict[str, str] = {
    "question_asker": "the offline question asker set this part",
    "hint_giver": "the offline hint giver gave this hint",
    "evaluator": "the offline evaluator judged this answer",
    "question_judge": "the offline question judge judged this question",
    "coach": "the offline coach wrote this note",
}
SESSION_FALLBACK = "the offline agents answer for the rest of this session"


def reply_notice(role: str, kind: str) -> str:
    """The one line a student sees when Claude's replies could not be used."""
    did = FALLBACK_DID[role]
    if kind == "refusal":
        return f"Claude declined to reply as the {ROLE_NAMES[role]}; {did}."
    if kind == "cut_off":
        return f"Claude's reply as the {ROLE_NAMES[role]} was cut off before it was complete; {did}."
    return f"Claude's reply did not fit the {ROLE_NAMES[role]} contract; {did}."


class ClaudeAgents:
    """The session agents on Claude, falling back to `fallback` call by call."""

    name = "claude"

    def __init__(
        self,
        concept: Concept,
        client: anthropic.Anthropic,
        *,
        model: str,
        fallback: Agents,
        notify: Callable[[str], None],
        usage: Usage,
    ) -> None:
        self.concept = concept
        self.model = model
        self.fallback = fallback
        self.usage = usage
        self._notify = notify
        self._secret = getattr(client, "api_key", None) or ""
        self._client, self._meter = metered(client, usage)
        self._stopped: str | None = None
        self._seen_failures: set[str] = set()

    @property
    def stopped(self) -> str | None:
        """Why Claude is no longer called this session (None while it is)."""
        return self._stopped

    # the five agents -----------------------------------------------------------

    def ask(self, inp: AskInput) -> Question:
        part = self.concept.part(inp.part)

        def fit(q: Question) -> Question:
            prompt = _text(q.prompt)
            if not prompt:
                raise ReplyProblem("invalid", "prompt is empty")
            cues = [c for c in (_text(c) for c in q.cues) if c]
            if inp.level == 2 and not cues:
                raise ReplyProblem("invalid", "cues are missing at level 2")
            if inp.level != 2:
                cues = []  # cues belong to the guided level; at 3 and 4 they would be extra help
            # Level 1 shows the concept file's worked example itself, word for word:
            # it was checked for accuracy, and a model's retelling was not.
            worked = part.worked_example.strip() if inp.level == 1 else None
            return Question(prompt=prompt, cues=cues, worked_example=worked)

        return self._run(
            "question_asker",
            Question,
            prompting.ask_message(self.concept, inp),
            fit,
            lambda: self.fallback.ask(inp),
        )

    def hint(self, inp: HintInput) -> Remark:
        return self._run(
            "hint_giver",
            Remark,
            prompting.hint_message(self.concept, inp),
            _fit_remark,
            lambda: self.fallback.hint(inp),
        )

    def evaluate(self, inp: EvaluateInput) -> Evaluation:
        part = self.concept.part(inp.part)
        known = [kp.id for kp in part.key_points]

        def fit(e: Evaluation) -> Evaluation:
            feedback = _text(e.feedback)
            if not feedback:
                raise ReplyProblem("invalid", "feedback is empty")
            # Keep only this part's key point ids, once each, in rubric order.
            said = set(e.covered)
            covered = [kp for kp in known if kp in said]
            # A verdict is never higher than the evidence the model gave for it.
            verdict = min(e.verdict, part.supported(covered), key=RANK.index)
            return Evaluation(verdict=verdict, feedback=feedback, covered=covered)

        return self._run(
            "evaluator",
            Evaluation,
            prompting.evaluate_message(self.concept, inp),
            fit,
            lambda: self.fallback.evaluate(inp),
        )

    def judge(self, inp: JudgeInput) -> QuestionJudgement:
        def fit(j: QuestionJudgement) -> QuestionJudgement:
            feedback = _text(j.feedback)
            if not feedback:
                raise ReplyProblem("invalid", "feedback is empty")
            return QuestionJudgement(verdict=j.verdict, feedback=feedback)

        return self._run(
            "question_judge",
            QuestionJudgement,
            prompting.judge_message(self.concept, inp),
            fit,
            lambda: self.fallback.judge(inp),
        )

    def coach(self, inp: CoachInput) -> Remark:
        return self._run(
            "coach",
            Remark,
            prompting.coach_message(self.concept, inp),
            _fit_remark,
            lambda: self.fallback.coach(inp),
        )

    # the machinery -------------------------------------------------------------

    def _run(
        self,
        role: AgentRole,
        contract: type[T],
        user_message: str,
        fit: Callable[[T], T],
        offline: Callable[[], T],
    ) -> T:
        if self._stopped is not None:
            return self._fall_back(offline)
        system = prompting.load_prompt(role)
        messages = [{"role": "user", "content": user_message}]
        max_tokens = MAX_TOKENS[role]
        problem: ReplyProblem | None = None
        for _ in range(ATTEMPTS):
            try:
                reply = self._request(role, contract, system, messages, max_tokens)
                return fit(reply)
            except ReplyProblem as exc:
                problem = exc
                if exc.kind == "cut_off":
                    max_tokens *= 2
            except _GaveUp as gave_up:
                return self._give_up(role, gave_up.failure, offline)
        assert problem is not None
        self._say(reply_notice(role, problem.kind))
        return self._fall_back(offline)

    def _request(self, role: AgentRole, contract: type[T], system: str, messages: list[dict[str, str]],
                 max_tokens: int) -> T:
        """One reply, with one retry for a failure worth retrying; _GaveUp otherwise."""
        for attempt in range(2):
            try:
                return request_structured(
                    self._client, self._meter, self.usage, model=self.model, system=system, messages=messages,
                    output_format=contract, max_tokens=max_tokens, effort=EFFORT[role],
                )
            except ReplyProblem:
                raise
            except Exception as exc:  # only SDK errors are handled; the rest re-raise
                failure = describe_api_error(exc, model=self.model)
                if failure is None:
                    raise
                wait = failure.wait_s
                retry = failure.transient or (wait is not None and wait <= MAX_RETRY_WAIT_SECONDS)
                if attempt == 0 and retry and not failure.ends_session:
                    time.sleep(BACKOFF_S if wait is None else max(0.0, wait))
                    continue
                raise _GaveUp(failure) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _give_up(self, role: AgentRole, failure: Failure, offline: Callable[[], T]) -> T:
        repeated = failure.repeat_key is not None and failure.repeat_key in self._seen_failures
        if failure.repeat_key is not None:
            self._seen_failures.add(failure.repeat_key)
        if failure.ends_session or repeated:
            self._stopped = failure.cause
            self._say(f"{failure.cause}; {SESSION_FALLBACK}.")
        else:
            self._say(f"{failure.cause}; {FALLBACK_DID[role]}.")
        return self._fall_back(offline)

    def _fall_back(self, offline: Callable[[], T]) -> T:
        self.usage.fallbacks += 1
        return offline()

    def _say(self, line: str) -> None:
        if self._secret and self._secret in line:  # never, by construction; but never is a promise
            line = line.replace(self._secret, "[redacted]")
        self._notify(line)


def _text(value: str) -> str:
    """Model text made safe for a terminal, and trimmed."""
    return sanitize(value).strip()


def _fit_remark(r: Remark) -> Remark:
    message = _text(r.message)
    if not message:
        raise ReplyProblem("invalid", "message is empty")
    # cites come back as Claude gave them: `verify_cites` keeps only ids that were sent.
    return Remark(message=message, cites=list(r.cites))
