"""The command line every Figure-returning benchmark shares: print the table
and write `bench/results/<name>.json` with the machine and the time, or with
`--quick` a smoke run that only prints (so it never overwrites the measured
figures)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from figures import Figure, text_table
from machine import describe


def run(measure: Callable[..., list[Figure]], results: Path, description: str, quick_help: str,
        argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help=f"{quick_help}; prints only (a smoke test)")
    args = parser.parse_args(argv)
    figures = measure(quick=args.quick)
    print(text_table(figures))
    if args.quick:
        return 0
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps({
        "machine": describe(), "measured_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "figures": [f.to_json() for f in figures],
    }, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {results.relative_to(results.parents[2])}")
    return 0
