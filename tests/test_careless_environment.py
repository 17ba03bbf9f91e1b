"""A careless environment is not a bug: credentials in a URL never printed, a damaged
secret refused with the fix, folders open to others closed again, a huge input line
read in bounded memory."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time

import pytest

from helpers import lumente, solid_script

from lumente_cli import paths

URL = "https://ada:hunter2-PASSWORD@memory.invalid:8443/base?token=TOKEN-abc123&region=eu"


def test_a_password_or_token_in_the_memory_url_is_never_printed():
    env = {"LUMENTE_MEMORY_URL": URL}
    outputs = []
    for args in (("config", "show"), ("config", "show", "--json"), ("whoami",), ("whoami", "--json"),
                 ("doctor",), ("memory", "show"), ("memory", "sync")):
        r = lumente(*args, env=env)
        outputs.append(r.stdout + r.stderr)
    session = lumente("practice", "jwt", input=solid_script(5), env=env)
    assert session.exit_code == 0
    outputs.append(session.stdout + session.stderr)
    everything = "\n".join(outputs)
    assert "hunter2" not in everything and "TOKEN-abc123" not in everything
    assert "memory.invalid:8443" in everything  # still recognisable
    assert "ada:****@" in everything


def test_an_empty_secret_is_refused_with_the_fix_not_replaced():
    assert lumente("whoami").exit_code == 0
    secret = paths.current().data_dir / "secret"
    secret.write_bytes(b"")
    r = lumente("whoami")
    assert r.exit_code == 1
    assert "is empty" in r.stderr and "backup" in r.stderr and "Traceback" not in r.stderr
    assert secret.read_bytes() == b""  # left as found: a new secret would orphan past memory


def test_a_data_folder_open_to_others_is_closed_and_doctor_says_so():
    assert lumente("whoami").exit_code == 0
    data = paths.current().data_dir
    os.chmod(data, 0o777)
    checks = lumente("doctor", "--json")
    import json

    data_check = next(c for c in json.loads(checks.stdout)["checks"] if c["name"] == "data_dir")
    assert data_check["status"] == "warn" and "0777" in data_check["detail"] and "chmod 700" in data_check["fix"]
    assert lumente("practice", "jwt", "--no-memory", input=solid_script(5)).exit_code == 0
    assert stat.S_IMODE(data.stat().st_mode) == 0o700


def _refused_line_peak(tmp_path, name: str, megabytes: int) -> int:
    """Peak memory (KiB) of a session fed one line of this many MiB; the input comes from
    a file written in chunks, so this process never holds it."""
    source = tmp_path / f"{name}.txt"
    with source.open("wb") as f:
        f.write(b"5\n")
        for _ in range(megabytes):
            f.write(b"a" * (1024 * 1024))
        f.write(b"\n")
    with source.open("rb") as stdin:
        proc = subprocess.Popen([sys.executable, "-m", "lumente_cli", "practice", "jwt", "--no-memory"], stdin=stdin,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env={**os.environ, "LUMENTE_HOME": str(tmp_path / name)})
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 2, err
    assert b"the limit is 8,000 characters" in err and b"Traceback" not in err
    return usage.ru_maxrss


def test_a_huge_input_line_is_refused_without_reading_it_whole(tmp_path):
    # A forked child's peak counts the pages it shared with this (large) test process
    # before exec, so the huge line is measured against a 1 MiB line refused the same way.
    small = _refused_line_peak(tmp_path, "small", 1)
    huge = _refused_line_peak(tmp_path, "huge", 200)
    assert huge - small < 40 * 1024, f"peak {huge} KiB for a 200 MiB line, {small} KiB for 1 MiB: it was read whole"


def _practice(home, *extra: str, stdin=None, stdout=subprocess.PIPE, input_bytes: bytes | None = None):
    return subprocess.run([sys.executable, "-m", "lumente_cli", "practice", "jwt", "--no-memory", *extra],
                          input=input_bytes, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, timeout=60,
                          env={**os.environ, "LUMENTE_HOME": str(home)})


def _one(home, sql: str):
    """The first column of the first row of `sql` on the learner's database."""
    import sqlite3

    con = sqlite3.connect(home / "data" / "lumente.db")
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def _events(home) -> int:
    return _one(home, "SELECT COUNT(*) FROM engine_event")


def _session_status(home) -> str:
    return _one(home, "SELECT status FROM session ORDER BY started_at DESC LIMIT 1")


def test_a_full_stdout_is_a_clear_line_not_a_bug(tmp_path):
    with open("/dev/full", "wb") as full:
        r = _practice(tmp_path / "home", stdout=full, input_bytes=solid_script(5).encode())
    err = r.stderr.decode()
    assert r.returncode == 1, err
    assert "disk is full" in err and "bug" not in err and "Traceback" not in err


def test_a_corrupt_database_is_named_with_the_fix(tmp_path):
    home = tmp_path / "home"
    assert _practice(home, input_bytes=solid_script(5).encode()).returncode == 0
    db = home / "data" / "lumente.db"
    data = bytearray(db.read_bytes())
    for i in range(4096, min(len(data), 4096 * 6)):  # every page after the header page
        data[i] = 0xA5
    db.write_bytes(bytes(data))
    for name in ("lumente.db-wal", "lumente.db-shm"):
        (home / "data" / name).unlink(missing_ok=True)
    r = _practice(home, input_bytes=solid_script(5).encode())
    err = r.stderr.decode()
    assert r.returncode in (1, 2), err
    assert ("damaged" in err or "corrupt" in err) and "bug" not in err and "Traceback" not in err


def test_a_read_only_database_error_is_explained():
    import sqlite3

    from lumente_cli.cli.common import environment_failure

    con = sqlite3.connect("file::memory:?mode=ro", uri=True)
    try:
        con.execute("CREATE TABLE t(x)")
    except sqlite3.Error as exc:
        message, hint = environment_failure(exc)
    assert "read-only" in message and "writable" in hint
    full = OSError(28, "No space left on device", "/data/lumente.db")
    assert "disk is full" in environment_failure(full)[0] and "/data/lumente.db" in environment_failure(full)[0]
    assert environment_failure(RuntimeError("a real bug")) is None


def test_a_closed_stdin_pauses_cleanly(tmp_path):
    home = tmp_path / "home"
    r = subprocess.run(["bash", "-c", f'"{sys.executable}" -m lumente_cli practice jwt --no-memory --predict 4 <&-'],
                       capture_output=True, timeout=60, env={**os.environ, "LUMENTE_HOME": str(home)})
    err = r.stderr.decode()
    assert r.returncode == 3, err  # input ended: saved as paused
    assert "Traceback" not in err and "bug" not in err
    assert _session_status(home) == "paused"


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_a_stop_signal_pauses_the_session_like_ctrl_c(tmp_path, sig):
    import signal
    import time

    home = tmp_path / "home"
    proc = subprocess.Popen([sys.executable, "-m", "lumente_cli", "practice", "jwt", "--no-memory"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "LUMENTE_HOME": str(home)})
    proc.stdin.write(b"5\n")
    proc.stdin.flush()
    deadline = time.monotonic() + 20
    while True:  # until the session is under way: the prediction is recorded
        try:
            if _session_status(home) == "active" and _events(home) > 0:
                break
        except Exception:  # noqa: BLE001 - the database may not exist yet
            pass
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(getattr(signal, sig))
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert b"saved as paused" in out + err
    assert b"Traceback" not in err
    assert _session_status(home) == "paused"


def test_a_stop_signal_while_the_session_opens_waits_until_it_can_pause():
    import signal

    from lumente_cli.practice.wiring import StopSignal, stop_signals_pause

    with stop_signals_pause() as stops:
        os.kill(os.getpid(), signal.SIGTERM)  # lands while the session is being opened: held back
        with pytest.raises(StopSignal):
            stops.arm()  # the run can pause now: it takes effect
    with stop_signals_pause() as stops:
        stops.arm()
        with pytest.raises(StopSignal):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)  # the handler runs at the next bytecode; this never finishes


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_a_stop_signal_stops_a_check_round(tmp_path, sig):
    import signal

    proc = subprocess.Popen([sys.executable, "-m", "lumente_cli", "check", "jwt", "--no-memory", "--json"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "LUMENTE_HOME": str(tmp_path / "home")})
    proc.stdin.write(b"5\n")  # the prediction; the flags line never comes
    proc.stdin.flush()
    deadline = time.monotonic() + 20
    seen = b""
    while b'"predicted"' not in seen:  # the round is under way, waiting for the flags
        assert time.monotonic() < deadline, seen
        seen += proc.stdout.readline()
    proc.send_signal(getattr(signal, sig))
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert b'"check_stopped"' in seen + out and b"Traceback" not in err
