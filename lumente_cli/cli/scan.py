"""`lumente scan [PATH]` and `lumente next`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from lumente_cli.cli.common import handle_errors, out_console, print_json
from lumente_cli.errors import UsageError


@handle_errors
def scan(
    path: Annotated[Optional[Path], typer.Argument(metavar="[PATH]", help="The project folder (default: this one).",
                                                   show_default=False)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the findings as JSON.")] = False,
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, metavar="N",
                                                 help="Show only the N concepts with the most evidence.")] = None,
) -> None:
    """Find the concepts your project relies on, with the files and lines that show each (local, offline)."""
    from lumente_cli.scan.engine import scan as run_scan
    from lumente_cli.store.scans import SavedFinding
    from lumente_cli.views.scan import scan_report
    from lumente_cli.workspace import Workspace

    root = path if path is not None else Path(".")
    if not root.exists():
        raise UsageError(f"no such folder: {root}.", hint="`lumente scan PATH` reads the project folder at PATH.")
    if not root.is_dir():
        raise UsageError(f"{root} is a file, not a folder.", hint="Give the project's folder: `lumente scan PATH`.")
    ws = Workspace()
    try:
        lib = ws.library()
        result = run_scan(root, [lib.concepts[cid].concept for cid in lib.ids()])
        # What `next` needs, and nothing of the project itself: see docs/json.md.
        ws.store.save_scan(ws.store.learner_id(ws.pseudonym), result.files_scanned, [
            SavedFinding(f.concept, f.score, f.risky, f.signals, f.files, f.reasons[0]) for f in result.findings])
    finally:
        ws.close()
    if json_out:
        print_json(result.to_json(limit))
        return
    console = out_console()
    console.print(scan_report(result, limit, ascii_only=not console.encoding.lower().startswith("utf")))


@handle_errors
def next_concepts(
    json_out: Annotated[bool, typer.Option("--json", help="Print the suggestions as JSON.")] = False,
) -> None:
    """Suggest up to three concepts to practise next, from your last scan and your practice history."""
    from lumente_cli.recommend import next_for
    from lumente_cli.timeutil import utc_now
    from lumente_cli.views.scan import next_report
    from lumente_cli.workspace import Workspace

    ws = Workspace()
    try:
        lib = ws.library()
        names = {cid: lib.name_of(cid) for cid in lib.ids()}
        saved, recommendations = next_for(ws.store, ws.store.find_learner(ws.pseudonym), names, now=utc_now())
    finally:
        ws.close()
    if json_out:
        print_json({
            "scan": None if saved is None else {"scanned_at": saved.scanned_at, "files": saved.files,
                                                "concepts": len(saved.findings)},
            "recommendations": [r.to_json() for r in recommendations],
        })
        return
    out_console().print(next_report(saved, recommendations))
