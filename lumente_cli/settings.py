"""Settings: defaults, then the config file (TOML, 0600), then environment
variables. Each value remembers where it came from so `config show` can say."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lumente_cli import paths
from lumente_cli.errors import UsageError
from lumente_cli.toml_writer import basic_string

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
_URL = re.compile(r"^https?://[^\s/?#]+[^\s]*$", re.IGNORECASE)

# Environment variables Lumente reads that are not settings; the man page and
# docs/configuration.md list them with the settings' own variables.
OTHER_ENVIRONMENT: tuple[tuple[str, str], ...] = (
    ("LUMENTE_HOME", "Keep every Lumente file in this one folder (config/ and data/ inside it) "
                     "instead of the platform's folders."),
    ("XDG_CONFIG_HOME", "Where the config folder lives when LUMENTE_HOME is not set (Linux; default ~/.config)."),
    ("XDG_DATA_HOME", "Where the data folder lives when LUMENTE_HOME is not set (Linux; default ~/.local/share)."),
    ("NO_COLOR", "Any non-empty value turns colour and text styles off, like --no-color, even when "
                 "FORCE_COLOR is set."),
    ("FORCE_COLOR", "Colour and styles even when output is not a terminal (unless NO_COLOR or --no-color)."),
    ("ANTHROPIC_BASE_URL", "Where Claude requests go instead of the Anthropic API (a proxy or gateway); read by "
                           "the anthropic SDK itself."),
    ("LUMENTE_DEBUG", "Print the traceback of an internal error (a bug in Lumente) instead of a one-line notice."),
    ("_LUMENTE_COMPLETE", "Set by the shell completion scripts when they ask Lumente for candidates; "
                          "not for use by hand."),
)


@dataclass(frozen=True)
class Value:
    setting: Setting
    value: str
    source: Source

    def shown(self) -> str:
        if self.setting.secret and self.value:
            return redact(self.value)
        if self.setting.key == "memory_url" and self.value:
            from lumente_cli.text import redact_url

            return redact_url(self.value)  # a password or token may ride in the URL
        return self.value


def redact(secret: str) -> str:
    """Enough to recognise a key, never enough to use it."""
    return "****" if len(secret) < 12 else f"{secret[:4]}…{secret[-2:]} (redacted)"


def read_config_file(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    import tomllib  # only when there is a file to read

    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"config file {path}: cannot be read ({exc}).") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"config file {path}: not valid TOML ({exc}).",
                         hint="Fix it by hand, or move it aside to start from the defaults.") from None
    out: dict[str, str] = {}
    for key, value in data.items():
        if key not in BY_KEY:
            raise UsageError(f"config file {path}: unknown setting {key!r}.",
                             hint=f"Remove that line from {path}; `man lumente` lists the settings.")
        if not isinstance(value, str | int | bool):
            raise UsageError(f"config file {path}: setting {key!r} must be a string.")
        text = str(value).lower() if isinstance(value, bool) else str(value)
        check_value(BY_KEY[key], text, where=f"config file {path}")
        out[key] = text
    return out


def check_value(setting: Setting, value: str, *, where: str) -> None:
    """Every place a value comes from is held to the same rules, and the message
    never repeats a secret's value."""
    shown = "the value" if setting.secret else repr(value)
    # Not `config show`: with a broken file that fails too. The man page always works.
    explain = f"Fix {setting.key} (`lumente config set {setting.key} VALUE`); `man lumente` explains every setting."
    if setting.choices and value not in setting.choices:
        raise UsageError(f"{where}: {setting.key} must be one of {', '.join(setting.choices)} (got {shown}).",
                         hint=explain)
    if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in value):
        raise UsageError(f"{where}: {setting.key} must not contain control characters.", hint=explain)
    if any(0xD800 <= ord(c) <= 0xDFFF for c in value):  # an argument or variable whose bytes are not UTF-8
        raise UsageError(f"{where}: {setting.key} is not valid text (bytes that are not UTF-8).", hint=explain)
    if setting.key == "memory_context" and value and not _is_context_id(value):
        raise UsageError(f"{where}: memory_context must be 1-64 letters, digits, '_' or '-' (got {shown}).",
                         hint="For example lumente (the default); the memory service's contexts use these ids.")
    if setting.key == "memory_url" and value and not _URL.match(value):
        raise UsageError(f"{where}: memory_url must be an http:// or https:// URL (got {shown}).",
                         hint="For example https://abc123.spectron.cloud, or empty for embedded memory.")


def _is_context_id(value: str) -> bool:
    from lumente_cli.agent_memory.wire import CONTEXT_ID  # only for a context someone set

    return CONTEXT_ID.match(value) is not None


@dataclass(frozen=True)
class Settings:
    values: dict[str, Value]
    config_path: Path

    def __getitem__(self, key: str) -> str:
        return self.values[key].value


def load(environ: dict[str, str] | None = None, *, use_file: bool = True) -> Settings:
    """`use_file=False` skips the config file (doctor uses it to carry on past a broken one)."""
    env = os.environ if environ is None else environ
    path = paths.current().config_file
    from_file = read_config_file(path) if use_file else {}
    values: dict[str, Value] = {}
    for s in SETTINGS:
        value, source = s.default, "default"
        if s.key in from_file:
            value, source = from_file[s.key], "config"
        if s.env and env.get(s.env):
            value, source = env[s.env], "env"
            check_value(s, value, where=f"environment variable {s.env}")
        values[s.key] = Value(s, value, source)  # type: ignore[arg-type]
    return Settings(values, path)


def write_setting(key: str, value: str) -> Path:
    """Set one key in the config file, keeping the others; the file stays 0600."""
    if key not in BY_KEY:
        raise UsageError(f"unknown setting {key!r}.", hint=f"Settings: {', '.join(BY_KEY)}.")
    if value != "":  # "" removes the key
        check_value(BY_KEY[key], value, where="config set")
    path = paths.current().config_file
    data = read_config_file(path)
    if value == "":
        data.pop(key, None)
    else:
        data[key] = value
    lines = ["# Lumente settings. `lumente config show` explains each one.\n"]
    lines += [f"{k} = {basic_string(v)}\n" for k, v in sorted(data.items())]
    paths.write_private_file(path, "".join(lines).encode())
    return path

