"""Running a command in a fresh process, as a student's shell does, and
taking its wall time and peak resident memory (from `wait4`, so the figure is
that one process's own peak, not the largest child so far)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

PY = sys.executable
LUMENTE = [PY, "-m", "lumente_cli"]  # the same code the `lumente` script runs


@dataclass(frozen=True)
class Ran:
    ms: float
    peak_rss_mib: float
    status: int
    stderr: bytes


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a new user: files in `home`, offline agents, no colour."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LUMENTE_", "ANTHROPIC_", "XDG_")) and k not in ("NO_COLOR", "FORCE_COLOR")}
    return env | {"LUMENTE_HOME": str(home), "LUMENTE_PROVIDER": "offline", "NO_COLOR": "1"} | extra


def run(argv: list[str], env: dict[str, str], *, stdin: bytes | None = None, ok: tuple[int, ...] = (0,),
        keep_stderr: bool = False) -> Ran:
    """Run argv once with stdout discarded; raise SystemExit when it exits with a status not in `ok`."""
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as errors:
        given.write(stdin or b"")
        given.seek(0)
        start = time.perf_counter()
        # No pipes: Popen.communicate() would reap the process before wait4 could report its usage.
        proc = subprocess.Popen(argv, stdin=given if stdin is not None else subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=errors, env=env)
        _, raw, usage = os.wait4(proc.pid, 0)
        elapsed = (time.perf_counter() - start) * 1000
        proc.returncode = os.waitstatus_to_exitcode(raw)
        errors.seek(0)
        err = errors.read()
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(argv)}: exit status {proc.returncode}, expected {ok}\n{err.decode()[-800:]}")
    return Ran(elapsed, usage.ru_maxrss / 1024, proc.returncode, err if keep_stderr else b"")
