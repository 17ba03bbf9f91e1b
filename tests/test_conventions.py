"""Conventions every command keeps: --json on read commands, no escape bytes
with NO_COLOR or --no-color (even with FORCE_COLOR), errors as `lumente:
<message>` plus a hint, -q and -v, outside text sanitised, and no `anthropic`
import where Claude is not called."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import lumente, solid_script

from lumente_cli import __version__, paths

ROOT = Path(__file__).resolve().parent.parent
JWT = (ROOT / "lumente_cli" / "concepts" / "library" / "jwt.toml").read_text()
ESC = "\x1b"


@pytest.fixture
def history():
    """One finished session with memory on, so every read command has something to show."""
    r = lumente("practice", "jwt", input=solid_script(5))
    assert r.exit_code == 0, r.stderr


READ_COMMANDS = [
    ("concepts",), ("concepts", "show", "jwt"), ("progress",), ("progress", "jwt"), ("whoami",),
    ("memory", "show"), ("memory", "show", "jwt"), ("memory", "history"),
    ("memory", "history", "jwt", "--part", "coordinate"),
    ("memory", "sync"), ("doctor",), ("config", "show"), ("path",), ("next",),
]


@pytest.mark.parametrize("args", READ_COMMANDS, ids=" ".join)
def test_read_commands_print_one_json_document(args, history):
    r = lumente(*args, "--json")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert isinstance(doc, dict)
    assert ESC not in r.stdout


def test_memory_forget_json(history):
    r = lumente("memory", "forget", "--yes", "--json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["left"] == 0


# ------------------------------------------------------------------ colour

COLOURED = [("concepts",), ("concepts", "show", "jwt"), ("progress", "jwt"), ("whoami",), ("memory", "show"),
            ("memory", "history"), ("doctor",), ("config", "show"), ("path",), ("nope",), ("concepts", "show", "nope"),
            ("next",)]


@pytest.mark.parametrize("args", COLOURED, ids=" ".join)
def test_no_color_means_no_escape_bytes_even_with_force_color(args, history):
    forced = lumente(*args, env={"FORCE_COLOR": "1"})
    assert ESC in forced.stdout + forced.stderr  # the test can see colour when there is some
    for env, flags in (({"FORCE_COLOR": "1", "NO_COLOR": "1"}, ()), ({"FORCE_COLOR": "1"}, ("--no-color",))):
        r = lumente(*flags, *args, env=env)
        assert ESC not in r.stdout and ESC not in r.stderr, (env, flags)
        assert r.exit_code == forced.exit_code
        assert r.stdout.strip() or r.stderr.strip()


def test_a_practice_session_has_no_escape_bytes_with_no_color():
    for env, flags in (({"FORCE_COLOR": "1", "NO_COLOR": "1"}, ()), ({"FORCE_COLOR": "1"}, ("--no-color",))):
        r = lumente(*flags, "practice", "jwt", "--no-memory", input=solid_script(6), env=env)
        assert r.exit_code == 0, r.stderr
        assert "The reference map" in r.stdout
        assert ESC not in r.stdout + r.stderr


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize("args, message", [
    (("practice",), "lumente: no concept given, and nothing to suggest yet."),
    (("scan", "/nonexistent/project"), "lumente: no such folder: /nonexistent/project."),
    (("practice", "jwt", "--bogus"), "lumente: no such option: --bogus"),
    (("practice", "jwt", "--predict", "9"), "lumente: invalid value for '--predict'"),
    (("nope",), "lumente: no such command 'nope'."),
    (("memory", "history", "--part", "nonsense"), "lumente: unknown part 'nonsense'."),
    (("concepts", "show", "jwtt"), "lumente: unknown concept 'jwtt'."),
    (("practice", "jwt", "--resume", "--restart"), "lumente: --resume and --restart cannot be used together."),
    (("memory", "show", "--as-of", "whenever"), "lumente: --as-of: cannot read the time 'whenever'"),
    (("login", "a\x01b"), "lumente: a sign-in ID must be 1 to 200 printable characters."),
])
def test_errors_are_one_line_and_a_hint_on_stderr_with_exit_2(args, message):
    r = lumente(*args)
    assert r.exit_code == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert lines[0].startswith(message)
    assert len(lines) == 2 and lines[1].strip()  # the hint
    assert "Traceback" not in r.stderr


def test_usage_hint_names_the_command_and_its_help():
    r = lumente("memory", "show", "--as-of")
    assert r.exit_code == 2
    assert r.stderr.splitlines()[1].startswith("Usage: lumente memory show [OPTIONS]")
    assert "`lumente memory show -h` for help" in r.stderr


def test_an_error_without_a_hint_of_its_own_points_at_the_help_of_the_command_that_ran():
    config = paths.current().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("sign_in = [1]\n")  # a usage error every command meets, raised without a hint
    for args, command in ((("-q", "memory", "history", "--part", "category", "jwt"), "lumente memory history"),
                          (("config", "show"), "lumente config show"), (("whoami",), "lumente whoami")):
        r = lumente(*args)
        assert r.exit_code == 2 and "must be a string" in r.stderr
        assert r.stderr.splitlines()[1] == f"`{command} -h` shows how to use it."


def test_bare_command_still_shows_help():
    r = lumente()
    assert "Usage: lumente [OPTIONS] COMMAND" in r.stdout + r.stderr


# ------------------------------------------------------------------ -q and -v


def test_quiet_silences_notices_but_never_results_or_errors():
    r = lumente("-q", "practice", "jwt", "--json", "--no-memory", input=solid_script(6))
    assert r.exit_code == 0 and r.stderr == ""  # the human view and notices went quiet
    assert any(json.loads(line)["event"] == "session_finished" for line in r.stdout.splitlines())
    assert "jwt" in lumente("-q", "concepts").stdout  # results stay
    bad = lumente("-q", "concepts", "show", "nope")
    assert bad.stderr.startswith("lumente: unknown concept")  # errors stay


def test_global_options_last_for_one_run_only():
    from lumente_cli.cli.common import Globals, globals_of

    assert "ok  " not in lumente("-q", "-v", "--no-color", "doctor").stdout
    assert globals_of() == Globals()  # the test's own process, after the run: nothing left behind


def test_verbose_adds_detail():
    plain, verbose = lumente("path"), lumente("-v", "path")
    assert len(verbose.stdout.splitlines()) > len(plain.stdout.splitlines())
    assert sys.executable in lumente("-v", "doctor").stdout
    assert sys.executable not in lumente("doctor").stdout


# ------------------------------------------------------------------ outside text


EVIL_SUMMARY = "Evil summary \x1b]52;c;ZXZpbA==\x07with a clipboard write\x1b[2J and a screen clear."
EVIL_REFERENCE = "Evil reference \x1b[31mred\x1b[0m \x1b]0;title\x07text \x9b2J for the category part of the map."


def _write_evil_concept() -> None:
    text = JWT.replace('id = "jwt"', 'id = "evil"', 1).replace('name = "JWT"', 'name = "Evil\\u001b[5m"', 1)
    start = text.index("summary = ")
    end = text.index("\n", start)
    text = text[:start] + f"summary = {json.dumps(EVIL_SUMMARY)}" + text[end:]
    # the first reference is the supraordinate part's
    ref = text.index("reference = ")
    if text[ref + len("reference = "):].startswith('"""'):
        close = text.index('"""', ref + len('reference = """')) + 3
    else:
        close = text.index("\n", ref)
    text = text[:ref] + f"reference = {json.dumps(EVIL_REFERENCE)}" + text[close:]
    user = paths.current().user_concepts_dir
    user.mkdir(parents=True, exist_ok=True)
    (user / "evil.toml").write_text(text)


def _clean(output: str) -> None:
    assert ESC not in output and "\x07" not in output and "\x9b" not in output


def test_escape_sequences_in_a_user_concept_file_never_reach_the_terminal():
    _write_evil_concept()
    listing = lumente("concepts")
    assert listing.exit_code == 0, listing.stderr
    assert "Evil summary with a clipboard write and a screen clear." in " ".join(listing.stdout.split())
    _clean(listing.stdout + listing.stderr)

    shown = lumente("concepts", "show", "evil")
    assert shown.exit_code == 0, shown.stderr
    assert "Evil reference red text for the category" in " ".join(shown.stdout.split())
    _clean(shown.stdout + shown.stderr)

    session = lumente("practice", "evil", "--no-memory", input=solid_script(6))
    assert session.exit_code == 0, session.stderr
    assert "The reference map" in session.stdout and "Evil reference" in session.stdout
    _clean(session.stdout + session.stderr)

    # JSON escapes control characters instead of printing them
    as_json = lumente("concepts", "show", "evil", "--json")
    _clean(as_json.stdout)
    assert json.loads(as_json.stdout)["summary"] == EVIL_SUMMARY


def test_a_concept_file_name_with_escapes_is_reported_sanitised():
    user = paths.current().user_concepts_dir
    user.mkdir(parents=True)
    (user / "bad\x1b[2J.toml").write_text("id = \n")
    r = lumente("concepts")
    assert r.exit_code == 1
    assert "not valid TOML" in r.stderr and "/bad.toml" in r.stderr  # the CSI sequence is dropped whole
    _clean(r.stderr)
    d = lumente("doctor")
    _clean(d.stdout)


# ------------------------------------------------------------------ start-up weight


def _imported(*args: str, stdin: str = "") -> set[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "lumente_cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120, env={**os.environ})
    modules = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            modules.add(line.rsplit("|", 1)[1].strip())
    assert modules, proc.stderr[-2000:]
    return modules


@pytest.mark.parametrize("args, stdin", [
    (("--help",), ""),
    (("memory", "show"), ""),
    (("practice", "jwt", "--predict", "4"), ""),  # offline, memory on; EOF at once: paused
    (("practice", "jwt", "--no-memory"), solid_script(6)),
    (("check", "jwt"), "5\nnone\n"),
    (("concepts",), ""),
    (("config", "show"), ""),
])
def test_commands_that_do_not_call_claude_never_import_anthropic(args, stdin):
    modules = _imported(*args, stdin=stdin)
    assert not {m for m in modules if m == "anthropic" or m.startswith("anthropic.")}
    assert "lumente_cli.cli.main" in modules


@pytest.mark.parametrize("preset, expected", [(None, "__all__"), ("", ""), ("logfire", "logfire")])
def test_the_command_skips_pydantic_plugins_unless_the_environment_says(preset, expected):
    """pydantic would read every installed package's metadata looking for plugins; the
    command does not ask it to, and keeps a choice the environment already made."""
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    if preset is not None:
        env["PYDANTIC_DISABLE_PLUGINS"] = preset
    seen = subprocess.run(
        [sys.executable, "-c", "import atexit, os; from lumente_cli.cli.main import run; "
         "atexit.register(lambda: print(repr(os.environ.get('PYDANTIC_DISABLE_PLUGINS')))); run()", "--version"],
        capture_output=True, text=True, env=env, timeout=60,
    )
    assert seen.returncode == 0, seen.stderr
    assert seen.stdout.splitlines() == [f"lumente {__version__}", repr(expected)]


def _on_a_terminal(*args: str, env: dict[str, str]) -> str:
    """Run `python -m lumente_cli` with stdout and stderr on a real pseudo-terminal; return the raw bytes."""
    import pty
    import select

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "lumente_cli", *args], stdin=subprocess.DEVNULL, stdout=slave,
                            stderr=slave, env={**os.environ, "TERM": "xterm", "COLUMNS": "100", **env}, close_fds=True)
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    proc.wait(timeout=30)
    return out.decode("utf-8", "replace")


def test_no_color_on_a_real_terminal_has_no_colour_or_style_sequences():
    coloured = _on_a_terminal("concepts", "show", "jwt", env={})
    assert "\x1b[" in coloured  # a terminal gets styles by default
    plain = _on_a_terminal("concepts", "show", "jwt", env={"NO_COLOR": "1"})
    assert "JSON Web Token" in plain and ESC not in plain
    flag = _on_a_terminal("--no-color", "doctor", env={})
    assert "python" in flag and ESC not in flag


EVIL = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b]8;;http://evil.example\x07\u202eRTL\u2066iso\u2069\x9b31m"


def _poison(value):
    """Every string of a concept, recursively, with escape sequences and bidi controls."""
    if isinstance(value, str):
        return value + EVIL
    if isinstance(value, list):
        return [_poison(v) for v in value]
    if isinstance(value, dict):
        return {k: (v if k in ("id", "accept", "match", "names", "kind", "expect", "required", "core", "solid_needs",
                                 "area", "links", "detection")
                    else _poison(v)) for k, v in value.items()}
    return value


def _dirty(output: str) -> list[str]:
    return [c for c in ("\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\u2069") if c in output]


def test_no_text_of_a_user_concept_reaches_the_terminal_raw_in_any_field():
    """Prompts, guided questions, cues, worked examples, hints, nudges, references and
    the coach: a session that shows each of them prints none of the controls."""
    import tomllib

    from lumente_cli.toml_writer import dumps

    data = _poison(tomllib.loads(JWT))
    data["id"] = "evil"
    user = paths.current().user_concepts_dir
    user.mkdir(parents=True, exist_ok=True)
    (user / "evil.toml").write_text(dumps(data))
    # Session 1 at level 2 (guided questions and cues), with every hint and nothing known:
    # the nudges come back as feedback, and every level drops to 1.
    taps = ["?"] * 6
    first = lumente("practice", "evil", "--no-memory", input="4\n" + "\n".join([*taps, "no idea at all"] * 4) + "\n")
    assert first.exit_code == 0, first.stderr
    # Session 2 at level 1: the worked examples.
    second = lumente("practice", "evil", "--no-memory", input="3\n" + "\n".join(["idk"] * 4) + "\n")
    assert second.exit_code == 0, second.stderr
    assert "Worked example" in second.stdout
    for output in (first.stdout, first.stderr, second.stdout, second.stderr):
        assert _dirty(output) == []
    shown = lumente("concepts", "show", "evil")
    assert shown.exit_code == 0 and _dirty(shown.stdout + shown.stderr) == []


# Dependencies point one way: cli -> practice -> session, agents, memory, store -> the rest.
# Memory has three wings: the domain (`memory`) uses the Agent Memory protocol
# (`agent_memory`) and wires up the embedded engine (`memory_engine`); the
# engine knows only the protocol's wire models, and the protocol knows neither.
# These packages sit below the ones named, and must never import them.
_ABOVE_ALL = ("lumente_cli.agents", "lumente_cli.practice", "lumente_cli.cli", "lumente_cli.views")
_BELOW = {
    "memory": _ABOVE_ALL,
    "agent_memory": (*_ABOVE_ALL, "lumente_cli.memory", "lumente_cli.memory_engine", "lumente_cli.store",
                     "lumente_cli.session", "lumente_cli.concepts"),
    "memory_engine": (*_ABOVE_ALL, "lumente_cli.memory", "lumente_cli.agent_memory.client", "lumente_cli.store",
                      "lumente_cli.session", "lumente_cli.concepts"),
    "session": ("lumente_cli.agents", "lumente_cli.memory", "lumente_cli.practice", "lumente_cli.cli"),
    "store": ("lumente_cli.agents", "lumente_cli.memory", "lumente_cli.practice", "lumente_cli.cli"),
    "agents": ("lumente_cli.practice", "lumente_cli.cli", "lumente_cli.views"),
    "concepts": ("lumente_cli.agents", "lumente_cli.memory", "lumente_cli.practice", "lumente_cli.cli"),
    "checking": ("lumente_cli.cli", "lumente_cli.views"),
    # Reading a project is local and prints nothing: no agents, memory, views or CLI.
    "scan": (*_ABOVE_ALL, "lumente_cli.memory", "lumente_cli.agent_memory", "lumente_cli.memory_engine",
             "lumente_cli.checking"),
}


def _is_within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@pytest.mark.parametrize("package", sorted(_BELOW))
def test_imports_point_one_way(package):
    import ast

    wrong = []
    for path in sorted((ROOT / "lumente_cli" / package).rglob("*.py")):
        if path.name == "lint.py":  # the content rules run the offline judge: they sit above agents
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            wrong += [f"{path.relative_to(ROOT)}: {n}" for n in names if any(_is_within(n, b) for b in _BELOW[package])]
    assert not wrong, wrong


def test_the_agents_print_nothing():
    """Agents return typed results; what the student sees is the runner's events, which
    views render. No print, no console, no stdout or stderr under agents/."""
    import ast

    found = []
    for path in sorted((ROOT / "lumente_cli" / "agents").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("print", "input"):
                found.append(f"{where}: {node.func.id}()")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("print", "status"):
                found.append(f"{where}: .{node.func.attr}()")
            elif isinstance(node, ast.Attribute) and node.attr in ("stdout", "stderr") and \
                    isinstance(node.value, ast.Name) and node.value.id == "sys":
                found.append(f"{where}: sys.{node.attr}")
            elif isinstance(node, ast.ImportFrom | ast.Import):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                found += [f"{where}: import {n}" for n in names if _is_within(n, "rich")]
    assert not found, found


def test_only_typers_public_api_is_imported():
    """typer vendors click as a private module (`typer._click`) that it may change at any release."""
    import ast

    private = []
    for path in sorted([*(ROOT / "lumente_cli").rglob("*.py"), *(ROOT / "scripts").rglob("*.py"),
                        *(ROOT / "tests").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            private += [f"{path.relative_to(ROOT)}: {n}" for n in names
                        if n.split(".")[0] == "typer" and any(p.startswith("_") for p in n.split("."))]
    assert not private, private
