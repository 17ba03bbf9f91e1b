"""Results of a section: printed as a table, written to
bench/results/<section>.json, and quoted in docs/benchmarks.md between
`<!-- bench:<section>:begin -->` and `<!-- bench:<section>:end -->`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from figures import Figure, markdown_table, text_table
from machine import describe

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DOCS = ROOT / "docs" / "benchmarks.md"


def load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 1)
    except (AttributeError, OSError):
        return None


def document(section: str, figures: list[Figure], *, quick: bool, load_before: float | None) -> dict[str, Any]:
    return {
        "section": section,
        "measured_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "quick": quick,
        "machine": describe(),
        "load_average_1min": {"before": load_before, "after": load_average()},
        "figures": [f.to_json() for f in figures],
    }


def write_results(doc: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{doc['section']}.json"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", "utf-8")
    return path


def figures_of(doc: dict[str, Any]) -> list[Figure]:
    """The figures back from a results file (which also holds derived keys: median, min, max)."""
    keep = {f.name for f in fields(Figure)}
    return [Figure(**{k: v for k, v in f.items() if k in keep}) for f in doc["figures"]]


def machine_line(doc: dict[str, Any]) -> str:
    m, load = doc["machine"], doc["load_average_1min"]
    return (f"Measured {doc['measured_at'][:16].replace('T', ' ')} UTC on {m['nproc']} CPUs ({m['cpu']}), "
            f"{m['implementation']} {m['python']}, SQLite {m['sqlite']}, {m['system']}; "
            f"load average {load['before']} before, {load['after']} after.")


def docs_block(doc: dict[str, Any]) -> str:
    section = doc["section"]
    return "\n".join([f"<!-- bench:{section}:begin -->", machine_line(doc), "",
                      markdown_table(figures_of(doc)), f"<!-- bench:{section}:end -->"])


def update_docs(doc: dict[str, Any], docs: Path = DOCS) -> bool:
    """Rewrite the section's block in the docs; False when the docs have no block for it."""
    begin = f"<!-- bench:{doc['section']}:begin -->"
    if begin not in docs.read_text("utf-8"):
        return False
    write_block(doc["section"], docs_block(doc), docs=docs)
    return True


def write_block(section: str, block: str, *, heading: str = "", docs: Path = DOCS) -> None:
    """Put `block` (markers included) in place of the section's block, or append it under
    `heading` when the docs have none yet."""
    text = docs.read_text("utf-8")
    begin, end = f"<!-- bench:{section}:begin -->", f"<!-- bench:{section}:end -->"
    if begin in text:
        start, stop = text.index(begin), text.index(end) + len(end)
        text = text[:start] + block + text[stop:]
    else:
        text = text.rstrip("\n") + f"\n\n## {heading or section}\n\n" + block + "\n"
    docs.write_text(text, "utf-8")


def finish(section: str, figures: list[Figure], *, quick: bool, load_before: float | None,
           write: bool = True, docs: bool = False) -> dict[str, Any]:
    doc = document(section, figures, quick=quick, load_before=load_before)
    print(f"\n== {section}\n{machine_line(doc)}\n\n{text_table(figures)}")
    if write:
        print(f"wrote {write_results(doc).relative_to(ROOT)}", file=sys.stderr)
    if docs and update_docs(doc):
        print(f"updated {DOCS.relative_to(ROOT)}", file=sys.stderr)
    return doc


def main_for(section: str, measure: Callable[[bool], list[Figure]], argv: list[str] | None = None) -> int:
    """`python bench/<section>.py [--quick]`: one section on its own."""
    parser = argparse.ArgumentParser(description=f"Lumente benchmark: {section}")
    parser.add_argument("--quick", action="store_true", help="few runs, small data: a smoke test, not a figure")
    args = parser.parse_args(argv)
    load_before = load_average()
    finish(section, measure(args.quick), quick=args.quick, load_before=load_before, write=not args.quick)
    return 0  # a missed target is reported in the table, not an error of the harness
