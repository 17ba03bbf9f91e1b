"""`lumente config show | set | unset | path` and `lumente path`."""

from __future__ import annotations

import json
import stat

import pytest
from helpers import lumente

from lumente_cli import paths
from lumente_cli.settings import SETTINGS


def show() -> dict[str, dict]:
    r = lumente("config", "show", "--json")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert set(doc) == {"config_file", "config_exists", "settings"}
    return {row["key"]: row for row in doc["settings"]}


def test_show_lists_every_setting_with_value_source_and_env_var():
    rows = show()
    assert list(rows) == [s.key for s in SETTINGS]
    for s in SETTINGS:
        row = rows[s.key]
        assert set(row) == {"key", "value", "source", "env", "default", "choices", "secret", "in_config", "help"}
        assert row["source"] == "default" and row["value"] == s.default and row["env"] == s.env
    human = lumente("config", "show")
    assert human.exit_code == 0
    for s in SETTINGS:
        line = next(line for line in human.stdout.splitlines() if line.startswith(s.key + " "))
        assert s.env in line and "default" in line
    assert str(paths.current().config_file) in human.stdout


def test_set_writes_a_private_toml_file_and_show_says_config():
    r = lumente("config", "set", "provider", "offline")
    assert r.exit_code == 0, r.stderr
    assert "provider = offline" in r.stdout
    path = paths.current().config_file
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert 'provider = "offline"' in path.read_text()
    assert show()["provider"]["source"] == "config" and show()["provider"]["in_config"] is True
    assert lumente("config", "set", "memory_url", "https://abc123.spectron.cloud").exit_code == 0
    assert show()["memory_url"]["value"] == "https://abc123.spectron.cloud"


def test_the_environment_overrides_the_config_file_and_says_so():
    assert lumente("config", "set", "provider", "offline").exit_code == 0
    r = lumente("config", "set", "provider", "claude", env={"LUMENTE_PROVIDER": "offline"})
    assert r.exit_code == 0 and "LUMENTE_PROVIDER is set in your environment" in r.stderr
    r = lumente("config", "show", "--json", env={"LUMENTE_PROVIDER": "offline"})
    row = next(x for x in json.loads(r.stdout)["settings"] if x["key"] == "provider")
    assert row["source"] == "env" and row["value"] == "offline" and row["in_config"] is True
    human = lumente("config", "show", env={"LUMENTE_PROVIDER": "offline"})
    assert "env (over config)" in human.stdout


def test_verbose_show_explains_each_setting():
    r = lumente("-v", "config", "show")
    for s in SETTINGS:
        assert s.help in r.stdout


@pytest.mark.parametrize("args, message", [
    (("set", "nope", "1"), "unknown setting 'nope'"),
    (("set", "provider", "gpt"), "provider must be one of auto, offline, claude (got 'gpt')"),
    (("set", "memory", "maybe"), "memory must be one of on, off"),
    (("set", "memory_url", "ftp://x"), "memory_url must be an http:// or https:// URL"),
    (("set", "model", "a\x1b[2Jb"), "must not contain control characters"),
    (("set", "sign_in", "ad\udcffa"), "sign_in is not valid text"),  # a non-UTF-8 argument
    (("set", "provider"), "missing VALUE for provider"),
    (("unset", "nope"), "unknown setting 'nope'"),
])
def test_bad_keys_and_values_are_usage_errors(args, message):
    r = lumente("config", *args)
    assert r.exit_code == 2
    assert r.stderr.startswith("lumente: ") and message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 2  # the message and a hint
    assert not paths.current().config_file.exists()


def test_a_secret_is_read_from_stdin_and_never_shown():
    key = "sk-ant-api03-very-secret-value-0123456789"
    r = lumente("config", "set", "anthropic_api_key", input=key + "\n")
    assert r.exit_code == 0, r.stderr
    assert key not in r.stdout + r.stderr and "(redacted)" in r.stdout
    assert f'anthropic_api_key = "{key}"' in paths.current().config_file.read_text()
    row = show()["anthropic_api_key"]
    assert row["value"] != key and key not in json.dumps(row) and row["secret"] is True
    assert key not in lumente("config", "show").stdout
    assert key not in lumente("-v", "config", "show").stdout
    bad = lumente("config", "set", "memory", key)
    assert bad.exit_code == 2 and key in bad.stderr  # not a secret setting: quoting it helps
    assert lumente("config", "set", "anthropic_api_key", input="").exit_code == 2


def test_unset_returns_to_the_default():
    assert lumente("config", "set", "memory", "off").exit_code == 0
    r = lumente("config", "unset", "memory")
    assert r.exit_code == 0 and "the default on applies" in r.stdout
    assert show()["memory"]["source"] == "default"
    assert "memory" not in paths.current().config_file.read_text().split("\n", 1)[1]


def test_config_path_prints_the_file():
    r = lumente("config", "path")
    assert r.exit_code == 0 and r.stdout == f"{paths.current().config_file}\n"


def test_a_broken_config_file_is_a_clear_error_not_a_traceback():
    p = paths.current()
    p.config_dir.mkdir(parents=True)
    p.config_file.write_text("provider = \n")
    for args in (("config", "show"), ("config", "set", "provider", "offline"), ("whoami",)):
        r = lumente(*args)
        assert r.exit_code == 2, args
        assert r.stderr.startswith(f"lumente: config file {p.config_file}: not valid TOML")
        assert "Traceback" not in r.stderr


def test_path_lists_everything_lumente_keeps():
    r = lumente("path", "--json")
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    rows = {row["name"]: row for row in doc["paths"]}
    p = paths.current()
    assert set(rows) == {"config_dir", "config", "user_concepts", "data_dir", "database", "outbox",
                         "memory_database", "secret", "concept_cache", "mapped_concepts"}
    assert rows["database"]["path"] == str(p.database)
    assert rows["outbox"] == rows["outbox"] | {"kind": "table", "table": "memory_fact", "path": str(p.database)}
    assert rows["secret"]["path"] == str(p.secret) and rows["config"]["path"] == str(p.config_file)
    assert not any(row["exists"] for row in doc["paths"])
    assert lumente("login", "ada").exit_code == 0
    rows = {row["name"]: row for row in json.loads(lumente("path", "--json").stdout)["paths"]}
    assert rows["secret"]["exists"] and rows["config"]["exists"] and not rows["database"]["exists"]
    human = lumente("path")
    assert "table memory_fact inside the database" in human.stdout
    assert str(p.memory_database) in human.stdout


def test_lumente_home_moves_everything(monkeypatch, tmp_path):
    monkeypatch.setenv("LUMENTE_HOME", str(tmp_path / "lh"))
    doc = json.loads(lumente("path", "--json").stdout)
    assert doc["home"] == str(tmp_path / "lh")
    assert all(row["path"].startswith(str(tmp_path / "lh")) for row in doc["paths"])


def test_a_memory_context_that_the_service_would_refuse_is_refused_when_set():
    r = lumente("config", "set", "memory_context", "my context/../x")
    assert r.exit_code == 2 and "memory_context" in r.stderr and "letters, digits" in r.stderr
    assert lumente("config", "set", "memory_context", "class_2026").exit_code == 0


def test_a_broken_config_files_hint_points_at_something_that_works():
    from lumente_cli import paths

    paths.current().config_dir.mkdir(parents=True, exist_ok=True)
    paths.current().config_file.write_text('colour = "blue"\n')
    r = lumente("whoami")
    assert r.exit_code == 2 and "config show" not in r.stderr and "man lumente" in r.stderr
