"""A memory server that is hostile or broken: the real served engine behind a proxy that
rewrites its answers. Escapes and bidi controls in ids, keys and 'replaced by' never
reach the terminal; malformed values are 'memory unavailable' for a session and one
clear line for a read command, never a traceback."""

from __future__ import annotations

import re

from faultproxy import FaultProxy
from helpers import lumente_process, script, solid_script
from servehelpers import Served, learner_env

EVIL = "\\u001b]52;c;ZXZpbA==\\u0007\\u001b[2J\\u202eevil\\u2069\\u009b31m"
CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\u2069")


def poison_ids(body: bytes) -> bytes:
    """Every attribute id and every key, with terminal controls inside (JSON-escaped)."""
    text = body.decode()
    text = re.sub(r'"(attribute:[a-z0-9]+)"', lambda m: f'"{m.group(1)}{EVIL}"', text)
    text = re.sub(r'"key": ?"([a-z_]+)"', lambda m: f'"key":"{m.group(1)}{EVIL}"', text)
    return text.encode()


def bad_stamps(body: bytes) -> bytes:
    return re.sub(rb'"(createdAt|validFrom)": ?"[^"]*"', rb'"\1":"yesterday at noon"', body)


def _clean(*outputs: str) -> None:
    for out in outputs:
        assert not [c for c in CONTROLS if c in out], repr(out[:300])
        assert "Traceback" not in out and "internal error" not in out


def _played(tmp_path, server, proxy):
    env = learner_env(tmp_path / "ada", proxy.url, server.key)
    helped = script(5, "?", "?", *solid_script(None).splitlines())
    for _ in range(2):  # facts to recall and to cite
        r = lumente_process("practice", "jwt", env=env, input=helped)
        assert r.exit_code == 0, r.stderr
    return env, helped


def test_escapes_in_ids_and_keys_from_a_server_never_reach_the_terminal(tmp_path):
    server = Served(tmp_path / "server")
    proxy = FaultProxy(server.url)
    try:
        env, helped = _played(tmp_path, server, proxy)
        proxy.fault("rewrite", method="GET", rewrite=poison_ids)
        session = lumente_process("practice", "jwt", env=env, input=helped)
        assert session.exit_code == 0
        show = lumente_process("memory", "show", env=env)
        history = lumente_process("memory", "history", env=env)
        _clean(session.stdout, session.stderr, show.stdout, show.stderr, history.stdout, history.stderr)
        assert "attribute:" in show.stdout + show.stderr or show.exit_code != 0
    finally:
        proxy.close()
        server.kill()


def test_malformed_timestamps_are_memory_unavailable_not_a_crash(tmp_path):
    server = Served(tmp_path / "server")
    proxy = FaultProxy(server.url)
    try:
        env, helped = _played(tmp_path, server, proxy)
        proxy.fault("rewrite", method="GET", rewrite=bad_stamps)
        session = lumente_process("practice", "jwt", "--json", env=env, input=helped)
        assert session.exit_code == 0, session.stderr  # the session goes on without memory
        kinds = [e["event"] for e in session.events()]
        assert "memory_unavailable" in kinds and "memory_recalled" not in kinds
        for command in (("memory", "show"), ("memory", "history")):
            r = lumente_process(*command, env=env)
            assert r.exit_code == 4, (command, r.stdout, r.stderr)
            assert len([line for line in r.stderr.splitlines() if line.startswith("lumente:")]) == 1
            _clean(r.stdout, r.stderr)
    finally:
        proxy.close()
        server.kill()
