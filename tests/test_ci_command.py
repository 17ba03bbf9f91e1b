"""CI runs exactly the test command README.md gives, and its log ends by saying
how many tests passed, even when someone adds their own -q."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"^=* ?\d+ passed(, \d+ \w+)* in \d+(\.\d+)?s( \([\d:]+\))?( =*)?$")


def readme_commands() -> list[str]:
    block = (ROOT / "README.md").read_text("utf-8").split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def readme_pytest_args() -> list[str]:
    """What README's second command passes to `python -m pytest`."""
    words = shlex.split(readme_commands()[1].rsplit("&&", 1)[1])
    assert words[:3] == ["python", "-m", "pytest"], words
    return words[3:]


def test_ci_runs_exactly_the_readme_test_command():
    ci = [line for line in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
          if line.strip() and not line.lstrip().startswith("#")]
    assert ci[-1] == readme_commands()[1]


@pytest.mark.parametrize("extra", [[], ["-q"]], ids=["as README gives it", "with another -q"])
def test_the_test_run_ends_by_saying_how_many_passed(tmp_path, extra):
    (tmp_path / "test_probe.py").write_text("def test_one():\n    pass\n\n\ndef test_two():\n    pass\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *readme_pytest_args(), *extra, "-c", str(ROOT / "pyproject.toml"),
         "--rootdir", str(tmp_path), "test_probe.py"],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    last = run.stdout.strip().splitlines()[-1]
    assert SUMMARY.match(last) and last.split("passed")[0].strip(" =") == "2", last
