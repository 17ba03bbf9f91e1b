"""The practice session as a student sees it: one handler per event kind."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from lumente_cli.parts import LABELS, LEVEL_NAMES, PARTS
from lumente_cli.text import reflow
from lumente_cli.views.console import safe

VERDICT_STYLE = {"solid": "bold green", "partial": "bold yellow", "missing": "bold red"}
VERDICT_MARK = {"solid": "✔", "partial": "◐", "missing": "✘"}


def memory_block(citations: list[dict[str, Any]]) -> RenderableType | None:
    """'From what Lumente remembers:' and each verified fact with its ID."""
    if not citations:
        return None
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1)
    for c in citations:
        grid.add_row("•", Text.assemble(safe(c["sentence"]), "\n", safe(c["id"], "dim cyan")))
    return Group(Text("From what Lumente remembers:", style="dim italic"), Padding(grid, (0, 0, 0, 2)))


def one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class SessionView:
    """Renders session events; stays silent for events that need no words."""

    def __init__(self, console: Console, *, verbose: bool = False) -> None:
        self.console = console
        self.verbose = verbose
        self.warned_memory = False
        self.recall_failed = ""
        self.concept = ""

    def __call__(self, event: dict[str, Any]) -> None:
        handler = getattr(self, f"on_{event['event']}", None)
        if handler is not None:
            handler(event)

    def on_session_started(self, e: dict[str, Any]) -> None:
        self.concept = e["concept"]
        title = safe(f"Lumente · {e['concept_name']}", "bold")
        if e["resumed"]:
            title.append("  (resumed)", style="dim")
        levels = "  ".join(f"{LABELS[p]} {e['levels'][p]}" for p in PARTS)
        self.console.print(title)
        self.console.print(Text(f"Levels: {levels}", style="dim"))
        self.console.print(
            Text(f"Agents: {e['provider']} · memory: {e['memory']} · type ? for Help", style="dim")
        )

    def on_memory_unavailable(self, e: dict[str, Any]) -> None:
        # Said once, at the end, together with what happened to this session's facts.
        self.recall_failed = self.recall_failed or one_line(e["reason"])

    def memory_notice(self, text: str) -> None:
        """The one line a session says about memory trouble (soft-wrapped: one line)."""
        if not self.warned_memory:
            self.console.print(Text(text, style="yellow"), soft_wrap=True)
            self.warned_memory = True

    def on_memory_recalled(self, e: dict[str, Any]) -> None:
        if self.verbose:
            self.console.print(Text(f"Recalled {len(e['facts'])} facts from memory.", style="dim"))

    def on_part_started(self, e: dict[str, Any]) -> None:
        self.console.print()
        heading = f"{e['index']}/{len(PARTS)} {e['label']} · level {e['level']}: {LEVEL_NAMES[e['level']]}"
        self.console.print(Rule(Text(heading, style="bold cyan"), align="left"))
        if e.get("worked_example"):
            self.console.print(Panel(safe(reflow(e["worked_example"])), title="Worked example", title_align="left", border_style="blue"))
        self.console.print(safe(e["prompt"]))
        for cue in e.get("cues") or []:
            self.console.print(Text("  · ", style="cyan") + safe(cue, "italic"))

    def on_hint(self, e: dict[str, Any]) -> None:
        body: list[Any] = [Text("Hint: ", style="bold magenta") + safe(e["message"])]
        block = memory_block(e.get("citations") or [])
        if block is not None:
            body.append(block)
        self.console.print(Padding(Group(*body), (0, 0, 0, 2)))

    def on_verdict(self, e: dict[str, Any]) -> None:
        style = VERDICT_STYLE[e["verdict"]]
        what = "question" if e["kind"] == "question" else "answer"
        line = Text(f"{VERDICT_MARK[e['verdict']]} {e['verdict']} {what}: ", style=style)
        line.append_text(safe(e["feedback"]))
        self.console.print(line)

    def on_level_changed(self, e: dict[str, Any]) -> None:
        arrow = "up" if e["to"] > e["from"] else "down"
        self.console.print(Text(f"{LABELS[e['part']]}: level {e['from']} → {e['to']} ({arrow})", style="dim"))

    def on_part_finished(self, e: dict[str, Any]) -> None:
        taps = e["help_taps"]
        help_text = "no Help" if taps == 0 else f"{taps} Help tap{'s' if taps != 1 else ''}"
        points = e["points"]
        self.console.print(Text(f"+{points} point{'s' if points != 1 else ''} · {help_text}", style="dim"))

    def on_session_finished(self, e: dict[str, Any]) -> None:
        self.console.print()
        score = Text(f"Score {e['score']}/{e['max_score']}", style="bold")
        score.append(f"   you predicted {e['prediction']}", style="dim")
        gap = e["gap"]
        score.append(
            "   spot on" if gap == 0 else (f"   {gap:+d} vs your guess"), style="green" if gap >= 0 else "yellow"
        )
        self.console.print(score)
        self.console.print(Rule(Text("The reference map", style="bold"), align="left"))
        for key in PARTS:
            self.console.print(Text(LABELS[key], style="bold cyan"))
            self.console.print(Padding(safe(reflow(e["reference"][key])), (0, 0, 0, 2)))
        if self.verbose and e.get("usage", {}).get("calls"):
            u = e["usage"]
            self.console.print(
                Text(f"Claude: {u['calls']} calls, {u['input_tokens']} input and {u['output_tokens']} output tokens", style="dim")
            )

    def on_coach(self, e: dict[str, Any]) -> None:
        body: list[Any] = [safe(e["message"])]
        block = memory_block(e.get("citations") or [])
        if block is not None:
            body.append(Text())
            body.append(block)
        self.console.print(Panel(Group(*body), title="Coach", title_align="left", border_style="green"))

    def on_memory_written(self, e: dict[str, Any]) -> None:
        later = "the next session or `lumente memory sync` delivers them"
        if e.get("refused"):
            # Resending with the same key would be refused again: say what will deliver them.
            later = ("the service refuses this key, so they stay there until a key that may write your "
                     "scope is set (`lumente config set memory_api_key`); then `lumente memory sync` delivers them")
        if self.recall_failed and e["queued"]:
            self.memory_notice(f"Memory is unavailable ({self.recall_failed}): this session went on without it, "
                               f"and {e['queued']} facts wait in the outbox; {later}.")
        elif self.recall_failed:
            self.memory_notice(f"Memory could not be read this time ({self.recall_failed}); "
                               f"this session's {e['written']} facts were saved.")
        elif e["queued"] and e.get("background"):
            if self.verbose:
                self.console.print(Text(f"Memory: {e['written']} facts saved; {e['queued']} more are being "
                                        "sent in the background.", style="dim"))
        elif e["queued"]:
            self.memory_notice(f"Memory: {e['written']} facts saved, {e['queued']} wait in the outbox "
                               f"({one_line(e.get('reason') or 'not delivered')}); {later}.")
        elif self.verbose:
            self.console.print(Text(f"Memory: {e['written']} facts saved.", style="dim"))

    def on_session_paused(self, e: dict[str, Any]) -> None:
        if self.recall_failed:
            self.memory_notice(f"Memory is unavailable ({self.recall_failed}); this session went on without it.")
        self.console.print()
        self.console.print(
            Text(f"Session saved as paused; `lumente practice {self.concept}` resumes it.", style="yellow")
        )

    def on_notice(self, e: dict[str, Any]) -> None:
        self.console.print(safe(e["message"], "yellow"))
