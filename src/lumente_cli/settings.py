"""Settings: defaults, then the config file (TOML, 0600), then environment
variables. Each value remembers where it came from so `config show` can say."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lumente_cli import paths
from lumente_cli.errors import UsageError

Source = Literal["default", "config", "env"]


@dataclass(frozen=True)
class Setting:
    key: str
    env: str | None
    default: str
    help: str
    secret: bool = False
    choices: tuple[str, ...] = ()


SETTINGS: tuple[Setting, ...] = (
    Setting("provider", "LUMENTE_PROVIDER", "auto", "Which agents run: auto (claude when an API key is set), offline or claude.",
            choices=("auto", "offline", "claude")),
    Setting("model", "LUMENTE_MODEL", "", "Claude model id for the agents (empty: Lumente's default)."),
    Setting("anthropic_api_key", "ANTHROPIC_API_KEY", "", "API key for Claude.", secret=True),
    Setting("memory", "LUMENTE_MEMORY", "on", "Long-term memory: on (embedded, or remote when memory_url is set) or off.",
            choices=("on", "off")),
    Setting("memory_url", "LUMENTE_MEMORY_URL", "", "Agent Memory endpoint, e.g. https://abc123.spectron.cloud (empty: embedded)."),
    Setting("memory_context", "LUMENTE_MEMORY_CONTEXT", "lumente", "Agent Memory context id."),
    Setting("memory_api_key", "LUMENTE_MEMORY_API_KEY", "", "Bearer key for the Agent Memory service.", secret=True),
    Setting("sign_in", "LUMENTE_SIGN_IN", "", "Sign-in ID the learner pseudonym is derived from (empty: your OS user name)."),
)
BY_KEY = {s.key: s for s in SETTINGS}


@dataclass(frozen=True)
class Value:
    setting: Setting
    value: str
    source: Source

    def shown(self) -> str:
        if self.setting.secret and self.value:
            return redact(self.value)
        return self.value


def redact(secret: str) -> str:
    """Enough to recognise a key, never enough to use it."""
    return "****" if len(secret) < 12 else f"{secret[:4]}…{secret[-2:]} (redacted)"


def read_config_file(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"config file {path}: cannot be read ({exc}).") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"config file {path}: not valid TOML ({exc}).", hint="Fix it, or `lumente config set` a value.") from None
    out: dict[str, str] = {}
    for key, value in data.items():
        if key not in BY_KEY:
            raise UsageError(f"config file {path}: unknown setting {key!r}.", hint="`lumente config show` lists the settings.")
        if not isinstance(value, str | int | bool):
            raise UsageError(f"config file {path}: setting {key!r} must be a string.")
        text = str(value).lower() if isinstance(value, bool) else str(value)
        _check_choice(BY_KEY[key], text, where=f"config file {path}")
        out[key] = text
    return out


def _check_choice(setting: Setting, value: str, *, where: str) -> None:
    if setting.choices and value not in setting.choices:
        raise UsageError(f"{where}: {setting.key} must be one of {', '.join(setting.choices)} (got {value!r}).")


@dataclass(frozen=True)
class Settings:
    values: dict[str, Value]
    config_path: Path

    def __getitem__(self, key: str) -> str:
        return self.values[key].value

    def get(self, key: str) -> str:
        return self.values[key].value


def load(environ: dict[str, str] | None = None) -> Settings:
    env = os.environ if environ is None else environ
    path = paths.current().config_file
    from_file = read_config_file(path)
    values: dict[str, Value] = {}
    for s in SETTINGS:
        value, source = s.default, "default"
        if s.key in from_file:
            value, source = from_file[s.key], "config"
        if s.env and env.get(s.env):
            value, source = env[s.env], "env"
            _check_choice(s, value, where=f"environment variable {s.env}")
        values[s.key] = Value(s, value, source)  # type: ignore[arg-type]
    return Settings(values, path)


def write_setting(key: str, value: str) -> Path:
    """Set one key in the config file, keeping the others; the file stays 0600."""
    if key not in BY_KEY:
        raise UsageError(f"unknown setting {key!r}.", hint="`lumente config show` lists the settings.")
    _check_choice(BY_KEY[key], value, where="config set")
    path = paths.current().config_file
    data = read_config_file(path)
    if value == "":
        data.pop(key, None)
    else:
        data[key] = value
    lines = ["# Lumente settings. `lumente config show` explains each one.\n"]
    lines += [f"{k} = {toml_string(v)}\n" for k, v in sorted(data.items())]
    paths.write_private_file(path, "".join(lines).encode())
    return path


def toml_string(value: str) -> str:
    escaped = (
        value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    )
    escaped = "".join(c if ord(c) >= 0x20 and c != "\x7f" else f"\\u{ord(c):04x}" for c in escaped)
    return f'"{escaped}"'
