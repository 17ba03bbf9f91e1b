"""`lumente progress [CONCEPT]`."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from lumente_cli.cli.common import handle_errors, out_screen, print_json
from lumente_cli.cli.completion import concept_names


@handle_errors
def progress(
    concept: Annotated[Optional[str], typer.Argument(metavar="CONCEPT", help="Only this concept (default: every concept you practised).",
                                                     autocompletion=concept_names)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print progress as JSON.")] = False,
) -> None:
    """Show your levels and calibration (prediction against score) over sessions, and your check rounds."""
    from lumente_cli.views.progress import all_progress
    from lumente_cli.workspace import Workspace

    ws = Workspace()
    try:
        lib = ws.library()
        chosen = lib.resolve_source(concept) if concept else None
        concept_id = chosen.id if chosen else None
        items = _progress(ws, concept_id)
    finally:
        ws.close()
    if json_out:
        print_json({"learner": ws.pseudonym, "concepts": [cp.to_json() for cp in items]})
        return
    screen = out_screen()
    if not items:
        what = f"on {chosen.name} " if chosen else ""
        screen.print(f"No finished sessions {what}yet. Start one with `lumente practice {concept_id or 'jwt'}` "
                      f"(or judge an AI's explanation with `lumente check {concept_id or 'jwt'}`).")
        return
    ascii_only = not screen.encoding.startswith("utf")
    names = [(cp, lib.name_of(cp.concept)) for cp in items]
    screen.print(all_progress(names, ascii_only=ascii_only))


def _progress(ws: Any, concept_id: str | None) -> list[Any]:
    """This learner's progress, read without writing when the database is there and current
    (an older one goes through the store, which migrates it)."""
    from lumente_cli.progress import progress as compute
    from lumente_cli.store.history import read_history

    history = read_history(ws.paths.database)
    store = history if history is not None else ws.store
    try:
        learner = store.find_learner(ws.pseudonym)
        return compute(store, learner, concept_id) if learner is not None else []
    finally:
        if history is not None:
            history.close()
