"""Running a command in a fresh process, as a student's shell does, and
taking its wall time and peak resident memory. Both are taken by
bench/launch.py, a small process that forks, execs the command and reads its
`wait4` usage: the figure is that one process's own peak, not inflated by the
harness it would otherwise be forked from."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

PY = sys.executable
LAUNCH = Path(__file__).resolve().with_name("launch.py")
# The console script a student runs, from the interpreter's environment; else the same code through -m.
_SCRIPT = Path(PY).with_name("lumente")
LUMENTE = [str(_SCRIPT)] if _SCRIPT.is_file() else [PY, "-m", "lumente_cli"]


@dataclass(frozen=True)
class Ran:
    ms: float
    peak_rss_mib: float
    status: int
    stderr: bytes


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a new user: files in `home`, offline agents, no colour.

    PYTHONDONTWRITEBYTECODE goes too: with it, every run compiles Lumente's
    modules from source (about 40 ms), which no installed copy does."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LUMENTE_", "ANTHROPIC_", "XDG_"))
           and k not in ("NO_COLOR", "FORCE_COLOR", "PYTHONDONTWRITEBYTECODE")}
    return env | {"LUMENTE_HOME": str(home), "LUMENTE_PROVIDER": "offline", "NO_COLOR": "1"} | extra


def run(argv: list[str], env: dict[str, str], *, stdin: bytes | None = None, ok: tuple[int, ...] = (0,),
        keep_stderr: bool = False) -> Ran:
    """Run argv once with stdout discarded; raise SystemExit when it exits with a status not in `ok`."""
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as errors, \
            tempfile.NamedTemporaryFile("r", suffix=".txt") as result:
        given.write(stdin or b"")
        given.seek(0)
        subprocess.run([sys.executable, "-S", str(LAUNCH), result.name, *argv], env=env, check=True,
                       stdin=given if stdin is not None else subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=errors)
        ms, kib, status = result.read().split()
        errors.seek(0)
        err = errors.read()
    if int(status) not in ok:
        raise SystemExit(f"{' '.join(argv)}: exit status {status}, expected {ok}\n{err.decode()[-800:]}")
    return Ran(float(ms), int(kib) / 1024, int(status), err if keep_stderr else b"")
