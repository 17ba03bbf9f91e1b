"""The `lumente` command tree. Commands are thin: each parses its options and
calls the modules that do the work."""

from __future__ import annotations

from typing import Annotated

import typer

from lumente_cli import __version__
from lumente_cli.cli import account, concepts, config, doctor, memory, practice, progress
from lumente_cli.cli.common import Globals, LumenteGroup

app = typer.Typer(
    name="lumente",
    cls=LumenteGroup,
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
    ctx: typer.Context,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Say more: memory and token details.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Say less: only results and errors.")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colour (NO_COLOR is honoured too).")] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """Lumente: work out programming concepts along a four-part map, predict your score, then prove it."""
    ctx.obj = Globals(verbose=verbose, quiet=quiet, no_color=no_color)


app.command("practice")(practice.practice)
app.add_typer(concepts.app, name="concepts")
app.add_typer(memory.app, name="memory")
app.command("progress")(progress.progress)
app.command("login")(account.login)
app.command("whoami")(account.whoami)
app.command("doctor")(doctor.doctor)
app.add_typer(config.app, name="config")
app.command("path")(config.show_paths)


def run() -> None:
    app(prog_name="lumente")
