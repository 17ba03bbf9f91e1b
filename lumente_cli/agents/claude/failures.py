"""One clear line for each way a Claude call can fail, and whether to try again.

A line names the failure by the exception's class and status; for a request the
API rejected (4xx) it also quotes the server's own message, sanitised and cut
short, because only that says why (an unsupported setting, a bad schema). The
API key is never in a line: the caller scrubs it as a last guard too.
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
    model), or when one more call would cost the student another timeout (a hung or
    overloaded API), so the provider stops calling Claude for the rest of the session."""
    hint: str | None = None
    transient: bool = False
    """Worth one more attempt now (a dropped connection, a 5xx, a 529)."""
    repeat_key: str | None = None
    """Failures with the same key twice in a session end it (the same 400 again)."""
    wait_s: float | None = None
    """How long the server asked us to wait (429 retry-after), when it said."""


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
        from lumente_cli.agents.claude.client import retry_after_seconds

        return Failure("Claude is rate-limiting requests (HTTP 429)", hint="Wait a minute and try again.",
                       wait_s=retry_after_seconds(exc.response.headers))
    if isinstance(exc, anthropic.OverloadedError):
        return Failure("Claude is overloaded right now (HTTP 529)", hint="Try again in a few minutes.",
                       transient=True, repeat_key="overloaded")
    if isinstance(exc, anthropic.APITimeoutError):
        return Failure("Claude did not answer in time", ends_session=True,
                       hint="Try again later; check your network if it keeps happening.")
    if isinstance(exc, anthropic.APIConnectionError):
        return Failure("Could not reach Claude (network error)", hint="Check your network connection.",
                       transient=True, repeat_key="connection")
    if isinstance(exc, anthropic.InternalServerError):
        return Failure(f"Claude had a server error (HTTP {exc.status_code})", transient=True,
                       repeat_key=f"http {exc.status_code}")
    if isinstance(exc, anthropic.APIStatusError):
        said = server_message(exc)
        return Failure(f"Claude rejected the request (HTTP {exc.status_code}{': ' + said if said else ''})",
                       repeat_key=f"http {exc.status_code}: {said}",
                       hint="If it keeps happening, set LUMENTE_MODEL to another model or use --provider offline.")
    return Failure(f"The Claude call failed ({type(exc).__name__})")


MAX_SERVER_MESSAGE = 200


def server_message(exc: BaseException) -> str:
    """The API's own error message ('max_tokens: ...'), made safe for a terminal."""
    from lumente_cli.text import clip, one_line

    body = getattr(exc, "body", None)
    text = ""
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            text = inner["message"]
        elif isinstance(body.get("message"), str):
            text = body["message"]
    return clip(one_line(text), MAX_SERVER_MESSAGE)
