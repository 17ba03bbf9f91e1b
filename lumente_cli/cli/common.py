"""What every command shares: global options, consoles, JSON output, and the
one place errors become a message and an exit status.

Rich is imported only when a command prints through it: the screens made of
plain lines (views/lines.py) and `--version` never load it."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from typer.core import TyperGroup

from lumente_cli.errors import LumenteError
from lumente_cli.exitcodes import ExitCode
from lumente_cli.text import json_dumps, sanitize

if TYPE_CHECKING:
    from rich.console import Console

    from lumente_cli.views.lines import Screen

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Globals:
    verbose: bool = False
    quiet: bool = False
    no_color: bool = False


# The run of `lumente` in progress: its global options (set by the root command's
# callback) and the words it was given. Set and cleared by LumenteGroup.main, so a
# run inside a test process never sees the one before it.
_globals: ContextVar[Globals] = ContextVar("lumente_globals", default=Globals())
_run: ContextVar[tuple[LumenteGroup, str, list[str]] | None] = ContextVar("lumente_run", default=None)


def command_group(help: str, **options: Any) -> typer.Typer:  # noqa: A002 - typer.Typer's own keyword
    """A command group such as `lumente memory`: plain help text like the root's, and no
    completion options of its own (the root has them)."""
    return typer.Typer(help=help, add_completion=False, rich_markup_mode=None, **options)


def globals_of() -> Globals:
    return _globals.get()


def use_globals(options: Globals) -> None:
    _globals.set(options)


def _running_command_path() -> str:
    """`lumente memory show` while that command runs, read from the words it was given."""
    run = _run.get()
    if run is None:
        return "lumente"
    root, prog_name, argv = run
    return root._context_for(prog_name, argv).command_path


def out_console() -> Console:
    """Results on stdout. -q never silences them: it drops notices and spinners on stderr."""
    from lumente_cli.views.console import make_console

    g = globals_of()
    return make_console(no_color=g.no_color)


def out_screen() -> Screen:
    """Results made of plain styled lines on stdout, printed without Rich."""
    from lumente_cli.views.lines import Screen

    return Screen(no_color=globals_of().no_color)


def err_console(*, quiet_ok: bool = True) -> Console:
    """Prompts, spinners, notices. Errors go through `report_error`, which -q never silences."""
    from lumente_cli.views.console import make_console

    g = globals_of()
    return make_console(stderr=True, no_color=g.no_color, quiet=g.quiet and quiet_ok)


def print_json(document: Any) -> None:
    sys.stdout.write(json_dumps(document, indent=2) + "\n")
    sys.stdout.flush()


def report_error(message: str, hint: str | None = None, *, no_color: bool = False) -> None:
    from rich.text import Text

    from lumente_cli.views.console import make_console

    console = make_console(stderr=True, no_color=no_color or globals_of().no_color)
    # Messages can quote outside text (a file name, a server's error body): sanitised.
    line = Text("lumente: ", style="bold red")
    line.append(sanitize(message))
    console.print(line, soft_wrap=True)
    if hint:
        console.print(Text(sanitize(hint), style="dim"), soft_wrap=True)


def default_hint(exc: LumenteError) -> str:
    """Every error gets a hint line; this is the one for errors raised without their own."""
    if exc.message.startswith("concept file "):
        return "`lumente concepts check FILE` explains what a concept file needs."
    if exc.exit_code == ExitCode.USAGE:
        return f"`{_running_command_path()} -h` shows how to use it."
    return "`lumente doctor` checks everything Lumente depends on and says how to fix it."


def environment_failure(exc: BaseException) -> tuple[str, str] | None:
    """(message, hint) for a failure of the machine rather than of Lumente: a full disk,
    a read-only or corrupt file, a closed output. None for anything else (a bug)."""
    import errno
    import sqlite3

    text = str(exc).lower()
    if isinstance(exc, sqlite3.Error):
        if "full" in text:
            return ("the disk is full: Lumente could not save to its database.",
                    "Free some space and run the command again; what was saved before is kept.")
        if "readonly" in text or "read-only" in text:
            return ("Lumente's database is read-only, so nothing can be saved.",
                    "Make the data folder and its lumente.db writable (`lumente path` shows where).")
        if "malformed" in text or "not a database" in text or "corrupt" in text:
            return ("Lumente's database is damaged (SQLite says: " + str(exc)[:80] + ").",
                    "`lumente doctor` checks it; move lumente.db aside to start a fresh one (a copy keeps your history).")
        if "locked" in text or "busy" in text:
            return ("Lumente's database is busy in another program for too long.",
                    "Close the other lumente (or the program holding lumente.db) and try again.")
        if "unable to open" in text or "disk i/o" in text:
            return ("Lumente cannot open or write its database (" + str(exc)[:80] + ").",
                    "Check the data folder's permissions and the disk (`lumente doctor`).")
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        if exc.errno == errno.ENOSPC:
            return (f"the disk is full{where}.", "Free some space and run the command again; what was saved before is kept.")
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return (f"cannot write{where}: {exc.strerror or 'permission denied'}.",
                    "Make Lumente's folders writable (`lumente path` shows them), or set LUMENTE_HOME to one you own.")
        if exc.errno == errno.EBADF:
            return ("an input or output stream is closed.", "Run lumente with its standard input and output open.")
    return None


def handle_errors(func: F) -> F:
    """Expected failures print one line (and a hint) and exit with their code;
    Ctrl-C exits 130; a bug prints a short notice instead of a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except LumenteError as exc:
            report_error(exc.message, exc.hint or default_hint(exc))
            raise typer.Exit(int(exc.exit_code)) from None
        except KeyboardInterrupt:
            report_error("interrupted.")
            raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
        except (typer.Exit, typer.Abort, SystemExit):
            raise
        except BrokenPipeError:
            # The reader went away (e.g. `| head`): nothing more to say to it.
            sys.stderr.close()
            raise typer.Exit(int(ExitCode.OK)) from None
        except Exception as exc:  # noqa: BLE001 - the last line of defence: a message, never a traceback
            known = environment_failure(exc)
            if known is not None:
                report_error(*known)
                raise typer.Exit(int(ExitCode.ERROR)) from None
            if os.environ.get("LUMENTE_DEBUG"):
                import traceback

                traceback.print_exc()
            report_error(
                f"internal error ({type(exc).__name__}). This is a bug in Lumente; nothing you had was lost.",
                "Run again with LUMENTE_DEBUG=1 to see the details, and please report them.",
            )
            raise typer.Exit(int(ExitCode.ERROR)) from None

    return wrapper  # type: ignore[return-value]


class LumenteGroup(TyperGroup):
    """The root command. Click's own usage errors ("Missing argument", "No such
    option") come out like every other Lumente error: `lumente: <message>` and
    a hint line on stderr, exit status 2."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        started = _globals.set(Globals()), _run.set((self, prog_name or "lumente", argv))
        try:
            if not standalone_mode:
                return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            sys.exit(self._exit_status(args, prog_name, complete_var, argv, **extra))
        finally:
            _globals.reset(started[0])
            _run.reset(started[1])

    def _exit_status(self, args: Any, prog_name: str | None, complete_var: str | None, argv: list[str],
                     **extra: Any) -> int:
        """Run the command line; an error click raises is reported as Lumente's own are."""
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except typer.Abort:
            report_error("aborted.")
            return int(ExitCode.ERROR)
        except typer.TyperException as exc:  # click's errors; typer exports no narrower public class for them
            if type(exc).__name__ == "NoArgsIsHelpError":
                exc.show()  # type: ignore[attr-defined]  # the help text itself, as click prints it
                return exc.exit_code
            if exc.exit_code == ExitCode.USAGE:  # "Missing argument", "No such option"...
                ctx = getattr(exc, "ctx", None) or self._context_for(prog_name or "lumente", argv)
                report_error(_sentence(exc.format_message()), _usage_hint(ctx), no_color="--no-color" in argv)
                return int(ExitCode.USAGE)
            report_error(_sentence(exc.format_message()))
            return exc.exit_code
        return code if isinstance(code, int) else int(ExitCode.OK)

    def _context_for(self, prog_name: str, argv: list[str]) -> Any:
        """The context of the deepest command named in argv, for errors click raises without one.
        (The root's options are all flags, so every word not starting with '-' is a command name
        until the first one that is not.)"""
        ctx = typer.Context(self, info_name=prog_name, **self.context_settings)
        cmd: Any = self
        for word in argv:
            if word.startswith("-"):
                continue
            sub = cmd.get_command(ctx, word) if hasattr(cmd, "get_command") else None
            if sub is None:
                break
            ctx = typer.Context(sub, info_name=word, parent=ctx, **sub.context_settings)
            cmd = sub
        return ctx


def _sentence(message: str) -> str:
    message = message.strip()
    if message[:1].isupper() and not message[1:2].isupper():
        message = message[0].lower() + message[1:]
    return message if message.endswith((".", "?", "!", ")")) else message + "."


def _usage_hint(ctx: Any) -> str | None:
    if ctx is None:
        return None
    usage = " ".join(ctx.get_usage().split())
    return f"{usage}   (`{ctx.command_path} -h` for help)"
