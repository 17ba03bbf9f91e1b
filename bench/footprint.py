"""Memory: the peak resident set of a scripted session and of `memory show`
over 10,000 remembered facts, next to the floor app and a bare interpreter
measured the same way in the same run.

    python bench/footprint.py [--quick]

The peak comes from `wait4` on each process (its own `ru_maxrss`), so it
counts everything the process touched: the interpreter, imports, SQLite's
page cache and the rendered output.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the other bench modules, beside this one
from figures import Figure
from processes import LUMENTE, PY, clean_env, run
from session import fresh_copy, played_home
from startup import HERE, SOLID

MANY_FACTS = 10_000


def measure(quick: bool = False) -> list[Figure]:
    runs, facts = (2, 500) if quick else (7, MANY_FACTS)
    rss: dict[str, list[float]] = {}
    show_ms: list[float] = []
    with tempfile.TemporaryDirectory(prefix="lumente-bench-") as session_home, \
            tempfile.TemporaryDirectory(prefix="lumente-bench-") as memory_home:
        from seed import seed_home

        seed_home(Path(memory_home), facts)
        template, home = played_home(Path(session_home)), Path(session_home) / "home"
        memory_env = clean_env(Path(memory_home))
        commands = [
            ("python -c pass", [PY, "-c", "pass"], memory_env, None),
            ("minimal typer app (floor)", [PY, str(HERE / "floor_app.py")], memory_env, None),
            ("lumente practice jwt --json, scripted", [*LUMENTE, "practice", "jwt", "--json"], None,
             SOLID.encode()),
            (f"lumente memory show ({facts:,} facts)", [*LUMENTE, "memory", "show"], memory_env, None),
        ]
        for round_ in range(1 + runs):
            for label, argv, env, stdin in commands:
                ran = run(argv, env or fresh_copy(template, home), stdin=stdin)
                if round_:
                    rss.setdefault(label, []).append(ran.peak_rss_mib)
                    if "memory show" in label:
                        show_ms.append(ran.ms)
    figures = [Figure("footprint", label, "MiB", values) for label, values in rss.items()]
    floor = figures[1]
    for fig in figures[2:]:
        fig.against(floor)
    figures.append(Figure("footprint", f"lumente memory show ({facts:,} facts), wall time", "ms", show_ms,
                          note="for scale: the same runs"))
    return figures


if __name__ == "__main__":
    from report import main_for

    raise SystemExit(main_for("footprint", measure))
