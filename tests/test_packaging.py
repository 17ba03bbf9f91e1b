"""The package as a user gets it: built into a wheel from the top-level layout and
installed somewhere else, with the source tree out of reach."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from helpers import isolated_environ, solid_script

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "lumente_cli", src / "lumente_cli", ignore=shutil.ignore_patterns("__pycache__"))
    # Offline, with the build tools the test extra installs: no index, no isolation.
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-index", "--no-build-isolation",
                    "-w", str(work / "dist"), str(src)], check=True, capture_output=True)
    (built,) = (work / "dist").glob("lumente-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(site),
                    str(wheel)], check=True, capture_output=True)
    return site


def run(site: Path, tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**isolated_environ(), "PYTHONPATH": str(site), "LUMENTE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, *args], input=stdin, env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)


def test_the_wheel_holds_the_package_with_its_data_and_nothing_else(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"lumente_cli", "lumente-0.1.0.dist-info"}, tops  # no bench/, man/, completions/, tests/
    assert sum(n.startswith("lumente_cli/concepts/library/") and n.endswith(".toml") for n in names) == 40
    assert any(n.startswith("lumente_cli/agents/claude/prompts/") and n.endswith(".md") for n in names)


def test_the_installed_wheel_runs_a_scripted_session(installed, tmp_path):
    where = run(installed, tmp_path, "-c", "import lumente_cli; print(lumente_cli.__file__)")
    assert where.stdout.strip().startswith(str(installed)), where.stdout  # not the source tree
    version = run(installed, tmp_path, "-m", "lumente_cli", "--version")
    assert version.returncode == 0 and version.stdout.startswith("lumente "), version.stderr
    session = run(installed, tmp_path, "-m", "lumente_cli", "practice", "jwt", "--json", stdin=solid_script(6))
    assert session.returncode == 0, session.stderr
    events = [json.loads(line) for line in session.stdout.splitlines()]
    finished = next(e for e in events if e["event"] == "session_finished")
    assert finished["score"] == 8 and finished["prediction"] == 6
    listed = run(installed, tmp_path, "-m", "lumente_cli", "concepts", "--json")
    assert len(json.loads(listed.stdout)["concepts"]) == 40
