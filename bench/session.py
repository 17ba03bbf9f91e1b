"""A practice session: what a scripting teacher waits for, and what memory and
the offline evaluator cost inside it.

    python bench/session.py [--quick]

* The whole CLI, in a fresh process as a teacher's script runs it:
  `lumente practice jwt --json` with the answers on stdin, offline agents,
  recall and nine-odd fact writes on the embedded memory. Held to 1.5× the
  `lumente --version` time plus 0.3 s, both measured in the same run, turn
  about. Every run is checked: exit 0, and the outbox empty afterwards (every
  fact delivered, none left for later).
* In-process, the real runner: the same session with memory off (baseline)
  and on the embedded engine through the real client; the offline evaluator
  per answer over the answers of tests/data/corpus, against a naive
  "is the keyword in the answer" test over the same answers.
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
import tempfile
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the other bench modules, beside this one
from figures import Figure
from processes import LUMENTE, clean_env, run
from startup import SOLID, play_session

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from sessions import Rig  # noqa: E402

from lumente_cli.agents.contracts import EvaluateInput  # noqa: E402
from lumente_cli.agents.offline import OfflineAgents  # noqa: E402
from lumente_cli.agents.offline import language  # noqa: E402
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
                language.forget_answers()  # ...whose answers the judge reads afresh
                start = time.perf_counter()
                code = rig.run(SCRIPT, memory_on=memory)
                times.append((time.perf_counter() - start) * 1000)
                assert code == 0
        finally:
            rig.close()
    return times


def corpus() -> list[tuple[str, str, str]]:
    rows = [
        r for path in sorted((ROOT / "tests" / "data" / "corpus").glob("*.toml"))
        for r in tomllib.loads(path.read_text("utf-8"))["answer"]
    ]
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
        language.forget_answers()  # each round reads every answer afresh, as a student's session would
        start = time.perf_counter()
        for agent, inp in inputs:
            agent.evaluate(inp)
        ours.append((time.perf_counter() - start) * 1000 / len(inputs))
        start = time.perf_counter()
        for c, p, a in answers:
            low = a.lower()
            sum(w.split("|")[0] in low for w in keywords[(c, p)])
        naive.append((time.perf_counter() - start) * 1000 / len(answers))
    return ours, naive, len(inputs)


def played_home(root: Path) -> Path:
    """A home where one JWT session was played, to copy before each timed session."""
    return play_session(root / "template")


def fresh_copy(template: Path, home: Path) -> dict[str, str]:
    """Put a copy of `template` at `home`; the environment of a student whose files are there."""
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(template, home)
    return clean_env(home)


def cli_sessions(runs: int, warmup: int) -> tuple[list[float], list[float]]:
    """Wall ms of `lumente --version` and of a whole scripted `practice jwt --json`, taking turns.

    Every session starts from the same state, a copy of a home where one
    session was played (untimed): the same levels, so the same questions, and
    the database, secret and concept cache already made, as on any day but
    the first."""
    version, session = [], []
    with tempfile.TemporaryDirectory(prefix="lumente-bench-") as tmp:
        template, home = played_home(Path(tmp)), Path(tmp) / "home"
        for round_ in range(warmup + runs):
            env = fresh_copy(template, home)
            v = run([*LUMENTE, "--version"], env).ms
            s = run([*LUMENTE, "practice", "jwt", "--json"], env, stdin=SOLID.encode()).ms
            if round_ >= warmup:
                version.append(v)
                session.append(s)
            with sqlite3.connect(home / "data" / "lumente.db") as con:
                waiting = con.execute("SELECT count(*) FROM memory_fact WHERE delivered_at IS NULL").fetchone()[0]
                sent = con.execute("SELECT count(*) FROM memory_fact").fetchone()[0]
            if waiting or sent < 2 * 5:  # each session writes at least a gap and four Help facts
                raise SystemExit(f"session: {sent} facts queued, {waiting} still waiting: the writes did not all happen")
    return version, session


def measure(quick: bool = False) -> list[Figure]:
    runs, warmup = (2, 1) if quick else (11, 2)
    version_ms, session_ms = cli_sessions(runs, warmup)
    version = Figure("session", "lumente --version (baseline)", "ms", version_ms)
    cli = Figure("session", "lumente practice jwt --json, scripted, embedded memory", "ms", session_ms)
    cli.against(version)
    limit = 1.5 * version.median + 300
    cli.hold_to(f"< 1.5 × --version + 300 ms = {limit:.0f} ms", cli.median < limit)

    rounds = 3 if quick else 30
    off = Figure("session", "in-process session, memory off (baseline)", "ms", time_sessions(rounds, memory=False))
    on = Figure("session", "in-process session, embedded memory", "ms", time_sessions(rounds, memory=True),
                note="one recall, the session's fact writes")
    on.against(off)
    ours, naive, n = time_evaluator(rounds)
    naive_fig = Figure("session", "naive keyword test per answer (baseline)", "ms", naive)
    evaluator = Figure("session", f"offline evaluator per answer ({n} answers)", "ms", ours)
    evaluator.against(naive_fig)
    return [version, cli, off, on, naive_fig, evaluator]


if __name__ == "__main__":
    from report import main_for

    raise SystemExit(main_for("session", measure))
