"""`lumente scan` and `lumente next` for people: the findings as a table that fits 80
columns, and the suggestions as a short numbered list."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich import box
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from lumente_cli.views.console import safe

if TYPE_CHECKING:
    from lumente_cli.recommend import Recommendation
    from lumente_cli.scan.evidence import ScanResult
    from lumente_cli.store.scans import SavedScan

EVIDENCE_SHOWN = 2
REASONS_SHOWN = 2


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def scan_report(result: ScanResult, limit: int | None, *, ascii_only: bool = False) -> RenderableType:
    read = f"{_plural(result.files_scanned, 'file')} read in {result.seconds:.1f} s"
    parts: list[RenderableType] = []
    if not result.findings:
        parts.append(safe(f"No concepts of the library found in {result.root} ({read})."))
    else:
        shown = result.findings if limit is None else result.findings[:limit]
        table = Table(box=box.ASCII if ascii_only else box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                      header_style="bold", expand=False)
        table.add_column("concept", style="cyan", no_wrap=True, max_width=22)
        table.add_column("why", ratio=2)
        table.add_column("where", ratio=3)
        for finding in shown:
            why = Text()
            for reason in finding.reasons[:REASONS_SHOWN]:
                if why:
                    why.append("\n")
                why.append_text(safe(reason))
            if finding.risky:
                why = Text("risky: ", style="bold red") + why
            where = Text()
            for evidence in finding.evidence[:EVIDENCE_SHOWN]:
                if where:
                    where.append("\n")
                where.append_text(safe(f"{evidence.path}:{evidence.line}", "bold red" if evidence.risky else "green"))
                where.append("\n")
                where.append_text(safe(evidence.snippet, "dim"))
            more = finding.occurrences - min(len(finding.evidence), EVIDENCE_SHOWN)
            if more > 0:
                where.append(f"\n+{more} more in {_plural(finding.files, 'file')}", style="dim")
            table.add_row(safe(finding.concept), why, where)
        parts.append(table)
        hidden = len(result.findings) - len(shown)
        summary = f"{_plural(len(result.findings), 'concept')} found ({read})"
        summary += f"; {hidden} more with --limit {len(result.findings)}." if hidden else "."
        parts.append(Text(summary, style="dim"))
    skipped = ", ".join(f"{n} {why.replace('_', ' ')}" for why, n in sorted(result.skipped.items()))
    if skipped:
        parts.append(Text(f"Skipped: {skipped}.", style="dim"))
    for limit_hit in result.stopped:
        what = "the file cap" if limit_hit == "files" else "the time limit"
        parts.append(Text(f"Stopped at {what}: these are the findings so far.", style="yellow"))
    if result.findings:
        parts.append(Text("`lumente next` suggests what to practise; `lumente scan --json` lists all the evidence.",
                          style="dim"))
    return Group(*parts)


def next_report(scan: SavedScan | None, recommendations: list[Recommendation]) -> RenderableType:
    parts: list[RenderableType] = []
    if scan is None:
        parts.append(Text("No scan yet: these come from your practice history only "
                          "(`lumente scan` in your project adds what it uses).", style="dim"))
    else:
        parts.append(Text(f"From your last scan ({scan.scanned_at[:10]}, {_plural(len(scan.findings), 'concept')}"
                          " found) and your practice history:", style="dim"))
    if not recommendations:
        parts.append(Text("Nothing to suggest yet. Run `lumente scan` in your project, or start with "
                          "`lumente practice jwt` (`lumente concepts` lists them all)."))
    for number, rec in enumerate(recommendations, 1):
        line = Text(f"{number}. ")
        line.append_text(safe(rec.name, "bold"))
        line.append("  ")
        line.append(rec.command, style="cyan")
        parts.append(line)
        parts.append(Padding(safe(rec.reason), (0, 0, 0, 3)))
    return Group(*parts)
