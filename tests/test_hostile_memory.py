"""A memory service that is slow on purpose or answers with hostile or broken values:
no session waits past its budget, nothing reaches the terminal raw, nothing crashes."""

from __future__ import annotations

import time

from helpers import lumente_process, solid_script
from hostile_servers import dripping

from lumente_cli.agent_memory.client import MemoryUnavailable, remote_client
from lumente_cli.memory.service import RECALL_BUDGET_S, WRITE_BUDGET_S


def test_a_dripping_body_cannot_hold_a_call_past_its_deadline():
    with dripping(byte_every_s=0.2, length=40) as server:
        client = remote_client(server.url, context="lumente", api_key=None, timeout=5.0)
        started = time.monotonic()
        try:
            client.entity("topic", "x", deadline=time.monotonic() + 1.0)
        except MemoryUnavailable as exc:
            assert "time allowed" in exc.message
        else:  # pragma: no cover - the body takes 8 s to arrive
            raise AssertionError("a dripped body was accepted")
        assert time.monotonic() - started < 1.5


def test_a_session_against_a_dripping_server_keeps_its_memory_budgets(tmp_path):
    with dripping(byte_every_s=0.5, length=1000) as server:
        env = {"LUMENTE_HOME": str(tmp_path / "home"), "LUMENTE_MEMORY_URL": server.url}
        started = time.monotonic()
        r = lumente_process("practice", "jwt", env=env, input=solid_script(6), timeout=60)
        took = time.monotonic() - started
    assert r.exit_code == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    # Recall and writes together may cost their budgets, plus the start-up of the command.
    assert took < RECALL_BUDGET_S + WRITE_BUDGET_S + 4.0, took


def test_memory_sync_against_a_dripping_server_gives_up_in_time(tmp_path):
    home = tmp_path / "home"
    assert lumente_process("practice", "jwt", env={"LUMENTE_HOME": str(home), "LUMENTE_MEMORY_URL":
                           "http://127.0.0.1:9"}, input=solid_script(6)).exit_code == 0  # facts wait
    with dripping(byte_every_s=0.5, length=1000) as server:
        started = time.monotonic()
        r = lumente_process("memory", "sync", env={"LUMENTE_HOME": str(home), "LUMENTE_MEMORY_URL": server.url},
                            timeout=60)
        took = time.monotonic() - started
    assert r.exit_code != 0 and "Traceback" not in r.stderr
    assert took < 14, took
