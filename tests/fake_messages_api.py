"""A local stand-in for the Claude Messages API on a real loopback socket.

Lumente is pointed at it with ANTHROPIC_BASE_URL, so the real SDK, the real
httpx2 stack and the real CLI run unchanged. Each request is routed by the
agent's system prompt ("# Lumente: the <role>") to a scripted reply.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ROLE = re.compile(r"# Lumente: the (question asker|hint giver|evaluator|question judge|coach|concept mapper|explainer)")
FACT_ID = re.compile(r"- (attribute:[a-z0-9]{20}):")
MADE_UP = "attribute:madeupmadeupmadeup0000"

Reply = tuple[int, Any]  # (status, payload): 200 -> the text block's JSON (or a RawText); else the error body


class RawMessage(dict):
    """A whole Messages API message, sent as it is (thinking blocks, a stop reason)."""


class RawText(str):
    """A 200 reply whose text block is exactly this string (e.g. not JSON at all)."""


def role_of(body: dict[str, Any]) -> str:
    system = body.get("system", "")
    text = system if isinstance(system, str) else " ".join(b.get("text", "") for b in system)
    m = ROLE.search(text)
    return m.group(1).replace(" ", "_") if m else "unknown"


def user_text(body: dict[str, Any]) -> str:
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        else:
            parts.extend(block.get("text", "") for block in content or [])
    return "\n".join(parts)


def default_reply(role: str, body: dict[str, Any]) -> Reply:
    """Valid replies for every session agent; remarks cite what they were sent plus one made-up id."""
    sent = FACT_ID.findall(user_text(body))
    if role == "question_asker":
        return 200, {"prompt": "Claude asks: what is this part about?", "cues": ["Think of a badge.", "Think of a format."],
                     "worked_example": None}
    if role == "evaluator":
        # A solid verdict with its evidence: every key point the rubric it was sent lists.
        covered = re.findall(r"- id `([a-z0-9_]+)`", user_text(body))
        return 200, {"covered": covered, "verdict": "solid", "feedback": "Claude says: well argued."}
    if role == "question_judge":
        return 200, {"verdict": "solid", "feedback": "Claude says: a good question."}
    if role == "hint_giver":
        return 200, {"message": "Claude hints: think about who stores the state.", "cites": [*sent[:1], MADE_UP]}
    if role == "coach":
        return 200, {"message": "Claude coaches: your guess was closer than last time.", "cites": [*sent[:2], MADE_UP]}
    if role == "unknown" and "output_config" in body and "format" not in body["output_config"]:
        return 200, RawText("ok")  # a plain request without an agent's prompt: `doctor --online`
    return 400, {"type": "error", "error": {"type": "invalid_request_error", "message": f"no script for {role}"}}


@dataclass
class Seen:
    role: str
    body: dict[str, Any]
    headers: dict[str, str]


@dataclass
class FakeMessagesAPI:
    reply: Callable[[str, dict[str, Any], int], Reply] = field(default=lambda role, body, n: default_reply(role, body))
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # http.server's naming
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                role = role_of(body)
                n = sum(1 for s in api.seen if s.role == role)
                api.seen.append(Seen(role, body, {k.lower(): v for k, v in self.headers.items()}))
                status, payload = api.reply(role, body, n)
                if status == 200 and not isinstance(payload, RawMessage):
                    text = str(payload) if isinstance(payload, RawText) else None
                    payload = message(payload, body.get("model", "claude-test"), text=text)
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                if status in (429, 529):
                    self.send_header("retry-after", "0")
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def roles(self) -> list[str]:
        return [s.role for s in self.seen]

    def __enter__(self) -> FakeMessagesAPI:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


def message(payload: Any, model: str, *, text: str | None = None, stop_reason: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
        "content": [{"type": "text", "text": text if text is not None else json.dumps(payload)}],
        "stop_reason": stop_reason, "stop_sequence": None,
        "usage": {"input_tokens": 120, "output_tokens": 30},
    }


def error(status: int, kind: str, text: str = "error") -> Reply:
    return status, {"type": "error", "error": {"type": kind, "message": text}}
