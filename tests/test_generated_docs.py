"""The completions, man page and reference docs are generated from the live
command tree by scripts/generate_docs.py; these tests fail when they are stale,
when a command or option has no help, and when the man page has roff warnings.
Completion is tested through typer's env-var protocol and, for bash, by
sourcing the shipped script in a real bash."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from lumente_cli.cli.main import app
from lumente_cli.exitcodes import ExitCode
from lumente_cli.settings import OTHER_ENVIRONMENT, SETTINGS

ROOT = Path(__file__).resolve().parent.parent
REGENERATE = "run `python scripts/generate_docs.py` and commit the result"


def _load_generator():
    spec = importlib.util.spec_from_file_location("generate_docs", ROOT / "scripts" / "generate_docs.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules["generate_docs"] = module
    spec.loader.exec_module(module)
    return module


gen = _load_generator()


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return gen.render_all()


def test_the_generator_writes_every_file_the_issue_names(generated):
    assert set(generated) == {
        "completions/lumente.bash", "completions/_lumente", "completions/lumente.fish", "man/lumente.1",
        "docs/cli-reference.md", "docs/configuration.md", "docs/exit-codes.md",
    }


@pytest.mark.parametrize("rel", sorted(gen.COMPLETIONS.values()) + [
    "man/lumente.1", "docs/cli-reference.md", "docs/configuration.md", "docs/exit-codes.md"])
def test_generated_file_is_current(rel, generated):
    path = ROOT / rel
    assert path.exists(), f"{rel} is missing: {REGENERATE}."
    assert path.read_text("utf-8") == generated[rel], f"{rel} is stale: {REGENERATE}."


def test_generation_is_reproducible(generated, monkeypatch, tmp_path):
    """No date, machine path or home folder leaks in: another home, same bytes."""
    monkeypatch.setenv("LUMENTE_HOME", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("COLUMNS", "200")
    again = gen.render_all()
    assert again == generated
    for rel, text in generated.items():
        assert str(tmp_path) not in text and str(Path.home()) not in text, rel
        assert "/work/" not in text and "site-packages" not in text, rel


def test_check_mode_reports_stale_files(tmp_path, capsys):
    assert gen.stale(ROOT) == []
    assert set(gen.stale(tmp_path)) == set(gen.COMPLETIONS.values()) | {
        "man/lumente.1", "docs/cli-reference.md", "docs/configuration.md", "docs/exit-codes.md"}


# ------------------------------------------------------------------ help text


def _walk(cmd, ctx):
    yield cmd, ctx
    for name in getattr(cmd, "list_commands", lambda _ctx: [])(ctx):
        sub = cmd.get_command(ctx, name)
        yield from _walk(sub, typer.Context(sub, info_name=name, parent=ctx, **sub.context_settings))


def _tree():
    root = typer.main.get_command(app)
    return list(_walk(root, typer.Context(root, info_name="lumente", **root.context_settings)))


def test_every_command_option_and_argument_has_help():
    missing = []
    for cmd, ctx in _tree():
        if not (cmd.help or "").strip():
            missing.append(ctx.command_path)
        for param in cmd.get_params(ctx):
            if not (getattr(param, "help", None) or "").strip():
                missing.append(f"{ctx.command_path} {param.name}")
    assert missing == []


def test_the_tree_has_the_commands_of_the_spec():
    paths = {ctx.command_path for _, ctx in _tree()}
    for expected in ("lumente practice", "lumente concepts", "lumente concepts show", "lumente memory show",
                     "lumente memory history", "lumente memory forget", "lumente memory sync", "lumente progress",
                     "lumente login", "lumente whoami", "lumente doctor", "lumente config show",
                     "lumente config set", "lumente config unset", "lumente config path", "lumente path"):
        assert expected in paths


def test_every_command_and_option_is_in_the_man_page_and_the_reference(generated):
    man, ref = generated["man/lumente.1"], generated["docs/cli-reference.md"]
    for cmd, ctx in _tree():
        assert f"### {ctx.command_path}" in ref or f"## {ctx.command_path}" in ref, ctx.command_path
        assert gen.roff_text(ctx.command_path) in man
        for param in cmd.get_params(ctx):
            for opt in param.opts:
                if param.param_type_name == "option":
                    assert gen.roff_text(opt) in man, (ctx.command_path, opt)
                    assert opt in ref, (ctx.command_path, opt)


def test_man_page_documents_environment_files_and_exit_statuses(generated):
    man = generated["man/lumente.1"]
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "ENVIRONMENT", "FILES",
                    "EXIT STATUS", "EXAMPLES"):
        assert f".SH {section}" in man
    for s in SETTINGS:
        assert f"\\fB{gen.roff_text(s.env)}\\fR" in man
    for name, _ in OTHER_ENVIRONMENT:
        assert f"\\fB{gen.roff_text(name)}\\fR" in man
    assert "NO_COLOR" in man
    for code in ExitCode:
        assert f".TP\n\\fB{int(code)}\\fR\n{gen.roff_text(code.name)}:" in man
    for name in ("config.toml", "lumente.db", "memory.db", "secret", "concepts/", "mapped\\-concepts/",
                 "table memory_fact"):
        assert name in man
    assert '.TH LUMENTE 1 "' in man and gen.MAN_DATE in man


def test_configuration_doc_lists_every_setting(generated):
    doc = generated["docs/configuration.md"]
    for s in SETTINGS:
        assert f"| `{s.key}` | `{s.env}` |" in doc
    exits = generated["docs/exit-codes.md"]
    for code in ExitCode:
        assert f"| {int(code)} | `{code.name}` |" in exits


@pytest.mark.skipif(shutil.which("man") is None, reason="man is not installed")
def test_man_renders_without_warnings():
    env = {**os.environ, "MANWIDTH": "80", "MAN_KEEP_FORMATTING": "0", "MANPAGER": "cat", "PAGER": "cat"}
    proc = subprocess.run(["man", "-l", str(ROOT / "man" / "lumente.1")], capture_output=True, text=True, env=env,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    text = re.sub(".\b", "", proc.stdout)  # man's overstrike bold
    assert "LUMENTE(1)" in text and "EXIT STATUS" in text and "lumente config set" in text


@pytest.mark.skipif(shutil.which("groff") is None, reason="groff is not installed")
def test_groff_finds_nothing_to_warn_about():
    proc = subprocess.run(["groff", "-man", "-Tutf8", "-wall", "-z", str(ROOT / "man" / "lumente.1")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == ""


def test_roff_escaping():
    assert gen.roff_text("a-b \\ c") == "a\\-b \\e c"
    assert gen.roff_text(".starts with a dot") == "\\&.starts with a dot"
    assert gen.roff_text("3 · 4 … é") == "3 \\[u00B7] 4 \\[u2026] \\[u00E9]"


# ------------------------------------------------------------------ completion


def complete(shell: str, words: str, cword: int | None = None) -> list[str]:
    env = {"_LUMENTE_COMPLETE": f"complete_{shell}"}
    if shell == "bash":
        env |= {"COMP_WORDS": words, "COMP_CWORD": str(cword if cword is not None else len(words.split()) - 1)}
    else:
        env |= {"_TYPER_COMPLETE_ARGS": words}
        if shell == "fish":
            env["_TYPER_COMPLETE_FISH_ACTION"] = "get-args"
    r = CliRunner().invoke(app, [], env=env, prog_name="lumente")
    assert r.exit_code == 0, r.output
    return r.stdout.split()


def test_bash_protocol_completes_commands_concepts_parts_and_choices():
    assert complete("bash", "lumente memory his") == ["history"]
    assert complete("bash", "lumente pr") == ["practice", "progress"]
    assert complete("bash", "lumente practice jw") == ["jwt"]
    assert complete("bash", "lumente practice j") == ["json_serialisation", "jwt"]
    assert complete("bash", "lumente concepts show jw") == ["jwt"]
    assert complete("bash", "lumente memory history --part co") == ["coordinate"]
    assert complete("bash", "lumente memory history jwt --part x") == []
    assert complete("bash", "lumente practice jwt --provider o") == ["offline"]
    assert complete("bash", "lumente config set prov") == ["provider"]
    assert complete("bash", "lumente config set memory o") == ["on", "off"]
    assert complete("bash", "lumente config c") == []


def test_bash_protocol_lists_every_part():
    words = "lumente memory history --part x"
    env = {"_LUMENTE_COMPLETE": "complete_bash", "COMP_WORDS": "lumente memory history --part ", "COMP_CWORD": "4"}
    r = CliRunner().invoke(app, [], env=env, prog_name="lumente")
    assert r.stdout.split() == ["supraordinate", "coordinate", "attributes", "subordinate"], words


def test_concept_completion_includes_the_users_own_concepts(tmp_path):
    from lumente_cli import paths

    user = paths.current().user_concepts_dir
    user.mkdir(parents=True)
    jwt = (ROOT / "lumente_cli" / "concepts" / "library" / "jwt.toml").read_text()
    (user / "jwt_refresh.toml").write_text(jwt.replace('id = "jwt"', 'id = "jwt_refresh"', 1))
    assert complete("bash", "lumente practice jwt") == ["jwt", "jwt_refresh"]


def test_zsh_and_fish_protocols():
    zsh = CliRunner().invoke(app, [], env={"_LUMENTE_COMPLETE": "complete_zsh",
                                           "_TYPER_COMPLETE_ARGS": "lumente practice jw"}, prog_name="lumente")
    assert zsh.exit_code == 0 and '"jwt"' in zsh.stdout and zsh.stdout.startswith("_arguments")
    fish = complete("fish", "lumente memory his")
    assert fish[0] == "history"
    assert complete("fish", "lumente practice jw") == ["jwt"]
    assert complete("fish", "lumente memory history --part at") == ["attributes"]


@pytest.fixture
def lumente_on_path(tmp_path) -> dict[str, str]:
    """A `lumente` on PATH that runs this checkout with this interpreter."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "lumente"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m lumente_cli "$@"\n')
    script.chmod(0o755)
    return {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}


def _bash_complete(env: dict[str, str], *words: str) -> list[str]:
    script = ROOT / "completions" / "lumente.bash"
    array = " ".join(f"'{w}'" for w in words)
    program = (
        f"source '{script}'\n"
        f"COMP_WORDS=({array}); COMP_CWORD={len(words) - 1}\n"
        "_lumente_completion lumente\n"
        "printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    proc = subprocess.run(["bash", "--norc", "--noprofile", "-c", program], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return [line for line in proc.stdout.splitlines() if line]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_the_shipped_bash_script_completes_in_a_real_bash(lumente_on_path):
    assert "complete -o default -F _lumente_completion lumente" in (ROOT / "completions" / "lumente.bash").read_text()
    assert _bash_complete(lumente_on_path, "lumente", "memory", "his") == ["history"]
    assert _bash_complete(lumente_on_path, "lumente", "practice", "jw") == ["jwt"]
    assert _bash_complete(lumente_on_path, "lumente", "memory", "history", "--part", "sub") == ["subordinate"]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_the_shipped_fish_script_completes_in_a_real_fish(lumente_on_path):  # pragma: no cover - no fish here
    script = ROOT / "completions" / "lumente.fish"
    proc = subprocess.run(["fish", "--no-config", "-c", f"source '{script}'; complete -C 'lumente practice jw'"],
                          capture_output=True, text=True, env=lumente_on_path, timeout=60)
    assert proc.stdout.split()[0] == "jwt"


# ------------------------------------------------------------------ python -m


def test_python_m_is_the_same_program(lumente_on_path):
    run = [sys.executable, "-m", "lumente_cli"]
    help_ = subprocess.run([*run, "--help"], capture_output=True, text=True, timeout=60)
    assert help_.returncode == 0 and help_.stdout.startswith("Usage: lumente [OPTIONS] COMMAND")
    sub = subprocess.run([*run, "memory", "show", "--help"], capture_output=True, text=True, timeout=60)
    assert "Usage: lumente memory show" in sub.stdout
    version = subprocess.run([*run, "--version"], capture_output=True, text=True, timeout=60)
    assert version.stdout.startswith("lumente ")
    bad = subprocess.run([*run, "concepts", "show"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("lumente: missing argument")
    # completion answers on the same variable, with the same program name
    env = {**os.environ, "_LUMENTE_COMPLETE": "complete_bash", "COMP_WORDS": "lumente memory his", "COMP_CWORD": "2"}
    comp = subprocess.run(run, capture_output=True, text=True, env=env, timeout=60)
    assert comp.stdout.split() == ["history"]
    script = subprocess.run(run, capture_output=True, text=True, timeout=60,
                            env={**os.environ, "_LUMENTE_COMPLETE": "source_bash"})
    assert script.stdout.lstrip("\n") == (ROOT / "completions" / "lumente.bash").read_text()
