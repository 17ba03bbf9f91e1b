"""`lumente progress` for people: per concept, levels and calibration over
sessions, as plain styled lines (views/lines.py)."""

from __future__ import annotations

from lumente_cli.parts import LABELS, MAX_LEVEL, MIN_LEVEL, PARTS
from lumente_cli.progress import ConceptProgress
from lumente_cli.session import MAX_SCORE
from lumente_cli.views.charts import bar, sparkline
from lumente_cli.views.lines import Row, Styled, safe, table

SHOWN_SESSIONS = 8
TREND_STYLE = {"shrinking": "green", "growing": "yellow", "steady": "cyan", "too few sessions": "dim"}


CHECK_TREND_STYLE = {"sharpening": "green", "slipping": "yellow", "steady": "cyan", "too few rounds": "dim"}


def _header(*names: str) -> list[Styled]:
    return [Styled(name, "dim") for name in names]


def concept_progress(cp: ConceptProgress, *, concept_name: str, ascii_only: bool = False) -> list[Row]:
    practice = _practice(cp, concept_name, ascii_only) if cp.sessions else [Row(safe(concept_name, "bold"))]
    if not cp.checks:
        return practice
    return [*practice, Row(Styled()), *_checks(cp, ascii_only)]


def _checks(cp: ConceptProgress, ascii_only: bool) -> list[Row]:
    """`lumente check` beside practice: the level, the trend, and the recent rounds."""
    n = len(cp.checks)
    head = Styled("Check the AI", "bold")
    head.append(f"  {n} round{'s' if n != 1 else ''} · level {cp.check_level or '-'}", "dim")
    head.append("  · claims judged right: ", "dim")
    head.append(cp.check_trend, CHECK_TREND_STYLE[cp.check_trend])
    recent = cp.checks[-SHOWN_SESSIONS:]
    rounds = [
        [Styled(f"#{i} {c.finished_at[:10]}", "dim"),
         Styled(f"{bar(c.score, c.claims, ascii_only=ascii_only)} {c.score}/{c.claims}", "bold"),
         Styled(str(c.prediction)), Styled(f"{c.caught}/{c.flaws}"), Styled(str(c.false_alarms))]
        for i, c in enumerate(recent, start=n - len(recent) + 1)
    ]
    return [Row(head), *table(_header("round", "right", "guess", "flaws caught", "false alarms"), rounds,
                              right=frozenset({2, 3, 4}))]


def _practice(cp: ConceptProgress, concept_name: str, ascii_only: bool) -> list[Row]:
    n = len(cp.sessions)
    head = safe(concept_name, "bold")
    head.append(f"  {n} session{'s' if n != 1 else ''}", "dim")
    trend = cp.gap_trend
    head.append("  · gap between guess and score: ", "dim")
    head.append(trend, TREND_STYLE[trend])

    levels = [
        [Styled(LABELS[part], "cyan"), Styled(str(cp.current_levels.get(part, "-"))),
         Styled(sparkline([s.levels[part] for s in cp.sessions if part in s.levels], MIN_LEVEL, MAX_LEVEL,
                          ascii_only=ascii_only))]
        for part in PARTS
    ]
    recent = cp.sessions[-SHOWN_SESSIONS:]
    first = n - len(recent) + 1
    calibration = [
        [Styled(f"#{i} {s.finished_at[:10]}", "dim"),
         Styled(f"{bar(s.prediction, MAX_SCORE, ascii_only=ascii_only)} {s.prediction}"),
         Styled(f"{bar(s.score, MAX_SCORE, ascii_only=ascii_only)} {s.score}", "bold"),
         Styled(f"{s.gap:+d}", "green" if s.gap >= 0 else "yellow")]
        for i, s in enumerate(recent, start=first)
    ]
    return [
        Row(head),
        *table(_header("part", "now", f"over sessions (level {MIN_LEVEL}-{MAX_LEVEL})"), levels, right=frozenset({1})),
        Row(Styled()),
        *table(_header("session", "guess", "score", "gap"), calibration, right=frozenset({3})),
    ]


def all_progress(items: list[tuple[ConceptProgress, str]], *, ascii_only: bool = False) -> list[Row]:
    rows: list[Row] = []
    for cp, name in items:
        if rows:
            rows.append(Row(Styled()))
        rows += concept_progress(cp, concept_name=name, ascii_only=ascii_only)
    return rows
