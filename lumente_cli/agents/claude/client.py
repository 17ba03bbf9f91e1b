"""Building the Anthropic client, and metering what it spends.

Nothing here imports `anthropic` (or `httpx2`) at module level: the SDK takes
about two seconds to import, and only commands that really call Claude should
pay for it. `make_anthropic_client` imports it when it is called.

The API key is handed straight to the SDK. It is never printed, logged, or put
into a message or an exception by this package.
"""

from __future__ import annotations

import email.utils
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lumente_cli.agents.protocol import Usage  # one tally for every provider

if TYPE_CHECKING:  # pragma: no cover - annotations only
    import anthropic
    import httpx2

DEFAULT_MODEL = "claude-sonnet-5-5"
"""A current Sonnet: good judgement on short replies at a moderate price, which
the SDK does not mark deprecated; `LUMENTE_MODEL` overrides it."""

# Timeouts and retries for an interactive tool.
#
# Agent replies are short (a question, a hint, a verdict: a few hundred tokens,
# capped by max_tokens of 400-1500), which a current model writes in a few
# seconds. 20 s of silence therefore means something is wrong, and the student is
# better served by the offline agent now than by a spinner for the SDK's default
# of 10 minutes. Connecting should take well under a second; 5 s allows a slow
# network without letting a dead one stall the session.
#
# The SDK retries nothing: it would retry a timeout too, doubling what a hung API
# costs. The provider retries what is worth retrying (a dropped connection, a 5xx
# or 529, a 429 with a short retry-after) once itself, and a timeout ends Claude
# for the session: a dead or hung API costs one notice and one timeout. A server
# that asks us to wait longer than MAX_RETRY_WAIT_SECONDS is not waited for.
DEFAULT_TIMEOUT_SECONDS = 20.0
CONNECT_TIMEOUT_SECONDS = 5.0
DEFAULT_MAX_RETRIES = 0
MAX_RETRY_WAIT_SECONDS = 5.0

# The mapper writes a whole concept file (3-6 thousand tokens), which takes a
# model a minute or so; it runs once per new concept, behind a spinner, and the
# student asked for it. 120 s per attempt, one SDK retry.
MAPPER_TIMEOUT_SECONDS = 120.0

# The explainer writes six to ten claims with their flaws (one to two thousand
# tokens), before the round starts and behind a spinner; past this a shipped
# explanation serves the student better than more waiting.
EXPLAINER_TIMEOUT_SECONDS = 45.0


def make_anthropic_client(
    *,
    api_key: str,
    base_url: str | None = None,
    http_client: httpx2.Client | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    max_retries: int = DEFAULT_MAX_RETRIES,
) -> anthropic.Anthropic:
    """An `anthropic.Anthropic` client tuned for interactive use.

    `timeout` is the per-attempt limit in seconds (connecting is limited to
    CONNECT_TIMEOUT_SECONDS, or `timeout` if that is shorter). `http_client` lets
    tests inject an `httpx2.Client` with a mock transport; `base_url` None means
    the SDK default (or `ANTHROPIC_BASE_URL`).
    """
    from lumente_cli.errors import ProviderError

    if not isinstance(api_key, str) or not api_key.strip():
        raise ProviderError(
            "No Claude API key is set.", hint="Set ANTHROPIC_API_KEY, or use --provider offline."
        )
    if timeout <= 0:
        raise ValueError("timeout must be positive")
    if max_retries < 0:
        raise ValueError("max_retries must not be negative")

    import anthropic
    import httpx2

    return anthropic.Anthropic(
        api_key=api_key,
        base_url=base_url,
        http_client=http_client,
        timeout=httpx2.Timeout(timeout, connect=min(CONNECT_TIMEOUT_SECONDS, timeout)),
        max_retries=max_retries,
        middleware=[_cap_retry_wait],
    )


# middleware ------------------------------------------------------------------


def _cap_retry_wait(request: Any, call_next: Any) -> Any:
    """Do not let a `retry-after` header make the student wait.

    The SDK obeys `retry-after`/`retry-after-ms` however long it is. When the
    server asks for more than MAX_RETRY_WAIT_SECONDS, mark the response as not
    worth retrying; the SDK then raises its typed error straight away and the
    call falls back to offline.
    """
    response = call_next(request)
    http = response.http_response
    if not http.is_success:
        wait = retry_after_seconds(http.headers)
        if wait is not None and wait > MAX_RETRY_WAIT_SECONDS:
            http.headers["x-should-retry"] = "false"
    return response


def retry_after_seconds(headers: Any) -> float | None:
    """The wait a response asks for, in seconds, read the way the SDK reads it."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    parsed = email.utils.parsedate_tz(value)
    if parsed is None:
        return None
    return float(email.utils.mktime_tz(parsed) - time.time())


@dataclass(frozen=True)
class Reply:
    """What the meter saw of the last successful HTTP reply on this thread."""

    stop_reason: str | None
    text: str


class ReplyMeter:
    """Client middleware that adds every reply's token usage to a `Usage`, and
    remembers the last reply's stop reason and text.

    It sees the raw reply before the SDK validates it against the output format,
    so a reply that breaks the contract is still counted (it was billed) and its
    stop reason is still known (a refusal is usually not valid JSON).
    """

    def __init__(self, usage: Usage) -> None:
        self.usage = usage
        self._local = threading.local()

    def __call__(self, request: Any, call_next: Any) -> Any:
        response = call_next(request)
        http = response.http_response
        if http.is_success:
            self._record(http)
        return response

    def _record(self, http: Any) -> None:
        try:
            body = http.json()
        except ValueError:
            return
        if not isinstance(body, dict):
            return
        usage = body.get("usage")
        if isinstance(usage, dict):
            self.usage.input_tokens += _int(usage.get("input_tokens"))
            self.usage.output_tokens += _int(usage.get("output_tokens"))
        content = body.get("content")
        text = ""
        if isinstance(content, list):
            text = "".join(
                str(block.get("text", ""))
                for block in content
                if isinstance(block, dict) and block.get("type") == "text"
            )
        stop = body.get("stop_reason")
        self._local.last = Reply(stop_reason=stop if isinstance(stop, str) else None, text=text)

    def reset(self) -> None:
        self._local.last = None

    @property
    def last(self) -> Reply | None:
        return getattr(self._local, "last", None)


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def metered(client: anthropic.Anthropic, usage: Usage) -> tuple[anthropic.Anthropic, ReplyMeter]:
    """A copy of `client` (sharing its connection pool) that meters into `usage`."""
    meter = ReplyMeter(usage)
    return client.with_middleware(meter), meter
