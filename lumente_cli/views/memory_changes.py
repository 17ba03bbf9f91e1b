"""`memory forget` and `memory sync` for people: what they are about to change, and what they changed."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from lumente_cli.memory.forgetting import Forgotten, Holdings
from lumente_cli.memory.sync import Synced


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def forget_question(holdings: Holdings, where: str, *, delete_sessions: bool) -> Text:
    """What `forget` is about to erase, asked before it does."""
    summary = (f"This erases {_count(holdings.facts, 'remembered fact')} on {_count(len(holdings.concepts), 'concept')} "
               f"from {where} (scope {holdings.scope}), and {_count(holdings.pending, 'fact')} waiting in the outbox.")
    summary += (" Your local sessions and your last scan's findings will be deleted too." if delete_sessions
                else " Your local sessions stay (--delete-sessions removes them).")
    return Text(summary)


def show_forgotten(console: Console, result: Forgotten) -> None:
    console.print(Text(f"Forgot scope {result.scope}: {result.facts_before} remembered facts.", style="bold"))
    # The service counts storage rows, not facts: every earlier version of a fact is a row,
    # and so are the learner, session and link records the facts hang on.
    console.print(f"The service erased {result.rows} rows for them: each fact's earlier versions, and the "
                  "learner, session and link records they belong to, count as rows too.", soft_wrap=True)
    console.print(f"Read back: {result.left} facts left.")
    if result.local["outbox"]:
        console.print(f"Dropped {result.local['outbox']} facts waiting in the outbox.")
    if result.sessions_deleted is not None:
        console.print(f"Deleted {result.sessions_deleted} local sessions, with their answers and levels, "
                      f"and your last scan's {_count(result.scan_findings_deleted or 0, 'finding')}.")


def show_synced(console: Console, result: Synced) -> None:
    if not result.scopes:
        console.print("The outbox is empty: every fact is delivered.")
    else:
        console.print(f"Delivered {_count(result.written, 'fact')}; {result.queued} still waiting.")
