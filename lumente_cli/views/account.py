"""`lumente login` and `lumente whoami` for people."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text


def show_signed_in(console: Console, pseudonym: str) -> None:
    line = Text("Signed in. Memory knows you only as ")
    line.append(pseudonym, style="bold")
    line.append(".")
    console.print(line)


def show_identity(console: Console, who: dict[str, Any]) -> None:
    """`whoami --json`'s document, one labelled line each; the sign-in ID never leaves this machine."""
    console.print(Text("Sign-in ID   ", style="dim") + Text(who["sign_in"])
                  + Text(f"  ({who['sign_in_source']}; stays on this machine)", style="dim"))
    console.print(Text("Pseudonym    ", style="dim") + Text(who["pseudonym"], style="bold"))
    console.print(Text("Memory scope ", style="dim") + Text(who["scope"]))
    console.print(Text("Memory       ", style="dim") + Text(f"{who['memory']}: {who['memory_where']}"))
