"""Two Lumente processes finishing sessions at the same moment, against one
served memory and on one embedded database file: nothing lost, every fact
stored exactly once, never "database is locked"."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from helpers import JWT_SOLID, script
from servehelpers import assert_stored_exactly_once, learner_env, pseudonym_of

SIGN_INS = ("ada", "bo")


def at_last_part(home: Path, n: int) -> bool:
    """Whether `n` sessions in this home are waiting for their last answer."""
    db = home / "data" / "lumente.db"
    if not db.exists():
        return False
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            found = con.execute("SELECT COUNT(*) FROM event WHERE kind = 'part_started' "
                                "AND json_extract(data, '$.part') = 'subordinate'").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return False
    return found >= n


def finish_together(tmp_path: Path, envs: list[dict[str, str]], home: Path) -> list[tuple[int, str, str]]:
    """Start one session per env on a fresh home, hold each at its last answer,
    then send every last answer at once."""
    answers = list(JWT_SOLID.values())
    procs = []
    for i, env in enumerate(envs):
        out, err = open(tmp_path / f"p{i}.out", "wb"), open(tmp_path / f"p{i}.err", "wb")
        proc = subprocess.Popen([sys.executable, "-m", "lumente_cli", "practice", "jwt"], stdin=subprocess.PIPE,
                                stdout=out, stderr=err, env={**os.environ, **env})
        procs.append((proc, out, err))
    try:
        for proc, _, _ in procs:
            assert proc.stdin is not None
            proc.stdin.write(script(6, *answers[:-1]).encode())
            proc.stdin.flush()
        deadline = time.monotonic() + 30
        while not at_last_part(home, len(procs)):
            early = [(i, p.returncode) for i, (p, _, _) in enumerate(procs) if p.poll() is not None]
            assert not early and time.monotonic() < deadline, (
                early, [(tmp_path / f"p{i}.err").read_text() for i in range(len(procs))],
                [(tmp_path / f"p{i}.out").read_text()[-2000:] for i in range(len(procs))])
            time.sleep(0.02)
        for proc, _, _ in procs:  # now, as close together as two writes can be
            proc.stdin.write((answers[-1] + "\n").encode())
        for proc, _, _ in procs:
            proc.stdin.close()
        results = []
        for i, (proc, out, err) in enumerate(procs):
            code = proc.wait(timeout=60)
            out.close()
            err.close()
            results.append((code, (tmp_path / f"p{i}.out").read_text(), (tmp_path / f"p{i}.err").read_text()))
        return results
    finally:
        for proc, out, err in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            out.close()
            err.close()


def check(results: list[tuple[int, str, str]]) -> None:
    for code, out, err in results:
        assert code == 0, err
        assert "locked" not in (out + err).lower() and "Traceback" not in err
        assert not [line for line in out.splitlines() if line.startswith("Memory")], out


def test_two_sessions_end_at_once_against_one_server(tmp_path, server):
    home = tmp_path / "home"  # one fresh machine, two learners: one lumente.db, one server
    envs = [learner_env(home, server.url, server.key, sign_in=s) for s in SIGN_INS]
    check(finish_together(tmp_path, envs, home))
    for env in envs:
        assert assert_stored_exactly_once(server.db, home, pseudonym_of(env)) == 9


def test_two_sessions_end_at_once_on_one_embedded_file(tmp_path):
    home = tmp_path / "home"  # no memory URL: both use home/data/memory.db in-process
    envs = [{"LUMENTE_HOME": str(home), "LUMENTE_SIGN_IN": s, "COLUMNS": "80"} for s in SIGN_INS]
    check(finish_together(tmp_path, envs, home))
    pseudonyms = {pseudonym_of(env) for env in envs}
    assert len(pseudonyms) == 2  # both first runs agreed on the machine's one secret
    for p in pseudonyms:
        assert assert_stored_exactly_once(home / "data" / "memory.db", home, p) == 9


def test_first_runs_at_the_same_moment_agree_on_the_learner_secret(tmp_path):
    """The race the test above can hit: each first run making its own secret
    would file one learner's memory under a pseudonym no later run derives."""
    import threading

    from lumente_cli.memory.pseudonym import load_or_create_secret

    for round_ in range(8):
        path = tmp_path / f"r{round_}" / "secret"
        path.parent.mkdir()
        barrier = threading.Barrier(8)
        got: list[bytes] = []

        def first_run() -> None:
            barrier.wait()
            got.append(load_or_create_secret(path))

        threads = [threading.Thread(target=first_run) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(set(got)) == 1 and got[0] == path.read_bytes()
        assert sorted(p.name for p in path.parent.iterdir()) == ["secret"]  # no temp file left behind
