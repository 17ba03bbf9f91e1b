"""Value completion for concept names and parts (bash, zsh and fish)."""

from __future__ import annotations

from lumente_cli.parts import PARTS


def concept_names(incomplete: str) -> list[str]:
    try:
        from lumente_cli.concepts.library import load_default

        ids = load_default().ids()
    except Exception:  # noqa: BLE001 - completion must never print a traceback into the shell
        return []
    return [c for c in ids if c.startswith(incomplete.lower())]


def part_names(incomplete: str) -> list[str]:
    return [p for p in PARTS if p.startswith(incomplete.lower())]
