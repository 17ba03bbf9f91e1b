"""The hand-written docs point at files that exist, and the start-up benchmark
stays standard-library only with its numbers in docs/benchmarks.md."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
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


def test_the_benchmark_uses_only_the_standard_library():
    """startup.py and its sibling machine.py import nothing outside the standard library."""
    modules = set()
    for name in ("startup.py", "machine.py"):
        tree = ast.parse((ROOT / "bench" / name).read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                modules.add(node.module.split(".")[0])
    assert modules - {"__future__", "machine"} <= set(sys.stdlib_module_names)


def test_benchmarks_doc_has_a_number_for_every_benchmarked_command():
    spec = importlib.util.spec_from_file_location("bench_startup", ROOT / "bench" / "startup.py")
    bench = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(bench)
    text = (DOCS / "benchmarks.md").read_text("utf-8")
    section = text[text.index(bench.BEGIN):text.index(bench.END)]
    for label, *_ in bench.COMMANDS:
        assert re.search(rf"\| `{re.escape(label)}` \| \d+ \| \d+ \| [\d.]+× \|", section), label
    assert "CPUs" in section and "Python" in section or "CPython" in section
