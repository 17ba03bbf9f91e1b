"""`lumente config show | set | unset | path` and `lumente path`."""

from __future__ import annotations

import sys
from typing import Annotated, Any, Optional

import typer

from lumente_cli.cli.common import command_group, err_console, globals_of, handle_errors, out_console, print_json
from lumente_cli.errors import UsageError

app = command_group(help="Show and change Lumente's settings (the config file, overridden by environment variables).",
                    no_args_is_help=True)


def setting_names(incomplete: str) -> list[tuple[str, str]]:
    from lumente_cli.settings import SETTINGS

    return [(s.key, s.help) for s in SETTINGS if s.key.startswith(incomplete.lower())]


def setting_values(ctx: typer.Context, incomplete: str) -> list[str]:
    from lumente_cli.settings import BY_KEY

    setting = BY_KEY.get(str(ctx.params.get("key") or ""))
    return [c for c in (setting.choices if setting else ()) if c.startswith(incomplete)]


def _setting(key: str) -> Any:
    from lumente_cli.settings import BY_KEY

    setting = BY_KEY.get(key.strip().lower())
    if setting is None:
        raise UsageError(f"unknown setting {key!r}.", hint=f"Settings: {', '.join(BY_KEY)}.")
    return setting


@app.command("show")
@handle_errors
def show(
    json_out: Annotated[bool, typer.Option("--json", help="Print the settings as JSON.")] = False,
) -> None:
    """List every setting: its value (secrets redacted), where it came from, and the variable that overrides it."""
    from lumente_cli.settings import load, read_config_file
    from lumente_cli.views.config import show_settings

    settings = load()
    in_file = read_config_file(settings.config_path)
    rows = []
    for key, value in settings.values.items():
        s = value.setting
        rows.append({
            "key": key, "value": value.shown(), "source": value.source, "env": s.env, "default": s.default,
            "choices": list(s.choices), "secret": s.secret, "in_config": key in in_file, "help": s.help,
        })
    if json_out:
        print_json({"config_file": str(settings.config_path), "config_exists": settings.config_path.exists(),
                    "settings": rows})
        return
    show_settings(out_console(), settings.config_path, rows, verbose=globals_of().verbose)


@app.command("set")
@handle_errors
def set_(
    key: Annotated[str, typer.Argument(metavar="KEY", help="The setting to change (`lumente config show` lists them).",
                                       autocompletion=setting_names)],
    value: Annotated[Optional[str], typer.Argument(
        metavar="VALUE",
        help="Its new value. Leave it out for a secret to type it without echo (or pipe it on stdin), "
             "so it stays out of your shell history.",
        autocompletion=setting_values)] = None,
) -> None:
    """Set one setting in the config file (mode 0600), after checking it."""
    from lumente_cli.settings import check_value, redact, write_setting
    from lumente_cli.views.config import show_saved

    setting = _setting(key)
    if value is None:
        if not setting.secret:
            raise UsageError(f"missing VALUE for {setting.key}.",
                             hint=f"For example: lumente config set {setting.key} "
                                  f"{setting.choices[0] if setting.choices else '...'}")
        value = _read_secret(setting.key)
    value = value.strip()
    check_value(setting, value, where="config set")
    path = write_setting(setting.key, value)
    shown = redact(value) if (setting.secret and value) else (value or "(empty)")
    show_saved(out_console(), setting.key, shown, path)
    _warn_if_overridden(setting)


@app.command("unset")
@handle_errors
def unset(
    key: Annotated[str, typer.Argument(metavar="KEY", help="The setting to remove from the config file.",
                                       autocompletion=setting_names)],
) -> None:
    """Remove one setting from the config file, so its default (or environment variable) applies."""
    from lumente_cli.settings import write_setting
    from lumente_cli.views.config import show_unset

    setting = _setting(key)
    path = write_setting(setting.key, "")
    show_unset(out_console(), setting.key, setting.default, path)
    _warn_if_overridden(setting)


@app.command("path")
@handle_errors
def config_path(
    json_out: Annotated[bool, typer.Option("--json", help="Print the path and whether the file exists, as JSON.")] = False,
) -> None:
    """Print the config file's path (it may not exist yet)."""
    from lumente_cli import paths

    path = paths.current().config_file
    if json_out:
        print_json({"path": str(path), "exists": path.exists()})
        return
    sys.stdout.write(f"{path}\n")


def _read_secret(key: str) -> str:
    if sys.stdin.isatty():
        return typer.prompt(f"{key} (not echoed)", hide_input=True, err=True)
    line = sys.stdin.readline()
    if not line.strip():
        raise UsageError(f"no value for {key} on standard input.",
                         hint=f"Pipe it in (`lumente config set {key} < file`) or run this in a terminal.")
    return line.strip()


def _warn_if_overridden(setting: Any) -> None:
    import os

    from lumente_cli.views.config import show_overridden

    if setting.env and os.environ.get(setting.env):
        show_overridden(err_console(), setting.env)


@handle_errors
def show_paths(
    json_out: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List every file and folder Lumente keeps, and whether each exists yet."""
    import os

    from lumente_cli import paths
    from lumente_cli.views.config import show_locations

    p = paths.current()
    rows = []
    for entry in p.entries():
        rows.append({"name": entry.name, "path": str(entry.path), "kind": entry.kind, "table": entry.table,
                     "exists": entry.path.exists(), "description": entry.description})
    if json_out:
        print_json({"home": os.environ.get("LUMENTE_HOME") or None, "paths": rows})
        return
    show_locations(out_console(), rows, verbose=globals_of().verbose)
