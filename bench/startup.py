"""Start-up time of `lumente` commands, against `python -c pass`.

    python bench/startup.py                 # print the table, write bench/results/startup.json
    python bench/startup.py --update-docs   # also rewrite the numbers in docs/benchmarks.md
    python bench/startup.py --runs 5        # quicker, noisier

Standard library only. Each command runs in a fresh process with its output
discarded: `--warmup` unmeasured runs (page cache, .pyc files), then `--runs`
timed ones; the table gives the minimum and the median wall time and the
median's ratio to the baseline. Lumente runs as `python -m lumente_cli` (the
same code the `lumente` script runs) with LUMENTE_HOME in a temporary folder
that holds one finished session, offline (no API key), embedded memory.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/machine.py, beside this script
from machine import describe  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "startup.json"
DOCS = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- startup:begin -->", "<!-- startup:end -->"

PY = sys.executable
LUMENTE = [PY, "-m", "lumente_cli"]
SOLID = "\n".join([
    "6",
    "A JWT is a kind of security token that carries claims about the user, in a standard format.",
    "Unlike a session id, the server does not have to store anything because the JWT is self-contained. "
    "It is signed but not encrypted, so anyone can decode and read it.",
    "It has three parts separated by dots: a header, a payload with claims like exp and sub, and a signature "
    "that detects tampering. Each part is base64url encoded JSON.",
    "There are signed JWTs (JWS) and encrypted ones (JWE), and by use there are access tokens and ID tokens "
    "from OpenID Connect.",
]) + "\n"

# (label, argv, stdin, expected exit statuses)
COMMANDS: list[tuple[str, list[str], bytes | None, tuple[int, ...]]] = [
    ("python -c pass (baseline)", [PY, "-c", "pass"], None, (0,)),
    ("lumente --help", [*LUMENTE, "--help"], None, (0,)),
    ("lumente concepts", [*LUMENTE, "concepts"], None, (0,)),
    ("lumente memory show", [*LUMENTE, "memory", "show"], None, (0,)),
    ("lumente doctor", [*LUMENTE, "doctor"], None, (0,)),
    ("lumente practice jwt --predict 4 (EOF: pauses)", [*LUMENTE, "practice", "jwt", "--predict", "4", "--restart"],
     b"", (3,)),
    ('python -c "import anthropic"', [PY, "-c", "import anthropic"], None, (0,)),
    # What `--provider claude` adds before its first request: the CLI plus the SDK client.
    ("CLI + Claude client (the provider's start-up)", [PY, "-c", "import lumente_cli.cli.main; "
     "from lumente_cli.agents.claude import make_anthropic_client; make_anthropic_client(api_key='k')"], None, (0,)),
]


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LUMENTE_", "ANTHROPIC_", "XDG_")) and k not in ("NO_COLOR", "FORCE_COLOR")}
    return env | {"LUMENTE_HOME": str(home), "LUMENTE_PROVIDER": "offline", "NO_COLOR": "1"}


def run_once(argv: list[str], stdin: bytes | None, env: dict[str, str]) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run(argv, input=stdin if stdin is not None else None,
                          stdin=None if stdin is not None else subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start, proc.returncode



def load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 1)
    except (AttributeError, OSError):
        return None


def measure(runs: int, warmup: int) -> dict[str, object]:
    load_before = load_average()
    rows = []
    with tempfile.TemporaryDirectory(prefix="lumente-bench-") as tmp:
        home = Path(tmp)
        env = environment(home)
        setup = subprocess.run([*LUMENTE, "practice", "jwt"], input=SOLID.encode(), capture_output=True, env=env)
        if setup.returncode != 0:
            raise SystemExit(f"setup session failed ({setup.returncode}): {setup.stderr.decode()[-500:]}")
        for label, argv, stdin, ok in COMMANDS:
            for _ in range(warmup):
                _, code = run_once(argv, stdin, env)
                if code not in ok:
                    raise SystemExit(f"{label}: exit status {code}, expected {ok}")
            times = []
            for _ in range(runs):
                elapsed, code = run_once(argv, stdin, env)
                if code not in ok:
                    raise SystemExit(f"{label}: exit status {code}, expected {ok}")
                times.append(elapsed * 1000)
            rows.append({"command": label, "argv": [Path(a).name if a == PY else a for a in argv],
                         "min_ms": round(min(times), 1), "median_ms": round(statistics.median(times), 1),
                         "runs": runs})
            print(f"  {label}: median {rows[-1]['median_ms']} ms", file=sys.stderr)
    base = rows[0]["median_ms"]
    for row in rows:
        row["x_baseline"] = round(row["median_ms"] / base, 1)
    return {"measured_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "machine": describe(),
            "load_average_1min": {"before": load_before, "after": load_average()},
            "warmup": warmup, "runs": runs, "results": rows}


def table(doc: dict) -> str:
    lines = ["| command | min (ms) | median (ms) | median ÷ baseline |", "| --- | ---: | ---: | ---: |"]
    for row in doc["results"]:
        lines.append(f"| `{row['command']}` | {row['min_ms']:.0f} | {row['median_ms']:.0f} "
                     f"| {row['x_baseline']:.1f}× |")
    return "\n".join(lines)


def docs_section(doc: dict) -> str:
    m = doc["machine"]
    return "\n".join([
        BEGIN,
        f"Measured {doc['measured_at'][:10]} with `python bench/startup.py` ({doc['warmup']} warm-ups, "
        f"{doc['runs']} timed runs each): {m['nproc']} CPUs, {m['cpu']}, {m['implementation']} {m['python']}, "
        f"{m['system']}.",
        "",
        table(doc),
        "",
        f"Load average (1 min) {doc['load_average_1min']['before']} before and {doc['load_average_1min']['after']} "
        f"after the run, on {m['nproc']} CPUs.",
        END,
    ])


def update_docs(doc: dict) -> None:
    text = DOCS.read_text("utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    DOCS.write_text(text[:start] + docs_section(doc) + text[end:], "utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--update-docs", action="store_true", help="rewrite the numbers in docs/benchmarks.md")
    args = parser.parse_args(argv)
    doc = measure(args.runs, args.warmup)
    print(table(doc))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(doc, indent=2) + "\n", "utf-8")
    print(f"\nwrote {RESULTS.relative_to(ROOT)}", file=sys.stderr)
    if args.update_docs:
        update_docs(doc)
        print(f"updated {DOCS.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
