"""A scripted Messages API for the real SDK: canned HTTP replies through an
injected httpx2 transport. No network, and none of our code is mocked."""

from __future__ import annotations

import json
from typing import Any

import httpx2

from lumente_cli.agents.claude import make_anthropic_client
from lumente_cli.memory.facts import MemoryFact, gap_sentence, help_sentence, level_sentence

KEY = "sk-ant-test-DO-NOT-SHOW-4f9c2e7a1b"
MODEL = "claude-sonnet-5-5"


class FakeClaude(httpx2.BaseTransport):
    """Answers each request with the next step of its script.

    A step is an `httpx2.Response`, an exception instance (raised, as a broken
    network would), or a callable taking the request. Running out of script
    answers 418 so a test sees the extra request instead of a hang.
    """

    def __init__(self, *script: Any) -> None:
        self.script = list(script)
        self.requests: list[httpx2.Request] = []

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        request.read()
        self.requests.append(request)
        if not self.script:
            return httpx2.Response(418, json=_error_body("invalid_request_error", "unexpected request"))
        step = self.script.pop(0)
        if isinstance(step, BaseException):
            raise step
        if callable(step):
            step = step(request)
        return step

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]

    def user_text(self, i: int = -1) -> str:
        """All user-turn text of request i, joined."""
        texts = []
        for message in self.bodies[i]["messages"]:
            if message["role"] != "user":
                continue
            content = message["content"]
            if isinstance(content, str):
                texts.append(content)
            else:
                texts.extend(block.get("text", "") for block in content)
        return "\n".join(texts)


def reply(
    payload: Any,
    *,
    stop_reason: str = "end_turn",
    input_tokens: int = 100,
    output_tokens: int = 40,
) -> httpx2.Response:
    """A 200 Messages API reply whose single text block is `payload` (JSON-encoded unless a str)."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return httpx2.Response(
        200,
        json={
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        },
    )


def _error_body(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def api_error(status: int, kind: str, message: str = "error", headers: dict[str, str] | None = None) -> httpx2.Response:
    return httpx2.Response(status, json=_error_body(kind, message), headers=headers or {})


def client_for(fake: FakeClaude, *, max_retries: int = 0, timeout: float = 5.0):
    return make_anthropic_client(
        api_key=KEY,
        base_url="http://claude.test",
        http_client=httpx2.Client(transport=fake),
        max_retries=max_retries,
        timeout=timeout,
    )


def facts() -> tuple[MemoryFact, ...]:
    at = "2026-11-20T10:00:00Z"
    return (
        MemoryFact(
            id="fact_level_sup_01",
            key="level_supraordinate",
            kind="level",
            part="supraordinate",
            sentence=level_sentence("JWT", "supraordinate", 3),
            at=at,
            level=3,
        ),
        MemoryFact(
            id="fact_gap_02",
            key="gap",
            kind="gap",
            sentence=gap_sentence("JWT", 4, 2),
            at=at,
            predicted=4,
            proved=2,
        ),
        MemoryFact(
            id="fact_help_sup_03",
            key="help_supraordinate",
            kind="help",
            part="supraordinate",
            sentence=help_sentence("JWT", "supraordinate", 2),
            at=at,
            help_taps=2,
        ),
    )
