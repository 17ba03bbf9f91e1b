"""The client against a real, failing server: a real loopback proxy in front
of the real `lumente memory serve` process, told to fail (faultproxy.py).

In every case `lumente practice` exits 0 and says one line about memory, no
fact is lost (they wait in the outbox), and after recovery every fact is
stored exactly once: the server holds one write per fact Lumente produced,
and the chains read back through `memory history` are whole.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from helpers import lumente_process, solid_script
from faultproxy import FaultProxy
from servehelpers import (
    Background,
    Served,
    assert_stored_exactly_once,
    chains_whole,
    check_chains,
    free_port,
    learner_env,
    learner_pseudonym,
    local_facts,
    memory_notices,
    stored_turns,
)

from lumente_cli.memory.service import RECALL_BUDGET_S, WRITE_BUDGET_AFTER_FAILED_RECALL_S, WRITE_BUDGET_S

FACTS = r"/facts$"
READS = r"/entities/"


def practice(env, prediction: int = 6):
    started = time.monotonic()
    r = lumente_process("practice", "jwt", env=env, input=solid_script(prediction))
    r.elapsed = time.monotonic() - started  # type: ignore[attr-defined]
    return r


def one_notice(r) -> str:
    assert r.exit_code == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    notices = memory_notices(r.stdout)
    assert len(notices) == 1, r.stdout
    return notices[0]


def pending(home) -> int:
    return sum(1 for f in local_facts(home) if f["delivered_at"] is None)


def sync(env) -> dict:
    r = lumente_process("memory", "sync", "--json", env=env)
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def history(env) -> dict:
    r = lumente_process("memory", "history", "--json", env=env)
    assert r.exit_code == 0, r.stderr
    return check_chains(json.loads(r.stdout))


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One server for the cases that do not kill it: each test has its own learner."""
    server = Served(tmp_path_factory.mktemp("shared-server"))
    yield server
    server.kill()


@pytest.fixture
def live(shared):
    proxy = FaultProxy(shared.url)
    yield shared, proxy
    proxy.close()


def learner(tmp_path, server, url, sign_in="ada"):
    env = learner_env(tmp_path / sign_in, url, server.key, sign_in=sign_in)
    env["pseudonym"] = learner_pseudonym(env)
    return env


def recovered(server, env) -> int:
    """After the fault: the outbox delivers, every fact exactly once, chains whole."""
    result = sync(env)
    assert result["queued"] == 0
    n = assert_stored_exactly_once(server.db, Path(env["LUMENTE_HOME"]), env["pseudonym"])
    chains_whole(server, env["pseudonym"])
    return n


# ------------------------------------------------------------------ the cases


@pytest.mark.parametrize(
    "action, where, status, words",
    [
        ("status", FACTS, 500, "500"),  # 500 on every write, through all retries
        ("status", FACTS, 409, "still being processed"),  # an idempotency conflict
        ("garble_after", FACTS, 200, "malformed response"),  # the write lands, the answer is garbage
    ],
    ids=["500-on-writes", "409-conflict", "malformed-json-on-writes"],
)
def test_a_failing_write_waits_in_the_outbox(tmp_path, live, action, where, status, words):
    server, proxy = live
    ada = learner(tmp_path, server, proxy.url)
    proxy.fault(action, method="POST", path=where, status=status)
    r = practice(ada)
    notice = one_notice(r)
    assert "wait in the outbox" in notice and words in notice, notice
    queued = pending(Path(ada["LUMENTE_HOME"]))
    assert queued == 9  # a first session writes 9 facts: all kept
    proxy.clear()
    assert recovered(server, ada) == 9
    if action == "garble_after":  # the landed write came back as a replay, not a second write
        replays = [s for s in proxy.seen if s[0] == "POST" and s[1].endswith("/facts") and s[4]]
        assert len(replays) == 1


def test_500_on_reads_still_writes_everything(tmp_path, live):
    server, proxy = live
    ada = learner(tmp_path, server, proxy.url)
    proxy.fault("status", method="GET", path=READS, status=500)
    r = practice(ada)
    notice = one_notice(r)
    assert notice.startswith("Memory could not be read") and "9 facts were saved" in notice
    assert pending(Path(ada["LUMENTE_HOME"])) == 0
    proxy.clear()
    assert recovered(server, ada) == 9


def test_malformed_json_on_reads(tmp_path, live):
    server, proxy = live
    ada = learner(tmp_path, server, proxy.url)
    proxy.fault("garble", method="GET", path=READS)
    notice = one_notice(practice(ada))
    assert "malformed response" in notice
    proxy.clear()
    assert recovered(server, ada) == 9


def test_a_key_that_may_not_write_is_told_what_will_deliver(tmp_path, server):
    ada = learner(tmp_path, server, server.url)
    read_only = server.mint(f"learner/{ada['pseudonym']}", verbs=("memory:read", "scope:create"))
    r = practice({**ada, "LUMENTE_MEMORY_API_KEY": read_only})
    notice = one_notice(r)
    assert "9 wait in the outbox" in notice or "9 facts wait" in notice, notice
    assert "refuses this key" in notice and "the next session" not in notice
    assert pending(Path(ada["LUMENTE_HOME"])) == 9  # kept for a key that may write them


def test_connection_refused_then_the_server_comes_up(tmp_path, serve):
    port = free_port()  # nothing listens here yet
    home = tmp_path / "home"
    env = learner_env(home, f"http://127.0.0.1:{port}", "k" * 32)
    env["pseudonym"] = learner_pseudonym(env)
    r = practice(env)
    notice = one_notice(r)
    assert "Connection refused" in notice and "9 facts wait in the outbox" in notice
    assert pending(home) == 9
    server = serve("late", port=port, key="k" * 32)
    assert server.port == port
    assert recovered(server, env) == 9


def test_a_stall_far_longer_than_the_budgets(tmp_path, live):
    server, proxy = live
    ada = learner(tmp_path, server, proxy.url)
    """Every request stalls 10 s; the student waits only the budgets."""
    stall = proxy.fault("stall", stall_s=10.0)
    healthy = practice({**ada, "LUMENTE_MEMORY_URL": "", "LUMENTE_HOME": ada["LUMENTE_HOME"] + "-baseline"})
    r = practice(ada)
    notice = one_notice(r)
    assert f"did not answer within {RECALL_BUDGET_S:g} s" in notice and "9 facts wait in the outbox" in notice
    waited = r.elapsed - healthy.elapsed
    assert waited < RECALL_BUDGET_S + WRITE_BUDGET_AFTER_FAILED_RECALL_S + 1.5, waited
    assert r.elapsed < stall.stall_s  # the session did not sit out the stall
    stall.release.set()  # the stalled requests now reach the server, late
    proxy.wait_idle()
    proxy.clear()
    assert recovered(server, ada) == 9


def test_a_stalled_write_that_lands_late_is_not_written_twice(tmp_path, live):
    server, proxy = live
    ada = learner(tmp_path, server, proxy.url)
    healthy = practice({**ada, "LUMENTE_MEMORY_URL": "", "LUMENTE_HOME": ada["LUMENTE_HOME"] + "-baseline"})
    stall = proxy.fault("stall", method="POST", path=FACTS, times=1, stall_s=10.0)
    r = practice(ada)
    notice = one_notice(r)
    assert "wait in the outbox" in notice
    # Against a session without memory run just now, so a busy machine does not fail it.
    assert r.elapsed - healthy.elapsed < WRITE_BUDGET_S + 1.5, r.elapsed - healthy.elapsed
    stall.release.set()  # the first write arrives after the client gave up on it
    proxy.wait_idle()
    assert [s[3] for s in proxy.seen if s[2] == "stall"] == [200]
    assert recovered(server, ada) == 9
    replays = [s for s in proxy.seen if s[1].endswith("/facts") and s[4]]
    assert len(replays) == 1  # the late write was answered from the idempotency record


def test_server_killed_after_the_write_landed_then_restarted(tmp_path, server, proxy):
    ada = learner(tmp_path, server, proxy.url)
    """kill -9 while a write is in flight: it committed, its answer never came."""
    held = proxy.fault("forward_then_drop", method="POST", path=FACTS, times=1)
    home = Path(ada["LUMENTE_HOME"])
    session = Background(home.parent / "bg", ["practice", "jwt"], ada, solid_script(6))
    try:
        assert held.forwarded.wait(20), "the write never reached the server"
        server.kill()  # kill -9 with the answer still in flight
    finally:
        held.release.set()
        code, out, err = session.wait()
    assert code == 0, err
    notices = memory_notices(out)
    assert len(notices) == 1 and "wait in the outbox" in notices[0], out
    assert pending(home) == 9  # the landed one too: Lumente never heard back
    proxy.upstream = server.restart()
    # Recovery by the next session: it delivers the outbox, then its own facts.
    nxt = practice(ada, prediction=7)
    assert nxt.exit_code == 0 and memory_notices(nxt.stdout) == [], nxt.stdout
    n = assert_stored_exactly_once(server.db, home, ada["pseudonym"])
    assert n == 9 + 9  # the second session: 4 level changes, the gap, 4 Help facts
    replays = [s for s in proxy.seen if s[1].endswith("/facts") and s[4]]
    assert len(replays) == 1
    chains = history(ada)
    assert [r["sentence"][:40] for r in chains["gap"]][0].startswith("Last time on JWT you guessed 7")


def test_server_killed_before_the_write_committed_then_restarted(tmp_path, server, proxy):
    ada = learner(tmp_path, server, proxy.url)
    """kill -9 while the write waits for the database lock inside the server."""
    held = proxy.fault("hold", method="POST", path=FACTS, times=1)
    home = Path(ada["LUMENTE_HOME"])
    session = Background(home.parent / "bg", ["practice", "jwt"], ada, solid_script(6))
    blocker = sqlite3.connect(server.db, timeout=30)
    try:
        assert held.arrived.wait(20)
        blocker.execute("BEGIN IMMEDIATE")  # the server's write now blocks inside SQLite
        held.release.set()
        time.sleep(0.3)  # the request is in the server, waiting for the lock
        server.kill()
        blocker.rollback()
    finally:
        blocker.close()
        held.release.set()
        code, out, err = session.wait()
    assert code == 0, err
    assert len(memory_notices(out)) == 1, out
    proxy.upstream = server.restart()
    proxy.clear()
    assert recovered(server, ada) == 9
    assert not any(s[4] for s in proxy.seen)  # nothing had landed, so nothing to replay


def test_an_interrupted_forget_completes_on_rerun(tmp_path, server, proxy):
    """Cut twice: once before the forget reaches the server, once after it
    erased everything but before the answer came back (kill -9). Each time
    one clear line and exit 4; the rerun completes, and Bo keeps his memory."""
    ada = learner(tmp_path, server, proxy.url)
    bo = learner(tmp_path, server, proxy.url, sign_in="bo")
    assert practice(ada).exit_code == 0 and practice(bo).exit_code == 0
    bo_before = json.loads(lumente_process("memory", "show", "--json", env=bo).stdout)["facts"]
    assert len(bo_before) == 9

    proxy.fault("drop", method="POST", path=r"/scopes/forget$")  # never reaches the server
    cut = lumente_process("memory", "forget", "--yes", "--json", env=ada)
    assert cut.exit_code == 4 and "Traceback" not in cut.stderr and "could not forget" in cut.stderr
    assert stored_turns(server.db, ada["pseudonym"]) == 9  # nothing was erased
    proxy.clear()

    held = proxy.fault("forward_then_drop", method="POST", path=r"/scopes/forget$", times=1)
    killer = threading.Thread(target=lambda: (held.forwarded.wait(20), server.kill(), held.release.set()))
    killer.start()
    r = lumente_process("memory", "forget", "--yes", "--json", env=ada)
    killer.join()
    assert r.exit_code == 4 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) <= 2 and "could not forget" in r.stderr
    assert stored_turns(server.db, ada["pseudonym"]) == 0  # it had landed

    proxy.upstream = server.restart()
    again = lumente_process("memory", "forget", "--yes", "--json", env=ada)
    assert again.exit_code == 0, again.stderr
    result = json.loads(again.stdout)
    assert result["left"] == 0 and result["forgotten"] == 0  # the landed forget had erased it all
    assert json.loads(lumente_process("memory", "show", "--json", env=ada).stdout)["facts"] == []
    assert json.loads(lumente_process("memory", "show", "--json", env=bo).stdout)["facts"] == bo_before


def test_a_slow_service_gets_the_rest_of_the_facts_in_the_background(server, proxy, tmp_path):
    """Writes that each take 0.7 s (the hosted service took about 0.9 s): the session
    saves what fits in its budget, and a detached `memory sync` delivers the rest."""
    proxy.fault("stall", method="POST", path=FACTS, stall_s=0.7)
    home = tmp_path / "slow"
    env = learner_env(home, proxy.url, server.key)
    r = lumente_process("-v", "practice", "jwt", "--json", env=env, input=solid_script(6))
    assert r.exit_code == 0, r.stderr
    written = next(e for e in r.events() if e["event"] == "memory_written")
    assert written["background"] is True and 0 < written["written"] < 9 and written["queued"] > 0
    assert "being sent in the background" in r.stderr
    deadline = time.monotonic() + 30
    while pending(home) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert pending(home) == 0
    assert assert_stored_exactly_once(server.db, home, learner_pseudonym(env)) == 9
