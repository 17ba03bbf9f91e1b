"""Lumente's benchmark harness: every section, one table each, results to
bench/results/<section>.json and the tables into docs/benchmarks.md.

    python bench/run.py                    # everything (about 3 minutes on 2 cores)
    python bench/run.py --only startup,session
    python bench/run.py --quick            # a smoke test: tiny runs, nothing written

Sections, in the order they run:
  startup    cold start of --version, --help, concepts and memory show, against a minimal typer app
  session    a scripted `practice jwt --json` in a fresh process; a session and the evaluator in-process
  recall     recall and history reads as a key's history grows from 10 to 10,000 rows
  writes     facts per second into the embedded engine, sequential, as the app writes them
  serve      `memory serve` over loopback with 1 and 50 clients, against the engine in-process
  footprint  peak RSS of a scripted session and of memory show over 10,000 facts
  scan       `lumente scan` over a generated 10,000-file git repository, against cat-ing its files

Every figure is the median of several runs after a warm-up, with min and max;
ratios are to a baseline measured in the same run. A missed target is shown
as missed: the harness reports, it does not fail on a slow machine.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the section modules, beside this one
from report import finish, load_average

SECTIONS = ("startup", "session", "recall", "writes", "serve", "footprint", "scan")
MODULES = {"startup": "startup", "session": "session", "recall": "recall", "writes": "writes",
           "serve": "serve_load", "footprint": "footprint", "scan": "scan"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Lumente's benchmark harness.",
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[7:15]))
    parser.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections (default: all)")
    parser.add_argument("--quick", action="store_true", help="tiny runs for a smoke test; writes nothing")
    parser.add_argument("--no-docs", action="store_true", help="write results but leave docs/benchmarks.md")
    args = parser.parse_args(argv)
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    if importlib.util.find_spec("lumente_cli") is None:
        parser.exit(2, f"{parser.prog}: Lumente is not installed for {sys.executable}; "
                       "run `pip install -e .` in this checkout first (see README.md).\n")
    missed: list[str] = []
    began = time.monotonic()
    for section in chosen:
        load_before = load_average()
        started = time.monotonic()
        figures = importlib.import_module(MODULES[section]).measure(args.quick)
        finish(section, figures, quick=args.quick, load_before=load_before, write=not args.quick,
               docs=not (args.quick or args.no_docs))
        print(f"({section}: {time.monotonic() - started:.0f} s)", file=sys.stderr)
        missed += [f"{section}: {f.what} ({f.target})" for f in figures if f.met is False]
    print(f"\n{len(chosen)} sections in {time.monotonic() - began:.0f} s.")
    if missed:
        print("Targets missed:\n  " + "\n  ".join(missed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
