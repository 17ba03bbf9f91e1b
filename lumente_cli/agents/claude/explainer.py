"""The explainer: a fresh AI-style explanation of a concept, with planted flaws, for
`lumente check`.

Claude is sent the concept's map (references, key points and misconceptions per part,
with their phrasings) and the difficulty wanted, and nothing else: no memory and
nothing the student typed. The reply is structured output in the shape of a shipped
explanation, its text made safe for a terminal; whether its flaws are real
misconceptions is for the round to check (`checking.soundness`) before showing it.
Every failure, of the API or of the reply, is an `ExplainerFailed` with one line
saying why, and the round shows a shipped explanation instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lumente_cli.agents.claude import prompting
from lumente_cli.agents.claude.client import CONNECT_TIMEOUT_SECONDS, EXPLAINER_TIMEOUT_SECONDS, Usage, metered
from lumente_cli.agents.claude.failures import describe_api_error
from lumente_cli.agents.claude.structured import ReplyProblem, describe_errors, request_structured
from lumente_cli.concepts.explanations import MAX_CLAIMS, Claim, Explanation
from lumente_cli.concepts.schema import Concept
from lumente_cli.text import clip, one_line, sanitize_all

if TYPE_CHECKING:  # pragma: no cover
    import anthropic

GENERATED_ID = "claude"  # what a round on a generated explanation records as its explanation
ATTEMPTS = 2  # a reply that does not fit is asked for once more
# Six to ten claims of JSON with their flaws is a page; the model thinks first, and
# thinking counts toward the cap. A reply cut off at the cap is retried with twice it.
MAX_TOKENS = 6000
EFFORT = "low"
MAX_DETAIL = 200


class ExplainerReply(BaseModel):
    """What Claude writes: the question and the claims. The id and the difficulty are Lumente's."""

    model_config = ConfigDict(extra="forbid")

    asked: str = Field(description="The question a student asked the AI, in the student's words.")
    claims: list[Claim] = Field(description=f"The answer split into 6 to {MAX_CLAIMS} claims, in order.")


class ExplainerFailed(Exception):
    """No usable explanation; `reason` is one line for the student, without a period."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def explain_concept(client: anthropic.Anthropic, *, model: str, concept: Concept, difficulty: int,
                    usage: Usage) -> Explanation:
    """A generated explanation of `concept` at `difficulty` (1-5), or ExplainerFailed."""
    import httpx2

    claude, meter = metered(client, usage)
    timeout = httpx2.Timeout(EXPLAINER_TIMEOUT_SECONDS, connect=CONNECT_TIMEOUT_SECONDS)
    messages = [{"role": "user", "content": prompting.explain_message(concept, difficulty)}]
    max_tokens = MAX_TOKENS
    problem: ReplyProblem | None = None
    for _ in range(ATTEMPTS):
        try:
            reply = request_structured(
                claude, meter, usage, model=model, system=prompting.load_prompt("explainer"), messages=messages,
                output_format=ExplainerReply, max_tokens=max_tokens, timeout=timeout, effort=EFFORT,
            )
            return as_explanation(reply, difficulty)
        except ReplyProblem as exc:
            problem = exc
            if exc.kind == "cut_off":
                max_tokens *= 2
        except Exception as exc:  # only SDK errors are handled; the rest re-raise
            failure = describe_api_error(exc, model=model)
            if failure is None:
                raise
            raise ExplainerFailed(failure.cause) from None
    assert problem is not None
    if problem.kind == "refusal":
        raise ExplainerFailed("Claude declined to write an explanation")
    if problem.kind == "cut_off":
        raise ExplainerFailed("Claude's explanation was cut off before it was complete")
    raise ExplainerFailed(f"Claude's explanation did not fit the format ({clip(problem.detail, MAX_DETAIL)})")


def as_explanation(reply: ExplainerReply, difficulty: int) -> Explanation:
    """The reply as an Explanation, every text sanitised, or ReplyProblem."""
    data = sanitize_all(reply.model_dump(mode="python"), one_line)
    try:
        return Explanation.model_validate({"id": GENERATED_ID, "difficulty": difficulty, **data})
    except ValidationError as exc:
        raise ReplyProblem("invalid", describe_errors(exc)) from None
