"""Benchmark: what a practice session and the offline evaluator cost.

Prints a table and writes bench/results/sessions.json. Baselines are measured
in the same run: a whole session with memory off (so the memory column is the
cost of recall and writes), and a naive keyword test over the same answers (so
the evaluator column is the cost of stemming, clauses and confusions).

    python bench/sessions.py [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/machine.py, beside this script
from machine import describe  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from sessions import Rig  # noqa: E402

from lumente_cli.agents.contracts import EvaluateInput  # noqa: E402
from lumente_cli.agents.offline import OfflineAgents  # noqa: E402
from lumente_cli.concepts.library import load_library  # noqa: E402
from lumente_cli.parts import PARTS  # noqa: E402

SCRIPT = ["5", "?", "A JWT is a kind of security token that carries claims about the user, in a standard format.",
          "Unlike a session id, the server does not have to store anything because the JWT is self-contained. "
          "It is signed but not encrypted, so anyone can decode and read it.",
          "It has three parts separated by dots: a header, a payload with claims like exp, and a signature "
          "that detects tampering.", "?", "There are signed JWTs (JWS) and encrypted ones (JWE)."]



def time_sessions(rounds: int, *, memory: bool) -> list[float]:
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        rig = Rig(Path(tmp))
        try:
            for _ in range(rounds):
                rig.set_levels({p: 2 for p in PARTS})  # the same session every round
                start = time.perf_counter()
                code = rig.run(SCRIPT, memory_on=memory)
                times.append(time.perf_counter() - start)
                assert code == 0
        finally:
            rig.close()
    return times


def corpus() -> list[tuple[str, str, str]]:
    data = tomllib.loads((ROOT / "tests" / "data" / "answers.toml").read_text())
    rows = next(v for v in data.values() if isinstance(v, list))
    return [(r["concept"], r["part"], r["answer"]) for r in rows]


def time_evaluator(rounds: int) -> tuple[list[float], list[float], int]:
    lib = load_library()
    answers = corpus()
    agents = {c: OfflineAgents(lib.resolve(c)) for c in {a[0] for a in answers}}
    inputs = [(agents[c], EvaluateInput(concept=c, part=p, level=3, answer=a)) for c, p, a in answers]
    keywords = {(c, p): [w for kp in lib.resolve(c).part(p).key_points for ph in kp.accept for w in ph.split()]
                for c, p, _ in answers}
    ours, naive = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        for agent, inp in inputs:
            agent.evaluate(inp)
        ours.append((time.perf_counter() - start) / len(inputs))
        start = time.perf_counter()
        for c, p, a in answers:
            low = a.lower()
            sum(w.split("|")[0] in low for w in keywords[(c, p)])
        naive.append((time.perf_counter() - start) / len(answers))
    return ours, naive, len(inputs)


def ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with_memory = time_sessions(args.rounds, memory=True)
    without = time_sessions(args.rounds, memory=False)
    ours, naive, n = time_evaluator(args.rounds)
    rows = [
        ("session, memory off (baseline)", ms(without), 1.0),
        ("session, embedded memory", ms(with_memory), ms(with_memory) / ms(without)),
        ("naive keyword test per answer (baseline)", ms(naive), 1.0),
        (f"offline evaluator per answer ({n} answers)", ms(ours), ms(ours) / ms(naive)),
    ]
    print(f"{'what':<48} {'median ms':>10} {'× baseline':>11}")
    for name, value, ratio in rows:
        print(f"{name:<48} {value:>10.3f} {ratio:>11.1f}")
    out = ROOT / "bench" / "results" / "sessions.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"machine": describe(), "rounds": args.rounds,
                               "rows": [{"what": r[0], "median_ms": round(r[1], 3), "ratio": round(r[2], 2)} for r in rows]},
                              indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
