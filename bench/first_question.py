"""How long a student waits for the first question after typing a prediction.

With Claude, the SDK's import (about a second) runs in the background while the
header is read and the prediction typed. This measures the wait from the moment
the prediction line is sent to the moment the first question (the first
`part_started` event) arrives, for the offline agents and for Claude against a
local stand-in of the Messages API (so the network is not part of the figure),
with a student who reads for 1.5 s and with one who types the prediction at once.

    python bench/first_question.py            # 5 rounds; prints, writes results and docs
    python bench/first_question.py --quick    # 1 round; prints only
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

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "first_question.json"
DOCS = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- bench:first_question:begin -->", "<!-- bench:first_question:end -->"
READ_S = 1.5
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # report.py beside this script

import report  # noqa: E402
from fake_messages_api import FakeMessagesAPI  # noqa: E402


def one_wait(env: dict[str, str], read_s: float) -> float:
    """Seconds from sending the prediction to the first question on stdout."""
    with tempfile.TemporaryDirectory() as home:
        proc = subprocess.Popen([sys.executable, "-m", "lumente_cli", "practice", "jwt", "--json", "--no-memory"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                env={**env, "LUMENTE_HOME": home})
        try:
            time.sleep(read_s)
            sent = time.perf_counter()
            proc.stdin.write(b"5\n")
            proc.stdin.flush()
            for line in proc.stdout:
                if json.loads(line).get("event") == "part_started":
                    return time.perf_counter() - sent
            raise RuntimeError("no question arrived")
        finally:
            proc.kill()
            proc.wait()


def measure(rounds: int) -> list[dict]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LUMENTE_", "ANTHROPIC_"))}
    base.pop("PYTHONDONTWRITEBYTECODE", None)
    rows = []
    with FakeMessagesAPI() as api:
        claude = {**base, "ANTHROPIC_API_KEY": "sk-ant-bench", "ANTHROPIC_BASE_URL": api.url,
                  "LUMENTE_MODEL": "claude-haiku-5-5"}
        cases = [
            ("offline agents, prediction typed after 1.5 s", base, READ_S),
            ("Claude, prediction typed after 1.5 s (SDK loaded meanwhile)", claude, READ_S),
            ("Claude, prediction typed at once", claude, 0.0),
        ]
        samples: dict[str, list[float]] = {name: [] for name, _, _ in cases}
        for _ in range(rounds):  # turn about, so a burst of load hits every case alike
            for name, env, read_s in cases:
                samples[name].append(one_wait(env, read_s) * 1000)
    baseline = statistics.median(samples[cases[0][0]])
    for name, _, _ in cases:
        median = statistics.median(samples[name])
        rows.append({"what": name, "median_ms": round(median, 1), "min_ms": round(min(samples[name]), 1),
                     "max_ms": round(max(samples[name]), 1), "vs_offline_ms": round(median - baseline, 1),
                     "samples_ms": [round(x, 1) for x in samples[name]]})
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| first question after the prediction | median | min–max | more than offline |",
             "| --- | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r['what']} | {r['median_ms']:.0f} ms | {r['min_ms']:.0f}–{r['max_ms']:.0f} ms "
                     f"| {r['vs_offline_ms']:+.0f} ms |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="one round, nothing written")
    args = ap.parse_args(argv)
    rows = measure(1 if args.quick else 5)
    text = table(rows)
    print(text)
    if not args.quick:
        doc = {"section": "first_question", "measured_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
               "rows": rows}
        RESULTS.write_text(json.dumps(doc, indent=2) + "\n", "utf-8")
        report.write_block("first_question", f"{BEGIN}\n{text}\n{END}",
                           heading="The first question, offline and on Claude", docs=DOCS)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
