"""`lumente memory show | history | forget | sync | serve`."""

from __future__ import annotations

import sys
from pathlib import Path
from contextlib import contextmanager
from collections.abc import Iterator
from typing import Annotated, Any, Optional

import typer
from rich.text import Text

from lumente_cli.cli.common import err_console, handle_errors, out_console, print_json
from lumente_cli.cli.completion import concept_names, part_names
from lumente_cli.errors import LumenteError, UsageError
from lumente_cli.exitcodes import ExitCode

app = typer.Typer(help="See, trace and delete what Lumente remembers about you.", no_args_is_help=True)


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

    lib = ws.library()
    if concept:
        found = lib.resolve_source(concept)
        return [found.id], {found.id: found.name}
    ids = learner_concepts(client, ws.pseudonym, deadline=deadline)
    return ids, {cid: lib.name_of(cid) for cid in ids}


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
        facts = current_facts(client, ws.pseudonym, ids, as_of=stamp, read_counts=ws.store.read_counts,
                              deadline=deadline)
    if json_out:
        print_json({"learner": ws.pseudonym, "scope": ws.scope, "backend": backend.kind, "as_of": stamp,
                    "facts": [f.to_json() for f in facts]})
        return
    console = out_console()
    if not facts:
        console.print(Text(f"Lumente remembers nothing about you{' on ' + names[ids[0]] if concept else ''}"
                           f"{' at that time' if stamp else ''}.", style="bold"))
        console.print(Text(f"({backend.kind} memory, scope {ws.scope})", style="dim"))
        return
    console.print(remembered(facts, names, as_of=stamp))


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
        found = history_facts(client, ws.pseudonym, ids, keys, read_counts=ws.store.read_counts, deadline=deadline)
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
    from lumente_cli.memory.inspection import current_facts, learner_concepts

    prompts = err_console(quiet_ok=False)
    with _memory("reach memory") as (ws, backend):
        client = backend.client()
        deadline = _deadline()
        concepts = learner_concepts(client, ws.pseudonym, deadline=deadline)
        before = current_facts(client, ws.pseudonym, concepts, as_of=None, read_counts=ws.store.read_counts,
                               deadline=deadline)
        pending = ws.store.count_pending(ws.scope)
        learner = ws.store.find_learner(ws.pseudonym)
        if not yes:
            summary = (f"This erases {len(before)} remembered fact{'s' if len(before) != 1 else ''} on "
                       f"{len(concepts)} concept{'s' if len(concepts) != 1 else ''} from {backend.where} "
                       f"(scope {ws.scope}), and {pending} fact{'s' if pending != 1 else ''} waiting in the outbox.")
            summary += (" Your local sessions will be deleted too." if delete_sessions
                        else " Your local sessions stay (--delete-sessions removes them).")
            prompts.print(summary, soft_wrap=True)
            if not sys.stdin.isatty():
                raise UsageError("not confirmed: no terminal to ask on.", hint="Pass --yes to forget without asking.")
            if not typer.confirm("Forget all of it?", default=False, err=True):
                prompts.print("Nothing was forgotten.")
                raise typer.Exit(int(ExitCode.OK))
        # Local caches first, so nothing queued can re-send what is about to be erased.
        local = ws.store.forget_scope(ws.scope)
        with _memory_errors("forget", backend.where):
            forgotten = client.forget_scope(ws.scope)
            left = current_facts(client, ws.pseudonym, learner_concepts(client, ws.pseudonym), as_of=None,
                                 read_counts=ws.store.read_counts)
        sessions = ws.store.delete_learner_sessions(learner) if (delete_sessions and learner is not None) else None
    result = {"scope": ws.scope, "backend": backend.kind, "forgotten": forgotten, "facts_before": len(before),
              "left": len(left), "local": local, "sessions_deleted": sessions}
    if json_out:
        print_json(result)
    else:
        console = out_console()
        console.print(Text(f"Forgot scope {ws.scope}: {len(before)} remembered facts.", style="bold"))
        # The service counts storage rows, not facts: every earlier version of a fact is a row,
        # and so are the learner, session and link records the facts hang on.
        console.print(f"The service erased {forgotten} rows for them: each fact's earlier versions, and the "
                      "learner, session and link records they belong to, count as rows too.", soft_wrap=True)
        console.print(f"Read back: {len(left)} facts left.")
        if local["outbox"]:
            console.print(f"Dropped {local['outbox']} facts waiting in the outbox.")
        if sessions is not None:
            console.print(f"Deleted {sessions} local sessions, with their answers and levels.")
    if left:
        raise MemoryUnreachable(f"{len(left)} facts are still readable after forgetting; run `lumente memory forget` again.")


@app.command("sync")
@handle_errors
def sync(
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Deliver the facts waiting in the outbox (each exactly once)."""
    from lumente_cli.memory.writer import deliver

    import time

    results: list[dict[str, Any]] = []
    deadline = _deadline()  # however the service behaves, sync ends within the read budget
    with _memory("reach memory") as (ws, backend):
        for scope in sorted({p.scope for p in ws.store.pending_facts()}):
            d = deliver(ws.store, backend.client(), scope, budget_s=max(0.0, deadline - time.monotonic()))
            results.append({"scope": scope, "written": d.written, "queued": d.queued, "error": d.error})
    written, queued = sum(r["written"] for r in results), sum(r["queued"] for r in results)
    if json_out:
        print_json({"backend": backend.kind, "written": written, "queued": queued, "scopes": results})
    else:
        console = out_console()
        if not results:
            console.print("The outbox is empty: every fact is delivered.")
        else:
            console.print(f"Delivered {written} fact{'s' if written != 1 else ''}; {queued} still waiting.")
    if queued:
        errors = "; ".join(r["error"] for r in results if r["error"])
        raise MemoryUnreachable(f"{queued} facts could not be delivered to {backend.where} ({errors}).",
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
