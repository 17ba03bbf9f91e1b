"""Shared test helpers: run the real CLI in-process or as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from lumente_cli.cli.main import app

# Answers that the offline evaluator judges solid for each JWT part.
JWT_SOLID = {
    "supraordinate": "A JWT is a kind of security token that carries claims about the user, in a standard format.",
    "coordinate": "Unlike a session id, the server does not have to store anything because the JWT is "
    "self-contained. It is signed but not encrypted, so anyone can decode and read it.",
    "attributes": "It has three parts separated by dots: a header, a payload with claims like exp and sub, "
    "and a signature that detects tampering. Each part is base64url encoded JSON.",
    "subordinate": "There are signed JWTs (JWS), which anyone can read, and encrypted ones (JWE), which hide "
    "the payload. By use, access tokens let a client call an API, while ID tokens from OpenID Connect tell the "
    "app who logged in.",
}
JWT_QUESTIONS = {
    "supraordinate": "Why is a JWT called a token and not a credential format?",
    "coordinate": "How is a JWT different from an opaque session id stored on the server?",
    "attributes": "How does the signature stop someone changing the claims in the payload?",
    "subordinate": "Why would an ID token be a JWE instead of a JWS?",
}


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]

    def kinds(self) -> list[str]:
        return [e["event"] for e in self.events()]


def lumente(*args: str, input: bytes | str | None = None, env: dict[str, str] | None = None) -> Result:  # noqa: A002 - subprocess.run's name
    """Invoke the real command tree in-process (stdin is never a terminal here)."""
    runner = CliRunner()
    data = input.encode() if isinstance(input, str) else input
    r = runner.invoke(app, list(args), input=data, env=env, prog_name="lumente")
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return Result(r.exit_code, r.stdout, r.stderr)


def isolated_environ() -> dict[str, str]:
    """os.environ without the developer's Lumente and Anthropic settings: for processes
    started outside a test's own isolation (module-scoped servers)."""
    return {
        k: v for k, v in os.environ.items()
        if not k.startswith(("LUMENTE_", "ANTHROPIC_")) and k not in ("NO_COLOR", "FORCE_COLOR")
    }


def lumente_process(
    *args: str, input: bytes | str | None = None, env: dict[str, str] | None = None, timeout: float = 60  # noqa: A002
) -> Result:
    """Run `python -m lumente_cli` as a real process, with the test's environment."""
    data = input.encode() if isinstance(input, str) else input
    proc = subprocess.run(
        [sys.executable, "-m", "lumente_cli", *args],
        input=data,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )
    return Result(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def script(prediction: int | None, *lines: str) -> str:
    head = [] if prediction is None else [str(prediction)]
    return "\n".join([*head, *lines]) + "\n"


def solid_script(prediction: int | None = 6, levels: dict[str, int] | None = None) -> str:
    """A scripted session answering every JWT part solidly (with a question at level 5)."""
    lines: list[str] = []
    for part, answer in JWT_SOLID.items():
        lines.append(answer)
        if levels and levels.get(part) == 5:
            lines.append(JWT_QUESTIONS[part])
    return script(prediction, *lines)


def data_dir() -> Path:
    from lumente_cli import paths

    return paths.current().data_dir


BENCH = Path(__file__).resolve().parent.parent / "bench"


def load_bench(name: str):  # -> a module
    """Import bench/<name>.py. The folder is on sys.path only while it loads (its
    modules import their siblings), so no bench module can stand in for a test
    helper of the same name afterwards."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    saved = list(sys.path)
    sys.path.insert(0, str(BENCH))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module
