"""`lumente memory show | history | forget | sync | serve`."""

from __future__ import annotations

import sys
from pathlib import Path
from contextlib import contextmanager
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Optional

import typer

from lumente_cli.cli.common import command_group, err_console, handle_errors, out_console, out_screen, print_json
from lumente_cli.cli.completion import concept_names, part_names
from lumente_cli.errors import LumenteError, UsageError
from lumente_cli.exitcodes import ExitCode

app = command_group(help="See, trace and delete what Lumente remembers about you.", no_args_is_help=True)


class MemoryUnreachable(LumenteError):
    exit_code = ExitCode.MEMORY_UNAVAILABLE


@contextmanager
def _memory_errors(action: str, where: str) -> Iterator[None]:
    from lumente_cli.agent_memory.client import MemoryError

    try:
        yield
    except MemoryError as exc:
        # The client's message already names where it tried.
        text = exc.message if where in exc.message else f"{where}: {exc.message}"
        raise MemoryUnreachable(f"could not {action}: {text}",
                                hint="`lumente doctor` checks the memory backend.") from None


@contextmanager
def _memory(action: str) -> Iterator[tuple[Any, Any]]:
    """The workspace and its memory backend, closed afterwards; memory errors become one line."""
    from lumente_cli.workspace import Workspace

    ws = Workspace()
    backend = ws.memory_backend()
    try:
        with _memory_errors(action, backend.where):
            yield ws, backend
    finally:
        backend.close()
        ws.close()


# A read command gives up after this long in all, however the service behaves.
READ_BUDGET_S = 10.0


def _deadline() -> float:
    import time

    return time.monotonic() + READ_BUDGET_S


def _concepts(ws: Any, client: Any, concept: str | None, deadline: float | None = None) -> tuple[list[str], dict[str, str]]:
    from lumente_cli.memory.inspection import learner_concepts

    if concept:
        found = ws.library().resolve_source(concept)
        return [found.id], {found.id: found.name}
    ids = learner_concepts(client, ws.pseudonym, deadline=deadline)
    if not ids:  # nothing remembered: no names to look up
        return [], {}
    lib = ws.library()
    return ids, {cid: lib.name_of(cid) for cid in ids}


def _read_counts(ws: Any) -> Callable[[list[str]], dict[str, int]]:
    """How many agent calls were given each fact, read without opening the store for writing."""

    def counts(ids: list[str]) -> dict[str, int]:
        if not ids:
            return {}
        from lumente_cli.store.readonly import fact_read_counts

        return fact_read_counts(ws.paths.database, ids)

    return counts


@app.command("show")
@handle_errors
def show(
    concept: Annotated[Optional[str], typer.Argument(metavar="CONCEPT", help="Only this concept.", autocompletion=concept_names)] = None,
    as_of: Annotated[Optional[str], typer.Option("--as-of", metavar="TIME",
                                                 help="What memory held at an earlier time: an ISO time "
                                                      "(2026-11-28, 2026-11-28T14:00Z; without a zone, your "
                                                      "local time) or how long ago (30m, 3h, 2d, 1w).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Show what Lumente remembers now, grouped by concept and part, with IDs and provenance."""
    from lumente_cli.memory.inspection import current_facts
    from lumente_cli.timeutil import format_time, parse_time
    from lumente_cli.views.lines import Styled
    from lumente_cli.views.memory import remembered

    stamp = None
    if as_of is not None:
        try:
            stamp = format_time(parse_time(as_of))
        except ValueError as exc:
            raise UsageError(f"--as-of: {exc}.") from None
    with _memory("read memory") as (ws, backend):
        client = backend.client()
        deadline = _deadline()
        ids, names = _concepts(ws, client, concept, deadline)
        facts = current_facts(client, ws.pseudonym, ids, as_of=stamp, read_counts=_read_counts(ws),
                              deadline=deadline)
    if json_out:
        print_json({"learner": ws.pseudonym, "scope": ws.scope, "backend": backend.kind, "as_of": stamp,
                    "facts": [f.to_json() for f in facts]})
        return
    screen = out_screen()
    if not facts:
        screen.print(Styled(f"Lumente remembers nothing about you{' on ' + names[ids[0]] if concept else ''}"
                            f"{' at that time' if stamp else ''}.", "bold"))
        screen.print(Styled(f"({backend.kind} memory, scope {ws.scope})", "dim"))
        return
    screen.print(remembered(facts, names, as_of=stamp))


@app.command("history")
@handle_errors
def history(
    concept: Annotated[Optional[str], typer.Argument(metavar="CONCEPT", help="Only this concept.", autocompletion=concept_names)] = None,
    part: Annotated[Optional[str], typer.Option("--part", metavar="PART", autocompletion=part_names,
                                                help="Only this part: category, similar, features or classification "
                                                     "(the JSON ids supraordinate, coordinate, attributes and "
                                                     "subordinate work too).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Show how each remembered value changed: the whole chain of each key, newest first."""
    from lumente_cli.memory import facts as F
    from lumente_cli.memory.inspection import history_facts
    from rich.text import Text

    from lumente_cli.parts import LABELS, PARTS, parse_part
    from lumente_cli.views.memory import chains

    keys = list(F.ALL_KEYS)
    if part is not None:
        key = parse_part(part)
        if key is None:
            raise UsageError(f"unknown part {part!r}.",
                             hint=f"Parts: {', '.join(LABELS[k] for k in PARTS)} (or {', '.join(PARTS)}).")
        keys = [F.level_key(key), F.help_key(key)]
    with _memory("read memory") as (ws, backend):
        client = backend.client()
        deadline = _deadline()
        ids, names = _concepts(ws, client, concept, deadline)
        found = history_facts(client, ws.pseudonym, ids, keys, read_counts=_read_counts(ws), deadline=deadline)
    if json_out:
        print_json({"learner": ws.pseudonym, "scope": ws.scope, "backend": backend.kind,
                    "chains": [{"concept": c[0].concept, "key": c[0].key, "part": c[0].part,
                                "rows": [f.to_json() for f in c]} for c in found if c]})
        return
    console = out_console()
    if not any(found):
        console.print(Text("No remembered values to trace yet.", style="bold"))
        return
    console.print(chains(found, names))


@app.command("forget")
@handle_errors
def forget(
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    delete_sessions: Annotated[bool, typer.Option("--delete-sessions",
                                                  help="Also delete your local sessions, answers and levels.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Erase everything memory holds about you (your whole scope, in one call), then prove nothing is left."""
    from lumente_cli.memory import forgetting
    from lumente_cli.views.memory_changes import forget_question, show_forgotten

    with _memory("reach memory") as (ws, backend):
        client = backend.client()
        holdings = forgetting.survey(client, ws.store, ws.pseudonym, deadline=_deadline())
        if not yes:
            prompts = err_console(quiet_ok=False)
            prompts.print(forget_question(holdings, backend.where, delete_sessions=delete_sessions), soft_wrap=True)
            if not sys.stdin.isatty():
                raise UsageError("not confirmed: no terminal to ask on.", hint="Pass --yes to forget without asking.")
            if not typer.confirm("Forget all of it?", default=False, err=True):
                prompts.print("Nothing was forgotten.")
                raise typer.Exit(int(ExitCode.OK))
        with _memory_errors("forget", backend.where):
            result = forgetting.forget(holdings, client, ws.store, delete_sessions=delete_sessions)
    if json_out:
        print_json({"scope": result.scope, "backend": backend.kind, "forgotten": result.rows,
                    "facts_before": result.facts_before, "left": result.left, "local": result.local,
                    "sessions_deleted": result.sessions_deleted,
                    "scan_findings_deleted": result.scan_findings_deleted})
    else:
        show_forgotten(out_console(), result)
    if result.left:
        raise MemoryUnreachable(f"{result.left} facts are still readable after forgetting; "
                                "run `lumente memory forget` again.")


@app.command("sync")
@handle_errors
def sync(
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Deliver the facts waiting in the outbox (each exactly once)."""
    from lumente_cli.memory.sync import sync_outbox
    from lumente_cli.views.memory_changes import show_synced

    with _memory("reach memory") as (ws, backend):
        # however the service behaves, sync ends within the read budget
        result = sync_outbox(ws.store, backend.client, budget_s=READ_BUDGET_S)
    if json_out:
        print_json({"backend": backend.kind, "written": result.written, "queued": result.queued,
                    "scopes": [s.to_json() for s in result.scopes]})
    else:
        show_synced(out_console(), result)
    if result.queued:
        raise MemoryUnreachable(f"{result.queued} facts could not be delivered to {backend.where} "
                                f"({'; '.join(result.errors)}).",
                                hint="They stay in the outbox; run `lumente memory sync` again later.")


@app.command("serve")
@handle_errors
def serve(
    host: Annotated[str, typer.Option("--host", metavar="HOST",
                                      help="Address to listen on. Anything but loopback is warned about.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", metavar="N", help="Port; 0 picks a free one (printed).")] = 9090,
    db: Annotated[Optional[Path], typer.Option("--db", metavar="PATH", dir_okay=False,
                                               help="Memory database (default: the embedded one in your data dir).")] = None,
    api_key_file: Annotated[Optional[Path], typer.Option("--api-key-file", metavar="FILE", dir_okay=False,
                                                         help="Read the admin key from FILE (default: generate one, "
                                                              "shown once).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No request log lines.")] = False,
) -> None:
    """Serve the embedded memory over HTTP, bearer-key protected, until Ctrl-C or SIGTERM."""
    from lumente_cli import paths
    from lumente_cli.cli.common import globals_of
    from lumente_cli.memory_engine.server import ServeOptions, key_file_warning, read_key_file
    from lumente_cli.memory_engine.server import serve as run_server

    key = None
    if api_key_file is not None:
        key = read_key_file(api_key_file)
        warning = key_file_warning(api_key_file)
        if warning:
            print(warning, file=sys.stderr)
    options = ServeOptions(db_path=db or paths.current().memory_database, host=host, port=port, api_key=key,
                           quiet=quiet or globals_of().quiet)
    code = run_server(options, out=sys.stdout, err=sys.stderr)
    if code:
        raise typer.Exit(code)
