"""The hand-written docs point at files that exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def test_every_relative_link_in_the_docs_resolves():
    broken = []
    for page in sorted(DOCS.glob("*.md")):
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text("utf-8")):
            if "://" in target:
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.name} -> {target}")
    assert broken == []


def test_shell_doc_covers_every_completion_script_and_the_man_page():
    text = (DOCS / "shell.md").read_text("utf-8")
    for name in ("completions/lumente.bash", "completions/_lumente", "completions/lumente.fish", "man/lumente.1"):
        assert name in text and (ROOT / name).exists()
    for shell in ("bash", "zsh", "fish"):
        assert f"## {shell}" in text and f"source_{shell}" in text
