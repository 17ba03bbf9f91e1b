"""A check round as a student sees it: the AI's answer as numbered claims, each
flagged claim's verdict, the summary next to the prediction, then every claim
with its verdict and, for a flaw, why it is wrong."""

from __future__ import annotations

from typing import Any

from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from lumente_cli.parts import LABELS
from lumente_cli.views.console import Indented, safe
from lumente_cli.views.session import SessionView

LEVEL_TEXT = {
    1: "a plain explanation; you are told how many claims are wrong",
    2: "a plain explanation; you are told how many claims are wrong",
    3: "a subtler explanation; how many are wrong is not given",
    4: "a subtler explanation; how many are wrong is not given",
    5: "a subtler explanation, and for each flaw the question you would ask the AI",
}
VERDICT = {
    "caught": ("✔", "caught", "bold green"),
    "wrong_reason": ("◐", "right claim, reason does not hold", "bold yellow"),
    "missed": ("✘", "missed", "bold red"),
    "false_alarm": ("✘", "false alarm: this claim is sound", "bold red"),
    "sound": ("·", "sound", "dim"),
}


class CheckView(SessionView):
    """Renders a check round's events; memory notices, hints and the coach as practice does."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.started: dict[str, Any] = {}
        self.judged: list[dict[str, Any]] = []

    def on_check_started(self, e: dict[str, Any]) -> None:
        self.started, self.concept = e, e["concept"]
        self.console.print(safe(f"Lumente · check · {e['concept_name']}", "bold"))
        self.console.print(Text(f"Check level {e['level']}: {LEVEL_TEXT[e['level']]}", style="dim"))
        self.console.print(Text(f"Agents: {e['provider']} · memory: {e['memory']} · type ? for a hint", style="dim"))
        self.console.print()
        line = Text("You asked an AI: ", style="bold") + safe(e["asked"])
        self.console.print(line)
        count = f"It answered in {len(e['claims'])} claims"
        if e["flaws"] is not None:
            count += f"; {e['flaws']} of them {'is' if e['flaws'] == 1 else 'are'} wrong"
        self.console.print(Text(count + ".", style="dim"))

    def on_predicted(self, e: dict[str, Any]) -> None:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(justify="right", style="bold cyan", no_wrap=True)
        grid.add_column(ratio=1)
        for claim in self.started.get("claims", []):
            grid.add_row(f"{claim['number']}.", safe(claim["text"]))
        self.console.print(Panel(grid, title="The AI's answer", title_align="left", border_style="blue"))
        ask = "Flag the claims that are wrong, and say why each one is"
        if self.started.get("questions"):
            ask += ", then the question you would ask the AI to expose it"
        self.console.print(Text(ask + ".", style="dim"))

    def on_claim_judged(self, e: dict[str, Any]) -> None:
        self.judged.append(e)
        if not e["flagged"]:
            return
        mark, label, style = VERDICT[e["verdict"]]
        line = Text(f"Claim {e['number']}: {mark} {label}", style=style)
        if e.get("feedback"):
            line.append(" · ")
            line.append_text(safe(e["feedback"]))
        if e.get("question_verdict"):
            line.append(f" Your question: {e['question_verdict']}.", style="dim")
        self.console.print(line)

    def on_check_finished(self, e: dict[str, Any]) -> None:
        self.console.print()
        flaws = f"{e['flaws']} flaw{'s' if e['flaws'] != 1 else ''}"
        self.console.print(Text(
            f"Caught {e['caught']} of {flaws} · missed {e['missed']} · false alarms {e['false_alarms']}",
            style="bold"))
        score = Text(f"Score {e['score']}/{e['claims']}", style="bold")
        score.append(f"   you predicted {e['prediction']}", style="dim")
        gap = e["score"] - e["prediction"]
        score.append("   spot on" if gap == 0 else f"   {gap:+d} vs your guess", style="green" if gap >= 0 else "yellow")
        self.console.print(score)
        if e["new_level"] != e["level"]:
            arrow = "up" if e["new_level"] > e["level"] else "down"
            self.console.print(Text(f"Check level {e['level']} → {e['new_level']} ({arrow})", style="dim"))
        self.console.print(Rule(Text("Every claim", style="bold"), align="left"))
        for j in self.judged:
            mark, label, style = VERDICT[j["verdict"]]
            head = Text(f"{j['number']}. ", style="bold cyan") + Text(f"{mark} {label}", style=style)
            if j["flawed"]:
                head.append(f" · breaks {LABELS[j['part']]}", style="dim")
            self.console.print(head)
            body = safe(j["text"], "italic")
            if j.get("why"):
                body.append("\n")
                body.append_text(safe(j["why"]))
            self.console.print(Indented([(3, body)]))

    def on_check_stopped(self, e: dict[str, Any]) -> None:
        if self.recall_failed:
            self.memory_notice(f"Memory is unavailable ({self.recall_failed}); this round went on without it.")
        self.console.print()
        self.console.print(Text(f"Round stopped before the end; nothing was saved. `lumente check {self.concept}` "
                                "starts a new one.", style="yellow"))
