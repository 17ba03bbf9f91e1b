"""Helpers for the served-memory tests: `lumente memory serve` as a real
subprocess on a real loopback port, Lumente processes pointed at it, and
read-only looks into the server's SQLite file to count what was stored."""

from __future__ import annotations

import json
import re
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
from helpers import isolated_environ

CONTEXT = "lumente"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """One `python -m lumente_cli memory serve` process (stdout and stderr go to files)."""

    def __init__(self, workdir: Path, *, db: Path | None = None, key: str | None = None,
                 extra: tuple[str, ...] = (), port: int = 0, env: dict[str, str] | None = None,
                 generate_key: bool = False) -> None:
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.db = db or workdir / "memory.db"
        self.generate_key = generate_key
        self.key = key if key is not None else "test-admin-" + secrets.token_hex(16)
        self.key_file = workdir / "admin.key"
        if not generate_key:
            self.key_file.write_text(self.key + "\n")
            self.key_file.chmod(0o600)
        self.extra = extra
        self.env = env or {}
        self.proc: subprocess.Popen | None = None
        self.url = ""
        self.runs = 0
        self.start(port)

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def argv(self, port: int) -> list[str]:
        key = [] if self.generate_key else ["--api-key-file", str(self.key_file)]
        return [sys.executable, "-m", "lumente_cli", "memory", "serve", "--port", str(port), "--db", str(self.db),
                *key, *self.extra]

    def start(self, port: int = 0, timeout: float = 20.0) -> str:
        self.runs += 1
        self.out_path = self.workdir / f"serve-{self.runs}.out"
        self.err_path = self.workdir / f"serve-{self.runs}.err"
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(self.argv(port), stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                         env={**isolated_environ(), **self.env})
        self.url = wait_for_url(self.proc, self.out_path, self.err_path, timeout)
        if self.generate_key:
            found = re.search(r"admin key \(shown once; only its hash is stored\): (\S+)", self.stderr())
            assert found, self.stderr()
            self.key = found.group(1)
        return self.url

    def restart(self, *, same_port: bool = False) -> str:
        assert self.proc is not None and self.proc.poll() is not None, "stop or kill it first"
        return self.start(self.port if same_port else 0)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=timeout)

    def kill(self) -> None:
        """kill -9, and reap it (a zombie would still look alive)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace")

    def stdout(self) -> str:
        return self.out_path.read_text(errors="replace")

    def admin(self, **kwargs: Any) -> httpx2.Client:
        return httpx2.Client(base_url=self.url, headers={"Authorization": f"Bearer {self.key}"}, timeout=10.0,
                             **kwargs)

    def mint(self, scope: str, name: str | None = None, verbs: tuple[str, ...] = (
            "memory:read", "memory:write", "memory:forget", "scope:create")) -> str:
        """A key granted only `scope/*`, minted by the admin key over HTTP."""
        grants = {verb: [f"{scope}/*"] for verb in verbs}
        with self.admin() as http:
            r = http.post(f"/api/v1/{CONTEXT}/keys", json={"name": name or f"k-{secrets.token_hex(4)}",
                                                           "grants": grants})
        assert r.status_code == 201, r.text
        return r.json()["key"]


def wait_for_url(proc: subprocess.Popen, out_path: Path, err_path: Path, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(r"listening on (http://\S+)", out_path.read_text(errors="replace"))
        if found:
            return found.group(1)
        if proc.poll() is not None:
            raise AssertionError(f"the server exited with {proc.returncode}: {err_path.read_text()}")
        time.sleep(0.02)
    proc.kill()
    raise AssertionError(f"the server did not say where it listens: {err_path.read_text()}")


def learner_env(home: Path, url: str, key: str, *, sign_in: str = "ada", context: str = CONTEXT) -> dict[str, str]:
    """The environment of one learner's machine, pointed at a served memory."""
    return {"LUMENTE_HOME": str(home), "LUMENTE_MEMORY_URL": url, "LUMENTE_MEMORY_API_KEY": key,
            "LUMENTE_MEMORY_CONTEXT": context, "LUMENTE_SIGN_IN": sign_in, "COLUMNS": "80"}


def pseudonym_of(env: dict[str, str]) -> str:
    from helpers import lumente_process

    r = lumente_process("whoami", "--json", env=env)
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)["pseudonym"]


def memory_notices(text: str) -> list[str]:
    """The lines a session printed about memory trouble."""
    return [line for line in text.splitlines() if line.startswith("Memory")]


# ------------------------------------------------------------- counting rows


def ro(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=15)


def stored_turns(db: Path, pseudonym: str) -> int:
    """How many writes the server stored for one learner (one turn per /facts call)."""
    con = ro(db)
    try:
        return con.execute("SELECT COUNT(*) FROM turn WHERE scope LIKE ?", (f'%"learner/{pseudonym}/"%',)).fetchone()[0]
    finally:
        con.close()


def local_facts(home: Path, pseudonym: str | None = None) -> list[sqlite3.Row]:
    """The learner machine's outbox and delivery log (Lumente's own database)."""
    con = sqlite3.connect(f"file:{home / 'data' / 'lumente.db'}?mode=ro", uri=True, timeout=15)
    con.row_factory = sqlite3.Row
    try:
        rows = con.execute("SELECT * FROM memory_fact ORDER BY queued_at, rowid").fetchall()
    finally:
        con.close()
    return [r for r in rows if pseudonym is None or r["scope"] == f"learner/{pseudonym}"]


def assert_stored_exactly_once(db: Path, home: Path, pseudonym: str) -> int:
    """Every fact Lumente produced on `home` is delivered, and the server holds
    exactly one write for each (a second write would add a turn)."""
    facts = local_facts(home, pseudonym)
    pending = [f["idempotency_key"] for f in facts if f["delivered_at"] is None]
    assert pending == [], f"still in the outbox: {pending}"
    assert len({f["idempotency_key"] for f in facts}) == len(facts)
    assert stored_turns(db, pseudonym) == len(facts)
    return len(facts)


def check_chains(history_json: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """`memory history --json`: every chain well linked, one open row, no row twice."""
    out = {}
    for chain in history_json["chains"]:
        rows = chain["rows"]  # newest first
        ids = [r["id"] for r in rows]
        assert len(ids) == len(set(ids)), chain
        assert sum(r["valid_until"] is None for r in rows) == 1, chain
        for newer, older in zip(rows, rows[1:]):
            assert newer["supersedes"] == older["id"] and older["superseded_by"] == newer["id"], chain
            assert newer["sentence"] != older["sentence"], chain  # an identical rewrite never adds a row
        out[chain["key"]] = rows
    return out


class Background:
    """A Lumente process running while the test does something else; its
    input is written at once, its output goes to files (no pipe can fill)."""

    def __init__(self, workdir: Path, args: list[str], env: dict[str, str], input: str = "") -> None:  # noqa: A002
        workdir.mkdir(parents=True, exist_ok=True)
        tag = secrets.token_hex(3)
        self.out_path, self.err_path = workdir / f"bg-{tag}.out", workdir / f"bg-{tag}.err"
        stdin_path = workdir / f"bg-{tag}.in"
        stdin_path.write_text(input)
        with open(stdin_path, "rb") as stdin, open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "lumente_cli", *args], stdin=stdin, stdout=out,
                                         stderr=err, env={**isolated_environ(), **env})

    def wait(self, timeout: float = 60) -> tuple[int, str, str]:
        try:
            code = self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        return code, self.out_path.read_text(errors="replace"), self.err_path.read_text(errors="replace")


def learner_pseudonym(env: dict[str, str]) -> str:
    """The pseudonym Lumente will use for this env, computed with Lumente's own
    code in this process (creating the machine's secret if it is new); quicker
    than a `lumente whoami` process where that is not what a test checks."""
    from lumente_cli.memory import pseudonym

    return pseudonym.learner_pseudonym(Path(env["LUMENTE_HOME"]) / "data" / "secret", env["LUMENTE_SIGN_IN"])


def chains_whole(server: Served, pseudo: str, concept: str = "jwt") -> dict[str, list[Any]]:
    """Every key's chain read back over HTTP with the real client: ids unique,
    one open row, each link both ways, no value repeated next to itself."""
    from lumente_cli.memory import facts as F
    from lumente_cli.agent_memory.client import remote_client

    out = {}
    with remote_client(server.url, context=CONTEXT, api_key=server.key) as client:
        for key in F.ALL_KEYS:
            rows = client.history("topic", f"{pseudo}_{concept}", key)  # oldest first
            if not rows:
                continue
            assert len({r.id for r in rows}) == len(rows), key
            assert sum(r.valid_until is None for r in rows) == 1, key
            for older, newer in zip(rows, rows[1:]):
                assert newer.supersedes == older.id and older.superseded_by == newer.id, key
                assert newer.value != older.value, key
            out[key] = rows
    return out


def _server_sockets(port: int) -> list[tuple[int, int]]:
    """(rx_queue, remote port) of every ESTABLISHED socket whose local port is `port`."""
    out = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, remote, state, queues = fields[1], fields[2], fields[3], fields[4]
            if state == "01" and int(local.rsplit(":", 1)[1], 16) == port:
                out.append((int(queues.split(":")[1], 16), int(remote.rsplit(":", 1)[1], 16)))
    return out


def wait_until_read(port: int, connections: int, timeout: float = 10) -> None:
    """Until the server holds this many connections and has read everything sent on
    them: a request is then inside the server, without guessing with a sleep."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sockets = _server_sockets(port)
        if len(sockets) >= connections and all(rx == 0 for rx, _ in sockets):
            return
        time.sleep(0.02)
    raise AssertionError(f"the server did not take {connections} connections within {timeout} s: {_server_sockets(port)}")
