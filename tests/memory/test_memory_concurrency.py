"""Many threads and two processes on one memory file: no "database is
locked", no broken chain. Plus the file's permissions."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import threading
import time

from memhelpers import ENTITY, LEARNER, client_for, fact

from lumente_cli.memory.backend import embedded_client
from lumente_cli.memory_engine import MemoryEngine

PER_WORKER = 25

CHILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    sys.path.insert(0, sys.argv[4])
    from memhelpers import fact
    from lumente_cli.memory.backend import embedded_client
    db, tag, n, _ = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
    client = embedded_client(db)
    (db.parent / f"ready-{tag}").touch()
    while not (db.parent / "go").exists():
        time.sleep(0.005)
    for i in range(n):
        client.write_facts(fact("shared", f"{tag}-{i}"), idempotency_key=f"{tag}-shared-{i}")
        client.write_facts(fact(f"own_{tag}", str(i)), idempotency_key=f"{tag}-own-{i}")
    client.close()
    """
)


def check_chain(client, key: str) -> list:
    rows = client.history("topic", ENTITY, key)
    open_rows = [r for r in rows if r.valid_until is None]
    assert len(open_rows) == 1, f"{key}: {len(open_rows)} open rows"
    by_id = {r.id: r for r in rows}
    for r in rows:
        if r.superseded_by is not None:
            assert by_id[r.superseded_by].supersedes == r.id
            assert by_id[r.superseded_by].valid_from == r.valid_until
    return rows


def test_threads_and_processes_share_one_file(tmp_path):
    db = tmp_path / "mem" / "memory.db"
    setup = embedded_client(db)
    setup.register_scope(LEARNER)
    here = os.path.dirname(__file__)
    children = [
        subprocess.Popen([sys.executable, "-c", CHILD, str(db), tag, str(PER_WORKER), here],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for tag in ("procA", "procB")
    ]
    deadline = time.monotonic() + 30
    while not all((db.parent / f"ready-{t}").exists() for t in ("procA", "procB")):
        assert time.monotonic() < deadline, "children did not start"
        assert all(c.poll() is None for c in children), children[0].communicate()
        time.sleep(0.01)

    shared_engine = MemoryEngine(db)  # one engine used by several threads at once
    errors: list[BaseException] = []

    def worker(tag: str, own_engine: bool) -> None:
        engine = MemoryEngine(db) if own_engine else shared_engine
        client = client_for(engine)
        try:
            for i in range(PER_WORKER):
                client.write_facts(fact("shared", f"{tag}-{i}"), idempotency_key=f"{tag}-shared-{i}")
                client.write_facts(fact(f"own_{tag}", str(i)), idempotency_key=f"{tag}-own-{i}")
                client.entity("topic", ENTITY)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            if own_engine:
                engine.close()

    tags = [f"thread{i}" for i in range(6)]
    threads = [threading.Thread(target=worker, args=(tag, i % 2 == 0)) for i, tag in enumerate(tags)]
    (db.parent / "go").touch()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for child in children:
        out, err = child.communicate(timeout=60)
        assert child.returncode == 0, err.decode()
    assert errors == [], errors

    rows = check_chain(setup, "shared")
    assert len(rows) == PER_WORKER * (len(tags) + 2)  # every value differed, so every write added a row
    for tag in tags + ["procA", "procB"]:
        own = check_chain(setup, f"own_{tag}")
        assert [r.value for r in own] == [str(i) for i in range(PER_WORKER)]
    setup.close()
    shared_engine.close()


def test_files_are_private(tmp_path):
    db = tmp_path / "fresh" / "memory.db"
    client = embedded_client(db)
    client.register_scope(LEARNER)
    client.write_facts(fact("gap", "v"), idempotency_key="k")
    assert stat.S_IMODE(os.stat(db.parent).st_mode) == 0o700
    for path in (db, db.with_name("memory.db-wal"), db.with_name("memory.db-shm")):
        if path.exists():
            assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, path
    client.close()


def test_an_existing_loose_file_is_tightened(tmp_path):
    db = tmp_path / "memory.db"
    db.touch(mode=0o644)
    os.chmod(db, 0o644)
    MemoryEngine(db).close()
    assert stat.S_IMODE(os.stat(db).st_mode) == 0o600


def test_wal_and_schema_version(tmp_path):
    import sqlite3

    from lumente_cli.memory_engine.schema import MIGRATIONS

    db = tmp_path / "memory.db"
    MemoryEngine(db).close()
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    con.execute("PRAGMA user_version = 99")
    con.commit()
    con.close()
    from lumente_cli.agent_memory.client import MemoryUnavailable

    try:
        embedded_client(db)
    except MemoryUnavailable as exc:
        assert "newer Lumente" in exc.message
    else:
        raise AssertionError("a newer schema must be refused")
