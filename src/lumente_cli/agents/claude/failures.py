"""One clear line for each way a Claude call can fail.

The lines are built from the exception's class and status code only: never from
its message or body (which we do not control), and never with the API key.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Failure:
    """Why a call failed, in words for the student."""

    cause: str
    """'Claude is rate-limiting requests (HTTP 429)': no trailing period."""
    ends_session: bool = False
    """True when every later call would fail the same way (a bad key, an unknown
    model), so the provider stops calling Claude for the rest of the session."""
    hint: str | None = None


def describe_api_error(exc: BaseException, *, model: str) -> Failure | None:
    """Map an `anthropic` exception to a Failure; None if it is not one of the SDK's.

    The order matters: APITimeoutError is a subclass of APIConnectionError, and
    OverloadedError (529) a subclass of InternalServerError.
    """
    import anthropic

    if not isinstance(exc, anthropic.AnthropicError):
        return None
    if isinstance(exc, anthropic.AuthenticationError):
        return Failure(
            "Claude rejected the API key (HTTP 401)",
            ends_session=True,
            hint="Check ANTHROPIC_API_KEY, or use --provider offline.",
        )
    if isinstance(exc, anthropic.PermissionDeniedError):
        return Failure(
            "Claude refused this API key access (HTTP 403)",
            ends_session=True,
            hint="Check the key's permissions in the Claude console, or use --provider offline.",
        )
    if isinstance(exc, anthropic.PaymentRequiredError):
        return Failure(
            "Claude's account for this key needs billing attention (HTTP 402)",
            ends_session=True,
            hint="Check billing in the Claude console, or use --provider offline.",
        )
    if isinstance(exc, anthropic.NotFoundError):
        return Failure(
            f"Claude does not know the model {model!r} (HTTP 404)",
            ends_session=True,
            hint="Set LUMENTE_MODEL to a current model id, e.g. claude-sonnet-5-5.",
        )
    if isinstance(exc, anthropic.RateLimitError):
        return Failure("Claude is rate-limiting requests (HTTP 429)", hint="Wait a minute and try again.")
    if isinstance(exc, anthropic.OverloadedError):
        return Failure("Claude is overloaded right now (HTTP 529)", hint="Try again in a few minutes.")
    if isinstance(exc, anthropic.APITimeoutError):
        return Failure("Claude did not answer in time", hint="Try again; check your network if it keeps happening.")
    if isinstance(exc, anthropic.APIConnectionError):
        return Failure("Could not reach Claude (network error)", hint="Check your network connection.")
    if isinstance(exc, anthropic.APIStatusError):
        return Failure(f"Claude returned an error (HTTP {exc.status_code})")
    return Failure(f"The Claude call failed ({type(exc).__name__})")
