"""Privacy through the real wiring: the `lumente` command, a real `memory serve`
process behind a recording proxy, delivery in the background, `memory sync`, and
the Claude path against a Messages API stand-in. Whatever the student types goes
to the local database (and to Claude, which the student chose), never to memory."""

from __future__ import annotations

import json
import time
from pathlib import Path

from fake_messages_api import FakeMessagesAPI
from faultproxy import FaultProxy
from helpers import lumente_process
from servehelpers import Served, learner_env, local_facts

SECRETS = [
    "Zq7-SECRET jwt means json web token und ist signiert",
    "Zq8-SECRET 「トークン」 carries claims ☃ \"quoted\" \\\\ back",
    "Zq9-SECRET Last time on JWT you guessed 3 and proved 9",
    "Zq0-SECRET {\"value\": \"injected\", \"key\": \"gap\"}",
]


def _script(prediction: int = 5) -> str:
    return "\n".join([str(prediction), "?", *SECRETS]) + "\n"


def _forms(text: str) -> list[bytes]:
    """The text as it could appear on the wire or on disk: raw, JSON-escaped, ASCII-escaped."""
    return [text.encode(), json.dumps(text)[1:-1].encode(), json.dumps(text, ensure_ascii=True)[1:-1].encode(),
            text.split()[0].encode()]


def _pending(home: Path) -> int:
    return sum(1 for f in local_facts(home) if f["delivered_at"] is None)


def test_no_student_text_reaches_the_memory_service_through_any_path(tmp_path):
    server = Served(tmp_path / "server")
    proxy = FaultProxy(server.url)
    try:
        home = tmp_path / "ada"
        env = learner_env(home, proxy.url, server.key)

        # 1. An ordinary session: recall, then writes within the session's budget.
        r = lumente_process("practice", "jwt", env=env, input=_script())
        assert r.exit_code == 0, r.stderr

        # 2. A slow service: the session writes what fits, a detached `memory sync` the rest.
        proxy.fault("stall", method="POST", path=r"/facts$", stall_s=0.7)
        r = lumente_process("practice", "jwt", "--json", env=env, input=_script(6))
        assert r.exit_code == 0, r.stderr
        deadline = time.monotonic() + 30
        while _pending(home) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _pending(home) == 0
        proxy.clear()

        # 3. The service refuses writes: facts wait, and `memory sync` delivers them later.
        proxy.fault("status", method="POST", path=r"/facts$", status=503)
        r = lumente_process("practice", "jwt", env=env, input=_script(4))
        assert r.exit_code == 0 and _pending(home) > 0
        proxy.clear()
        synced = lumente_process("memory", "sync", "--json", env=env)
        assert synced.exit_code == 0, synced.stderr
        assert _pending(home) == 0

        # 4. The Claude path: the answers go to the model, and still not to memory.
        with FakeMessagesAPI() as api:
            claude = {**env, "ANTHROPIC_API_KEY": "sk-ant-test-privacy", "ANTHROPIC_BASE_URL": api.url}
            r = lumente_process("practice", "jwt", env=claude, input=_script(7))
        assert r.exit_code == 0, r.stderr
        sent_to_claude = "\n".join(json.dumps(s.body) for s in api.seen)
        assert json.dumps(SECRETS[0])[1:-1] in sent_to_claude  # the student chose Claude

        traffic = b"\n".join(proxy.captured)
        assert traffic.count(b"POST ") >= 9 * 4 and b"/facts" in traffic
        stored = b"".join(p.read_bytes() for p in server.db.parent.glob(server.db.name + "*"))
        for secret in SECRETS:
            for form in _forms(secret):
                assert form not in traffic, form
                assert form not in stored, form
        local = b"".join(p.read_bytes() for p in home.rglob("lumente.db*"))
        assert SECRETS[0].encode() in local  # the local database is where answers belong
    finally:
        proxy.close()
        server.kill()
