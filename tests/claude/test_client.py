"""The client factory, the model id, and keeping `anthropic` out of light imports."""

from __future__ import annotations

import subprocess
import sys
import typing

import httpx2
import pytest
from claude_fakes import KEY, FakeClaude, client_for, reply

from lumente_cli.agents.claude import DEFAULT_MODEL, make_anthropic_client
from lumente_cli.agents.claude.client import (
    CONNECT_TIMEOUT_SECONDS,
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT_SECONDS,
    retry_after_seconds,
)
from lumente_cli.errors import ProviderError


def test_importing_the_claude_package_does_not_import_the_sdk():
    code = (
        "import sys\n"
        "import lumente_cli.agents.claude, lumente_cli.agents.claude.agents, lumente_cli.agents.claude.mapper\n"
        "import lumente_cli.agents.claude.client, lumente_cli.agents.claude.prompting\n"
        "print(','.join(m for m in ('anthropic', 'httpx2') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_defaults_suit_an_interactive_tool():
    client = make_anthropic_client(api_key=KEY)
    assert client.max_retries == DEFAULT_MAX_RETRIES == 0  # the provider retries what is worth it, never a timeout
    assert client.timeout.read == DEFAULT_TIMEOUT_SECONDS == 20.0
    assert client.timeout.connect == CONNECT_TIMEOUT_SECONDS
    client.close()


def test_timeout_and_retries_can_be_set():
    client = make_anthropic_client(api_key=KEY, timeout=2.0, max_retries=0, base_url="http://claude.test")
    assert client.max_retries == 0
    assert client.timeout.read == 2.0 and client.timeout.connect == 2.0
    assert str(client.base_url).startswith("http://claude.test")
    client.close()


def test_the_injected_transport_carries_the_requests():
    fake = FakeClaude(reply("hello"))
    client = client_for(fake)
    message = client.messages.create(model=DEFAULT_MODEL, max_tokens=10, messages=[{"role": "user", "content": "hi"}])
    assert message.content[0].text == "hello"
    assert fake.requests[0].url.path == "/v1/messages"
    assert fake.requests[0].headers["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("key", ["", "   "])
def test_an_empty_key_is_a_clear_error(key):
    with pytest.raises(ProviderError) as info:
        make_anthropic_client(api_key=key)
    assert "No Claude API key" in info.value.message


def test_default_model_is_current_and_not_deprecated():
    from anthropic._data.deprecated_models import DEPRECATED_MODELS
    from anthropic.types import Model

    known = {a for arg in typing.get_args(Model) for a in typing.get_args(arg)}
    assert DEFAULT_MODEL in known
    assert DEFAULT_MODEL not in DEPRECATED_MODELS


def test_retry_after_is_read_like_the_sdk_reads_it():
    assert retry_after_seconds(httpx2.Headers({"retry-after-ms": "250"})) == 0.25
    assert retry_after_seconds(httpx2.Headers({"retry-after": "30"})) == 30.0
    assert retry_after_seconds(httpx2.Headers({})) is None
    assert retry_after_seconds(httpx2.Headers({"retry-after": "soon"})) is None
    assert 50 < retry_after_seconds(httpx2.Headers({"retry-after": _http_date(60)})) <= 61


def _http_date(seconds_from_now: int) -> str:
    import email.utils
    import time

    return email.utils.formatdate(time.time() + seconds_from_now, usegmt=True)
