"""`lumente config` and `lumente path` for people, over the rows their --json prints."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text


def _value(value: str) -> Text:
    return Text(value) if value else Text("(empty)", style="dim")


def show_settings(console: Console, config_path: Path, rows: list[dict[str, Any]], *, verbose: bool) -> None:
    """A table of every setting; with -v, one entry each with where its value came from and what it does."""
    exists = "" if config_path.exists() else "  (not created yet)"
    console.print(Text("Config file ", style="dim") + Text(str(config_path)) + Text(exists, style="dim"),
                  soft_wrap=True)
    if verbose:
        for row in rows:
            line = Text(row["key"], style="cyan") + Text(" = ") + _value(row["value"])
            over = ", over the config file" if row["source"] == "env" and row["in_config"] else ""
            overridden_by = f"; {row['env']} overrides it" if row["env"] else ""
            line.append(f"   ({row['source']}{over}{overridden_by})", style="dim")
            console.print(line, soft_wrap=True)
            what = row["help"] + (f" One of: {', '.join(row['choices'])}." if row["choices"] else "")
            console.print(Text("    " + what, style="dim"), soft_wrap=True)
        return
    table = Table(box=None, show_header=True, header_style="bold", padding=(0, 2, 0, 0))
    table.add_column("setting", style="cyan", no_wrap=True)
    table.add_column("value")
    table.add_column("source", no_wrap=True)
    table.add_column("env var", no_wrap=True)
    for row in rows:
        source = Text(row["source"], style="dim" if row["source"] == "default" else "")
        if row["source"] == "env" and row["in_config"]:
            source.append(" (over config)", style="dim")
        table.add_row(row["key"], _value(row["value"]), source, row["env"] or "")
    console.print(table)


def show_saved(console: Console, key: str, shown: str, path: Path) -> None:
    """After `config set`: the value as shown (a secret redacted) and the file it went to."""
    console.print(Text(f"{key} = {shown}") + Text(f"  (saved in {path})", style="dim"), soft_wrap=True)


def show_unset(console: Console, key: str, default: str, path: Path) -> None:
    console.print(Text(f"{key} unset: the default {default or '(empty)'} applies") + Text(f"  ({path})", style="dim"),
                  soft_wrap=True)


def show_overridden(console: Console, env: str) -> None:
    console.print(f"note: {env} is set in your environment and overrides the config file.",
                  style="yellow", soft_wrap=True)


def show_locations(console: Console, rows: list[dict[str, Any]], *, verbose: bool) -> None:
    """Every file and folder Lumente keeps, whether it exists yet, and with -v what it holds."""
    width = max(len(row["name"]) for row in rows)
    for row in rows:
        line = Text(f"{row['name']:<{width}}  ", style="cyan") + Text(row["path"])
        if row["table"]:
            line.append(f"  (table {row['table']} inside the database)", style="dim")
        if not row["exists"]:
            line.append("  (not created yet)", style="dim")
        console.print(line, soft_wrap=True)
        if verbose:
            console.print(Text(" " * (width + 2) + row["description"], style="dim"), soft_wrap=True)
