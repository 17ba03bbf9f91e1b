"""One structured-output request to Claude, and what counts as a reply that fits.

`request_structured` sends one `messages.parse` call with a pydantic output
format and returns the reply as that model, or raises `ReplyProblem` when the
reply does not fit (not JSON, not the schema, a refusal, cut off at max_tokens).
API errors (`anthropic.APIError` and friends) pass through for the caller to map.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from lumente_cli.agents.claude.client import ReplyMeter, Usage

if TYPE_CHECKING:  # pragma: no cover
    import anthropic
    import httpx2

T = TypeVar("T", bound=BaseModel)
ProblemKind = Literal["invalid", "refusal", "cut_off"]

MAX_ERRORS_REPORTED = 8
_CUT_OFF = frozenset({"max_tokens", "model_context_window_exceeded"})


class ReplyProblem(Exception):
    """A reply arrived but cannot be used."""

    def __init__(self, kind: ProblemKind, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


def request_structured(
    client: anthropic.Anthropic,
    meter: ReplyMeter,
    usage: Usage,
    *,
    model: str,
    system: str,
    messages: Sequence[dict[str, Any]],
    output_format: type[T],
    max_tokens: int,
    timeout: float | httpx2.Timeout | None = None,
    effort: str | None = None,
) -> T:
    """Ask once; return the reply validated as `output_format`. `effort` sets how hard
    the model thinks (thinking counts toward max_tokens); no sampling parameters are
    sent, since current models reject them."""
    meter.reset()
    usage.calls += 1
    options: dict[str, Any] = {}
    if timeout is not None:
        options["timeout"] = timeout
    if effort is not None:
        options["output_config"] = {"effort": effort}
    try:
        message = client.messages.parse(
            model=model,
            max_tokens=max_tokens,
            system=system,
            messages=list(messages),  # type: ignore[arg-type]  # plain dicts in the MessageParam shape
            output_format=output_format,
            **options,
        )
    except ValidationError as exc:
        # The SDK validates the reply text against output_format and raises
        # pydantic's error; the meter saw the raw reply and knows why it ended.
        last = meter.last
        stop = last.stop_reason if last else None
        if stop == "refusal":
            raise ReplyProblem("refusal", "Claude declined to reply") from None
        if stop in _CUT_OFF:
            raise ReplyProblem("cut_off", "the reply was cut off at the token limit") from None
        raise ReplyProblem("invalid", describe_errors(exc)) from None

    if message.stop_reason == "refusal":
        raise ReplyProblem("refusal", "Claude declined to reply")
    if message.stop_reason in _CUT_OFF:
        raise ReplyProblem("cut_off", "the reply was cut off at the token limit")
    parsed = message.parsed_output
    if parsed is None:
        raise ReplyProblem("invalid", "the reply held no JSON text")
    try:
        # Validate with the contract itself, whatever type the SDK built.
        return output_format.model_validate(parsed.model_dump(mode="python"))
    except ValidationError as exc:
        raise ReplyProblem("invalid", describe_errors(exc)) from None


def describe_errors(exc: ValidationError) -> str:
    """'verdict: Input should be ...; feedback: Field required' without echoing values."""
    lines = []
    errors = exc.errors(include_input=False, include_url=False)
    for error in errors[:MAX_ERRORS_REPORTED]:
        loc = ".".join(str(p) for p in error["loc"]) or "(reply)"
        message = "unknown field" if error["type"] == "extra_forbidden" else error["msg"]
        lines.append(f"{loc}: {message}")
    more = len(errors) - MAX_ERRORS_REPORTED
    if more > 0:
        lines.append(f"and {more} more")
    return "; ".join(lines)
