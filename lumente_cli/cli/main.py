"""The `lumente` command tree. Commands are thin: each parses its options and
calls the modules that do the work.

A command's module is imported only when that command runs (or when help or
completion lists it): every command starts a Python process, and importing
all of them would slow the start of each one (docs/benchmarks.md measures it).
"""

from __future__ import annotations

import importlib
import inspect
import os
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from lumente_cli import __version__
from lumente_cli.cli.common import Globals, LumenteGroup, use_globals

# name: (module in lumente_cli.cli, attribute). A Typer is a command group, a function a command.
# The order is the order `lumente --help` lists them in.
COMMANDS: dict[str, tuple[str, str]] = {
    "practice": ("practice", "practice"),
    "check": ("check", "check"),
    "scan": ("scan", "scan"),
    "next": ("scan", "next_concepts"),
    "progress": ("progress", "progress"),
    "login": ("account", "login"),
    "whoami": ("account", "whoami"),
    "doctor": ("doctor", "doctor"),
    "path": ("config", "show_paths"),
    "concepts": ("concepts", "app"),
    "memory": ("memory", "app"),
    "config": ("config", "app"),
}


class LazyGroup(LumenteGroup):
    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.commands[cmd_name] = _build(cmd_name)
        return self.commands.get(cmd_name)


class LazySubcommands(TyperGroup):
    """A command group with no options of its own (`lumente memory`) whose commands are
    built one at a time, when one runs or when help or completion lists them: typer
    builds every command of a group it is given, and a command runs alone."""

    def __init__(self, app: typer.Typer, name: str) -> None:
        super().__init__(name=name, help=inspect.cleandoc(app.info.help or ""), rich_markup_mode=None,
                         no_args_is_help=bool(app.info.no_args_is_help))
        self._registered = {info.name: info for info in app.registered_commands}

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self._registered)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in self._registered:
            single = typer.Typer(add_completion=False, rich_markup_mode=None)
            single.registered_commands.append(self._registered[cmd_name])
            self.commands[cmd_name] = typer.main.get_command(single)
        return self.commands.get(cmd_name)


def _build(name: str) -> Any:
    """The click command for one entry of COMMANDS, built by typer's public `get_command`."""
    module, attribute = COMMANDS[name]
    target = getattr(importlib.import_module(f"lumente_cli.cli.{module}"), attribute)
    if not isinstance(target, typer.Typer):  # a function: typer builds a lone command from an app of one
        single = typer.Typer(add_completion=False, rich_markup_mode=None)
        single.command(name)(target)
        target = single
    elif not (target.registered_callback or target.registered_groups):  # a plain group of commands
        return LazySubcommands(target, name)
    command = typer.main.get_command(target)
    command.name = name
    return command


app = typer.Typer(
    name="lumente",
    cls=LazyGroup,
    help="Lumente: work out programming concepts along a four-part map, predict your score, then prove it.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"lumente {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Say more: memory and token details.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Say less: only results and errors.")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colour (NO_COLOR is honoured too).")] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """Lumente: work out programming concepts along a four-part map, predict your score, then prove it."""
    use_globals(Globals(verbose=verbose, quiet=quiet, no_color=no_color))


def run() -> None:
    # The first time pydantic builds a validator it reads the metadata of every package
    # installed beside Lumente, looking for plugins; Lumente uses none. (A value the
    # environment already sets is kept.)
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    app(prog_name="lumente")
