"""A careless environment is not a bug: credentials in a URL never printed, a damaged
secret refused with the fix, folders open to others closed again, a huge input line
read in bounded memory."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

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
    assert data_check["status"] != "ok" and "0777" in data_check["detail"]
    assert lumente("practice", "jwt", "--no-memory", input=solid_script(5)).exit_code == 0
    assert stat.S_IMODE(data.stat().st_mode) == 0o700


def test_a_huge_input_line_is_refused_without_reading_it_whole(tmp_path):
    # The input comes from a file, written in chunks, so this process never holds it: a
    # child forked while it did would count those pages in its own peak.
    source = tmp_path / "input.txt"
    with source.open("wb") as f:
        f.write(b"5\n")
        for _ in range(200):
            f.write(b"a" * (1024 * 1024))
        f.write(b"\n")
    with source.open("rb") as stdin:
        proc = subprocess.Popen([sys.executable, "-m", "lumente_cli", "practice", "jwt", "--no-memory"], stdin=stdin,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env={**os.environ, "LUMENTE_HOME": str(tmp_path / "home")})
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 2, err
    assert b"longer than 8,000 characters" in err and b"Traceback" not in err
    assert usage.ru_maxrss < 120 * 1024, f"peak {usage.ru_maxrss} KiB for a 200 MiB line: it was read whole"
