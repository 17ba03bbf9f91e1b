"""`lumente progress` for people: per concept, levels and calibration over sessions."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from lumente_cli.parts import LABELS, MAX_LEVEL, MIN_LEVEL, PARTS
from lumente_cli.progress import ConceptProgress
from lumente_cli.session import MAX_SCORE
from lumente_cli.views.charts import bar, sparkline
from lumente_cli.views.console import safe

SHOWN_SESSIONS = 8
TREND_STYLE = {"shrinking": "green", "growing": "yellow", "steady": "cyan", "too few sessions": "dim"}


CHECK_TREND_STYLE = {"sharpening": "green", "slipping": "yellow", "steady": "cyan", "too few rounds": "dim"}


def concept_progress(cp: ConceptProgress, *, concept_name: str, ascii_only: bool = False) -> RenderableType:
    practice = _practice(cp, concept_name, ascii_only) if cp.sessions else safe(concept_name, "bold")
    if not cp.checks:
        return practice
    return Group(practice, Text(), _checks(cp, ascii_only))


def _checks(cp: ConceptProgress, ascii_only: bool) -> RenderableType:
    """`lumente check` beside practice: the level, the trend, and the recent rounds."""
    n = len(cp.checks)
    head = Text("Check the AI", style="bold")
    head.append(f"  {n} round{'s' if n != 1 else ''} · level {cp.check_level or '-'}", style="dim")
    head.append("  · claims judged right: ", style="dim")
    head.append(cp.check_trend, style=CHECK_TREND_STYLE[cp.check_trend])
    rounds = Table(box=None, show_header=True, header_style="dim", padding=(0, 2, 0, 0))
    rounds.add_column("round", style="dim", no_wrap=True)
    rounds.add_column("right", no_wrap=True)
    rounds.add_column("guess", justify="right")
    rounds.add_column("flaws caught", justify="right")
    rounds.add_column("false alarms", justify="right")
    recent = cp.checks[-SHOWN_SESSIONS:]
    for i, c in enumerate(recent, start=n - len(recent) + 1):
        rounds.add_row(f"#{i} {c.finished_at[:10]}",
                       Text(f"{bar(c.score, c.claims, ascii_only=ascii_only)} {c.score}/{c.claims}", style="bold"),
                       str(c.prediction), f"{c.caught}/{c.flaws}", str(c.false_alarms))
    return Group(head, rounds)


def _practice(cp: ConceptProgress, concept_name: str, ascii_only: bool) -> RenderableType:
    n = len(cp.sessions)
    head = safe(concept_name, "bold")
    head.append(f"  {n} session{'s' if n != 1 else ''}", style="dim")
    trend = cp.gap_trend
    head.append("  · gap between guess and score: ", style="dim")
    head.append(trend, style=TREND_STYLE[trend])

    levels = Table(box=None, show_header=True, header_style="dim", padding=(0, 2, 0, 0))
    levels.add_column("part", style="cyan", no_wrap=True)
    levels.add_column("now", justify="right")
    levels.add_column(f"over sessions (level {MIN_LEVEL}-{MAX_LEVEL})", no_wrap=True)
    for part in PARTS:
        history = [s.levels[part] for s in cp.sessions if part in s.levels]
        levels.add_row(LABELS[part], str(cp.current_levels.get(part, "-")),
                       sparkline(history, MIN_LEVEL, MAX_LEVEL, ascii_only=ascii_only))

    calib = Table(box=None, show_header=True, header_style="dim", padding=(0, 2, 0, 0))
    calib.add_column("session", style="dim", no_wrap=True)
    calib.add_column("guess", no_wrap=True)
    calib.add_column("score", no_wrap=True)
    calib.add_column("gap", justify="right")
    recent = cp.sessions[-SHOWN_SESSIONS:]
    first = n - len(recent) + 1
    for i, s in enumerate(recent, start=first):
        gap_style = "green" if s.gap >= 0 else "yellow"
        calib.add_row(
            f"#{i} {s.finished_at[:10]}",
            Text(f"{bar(s.prediction, MAX_SCORE, ascii_only=ascii_only)} {s.prediction}"),
            Text(f"{bar(s.score, MAX_SCORE, ascii_only=ascii_only)} {s.score}", style="bold"),
            Text(f"{s.gap:+d}", style=gap_style),
        )
    return Group(head, levels, Text(), calib)


def all_progress(items: list[tuple[ConceptProgress, str]], *, ascii_only: bool = False) -> RenderableType:
    blocks: list[RenderableType] = []
    for cp, name in items:
        if blocks:
            blocks.append(Text())
        blocks.append(concept_progress(cp, concept_name=name, ascii_only=ascii_only))
    return Group(*blocks)
