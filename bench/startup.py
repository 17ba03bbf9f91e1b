"""Cold start: what a student waits for on every command, next to the floor of
this stack (a minimal one-command typer app, bench/floor_app.py) measured in
the same run.

    python bench/startup.py [--quick]

Each command runs in a fresh process with its output discarded. The commands
take turns (one run of each, then the next round), so a burst of load on this
shared machine lands on all of them alike; the first `warmup` rounds are not
counted. Lumente runs offline on the embedded memory, in a temporary
LUMENTE_HOME holding one finished session and 1,000 remembered facts.
Each command is also run once with `-X importtime` to check that it never
imports `anthropic`.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the other bench modules, beside this one
from figures import Figure
from processes import LUMENTE, PY, clean_env, run

HERE = Path(__file__).resolve().parent
TARGET_RATIO = 1.25
# Reading and printing a thousand facts may cost more than starting up.
MANY_FACTS_RATIO = 1.5
MEMORY_FACTS = 1_000

FLOOR = "minimal typer app (floor)"
# (label, argv, the ratio to the floor it is held to or None, the home it runs in:
# "seeded" has one finished session and MEMORY_FACTS facts, "new" has nothing yet).
COMMANDS: list[tuple[str, list[str], float | None, str]] = [
    (FLOOR, [PY, str(HERE / "floor_app.py")], None, "seeded"),
    ("lumente --version", [*LUMENTE, "--version"], TARGET_RATIO, "seeded"),
    ("lumente --help", [*LUMENTE, "--help"], TARGET_RATIO, "seeded"),
    ("lumente concepts", [*LUMENTE, "concepts"], TARGET_RATIO, "seeded"),
    ("lumente progress", [*LUMENTE, "progress"], TARGET_RATIO, "seeded"),
    ("lumente memory show (new home)", [*LUMENTE, "memory", "show"], TARGET_RATIO, "new"),
    (f"lumente memory show ({MEMORY_FACTS:,} facts)", [*LUMENTE, "memory", "show"], MANY_FACTS_RATIO, "seeded"),
    # What every Tab costs (the bash shim runs this), for scale.
    ("Tab: complete a concept name", ["/usr/bin/env", "COMP_WORDS=lumente practice j", "COMP_CWORD=2",
                                      "_LUMENTE_COMPLETE=complete_bash", *LUMENTE], None, "seeded"),
    ("python -c pass", [PY, "-c", "pass"], None, "seeded"),
]
# Shown for scale, not held to a target: what the Claude path adds.
CLAUDE = ("python -c 'import anthropic'", [PY, "-c", "import anthropic"])

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


def play_session(home: Path) -> Path:
    """Play one whole JWT session with the CLI in `home` (untimed); returns `home`."""
    run([*LUMENTE, "practice", "jwt"], clean_env(home), stdin=SOLID.encode())
    return home


def prepare_home(home: Path, facts: int) -> None:
    """One finished session, then memory topped up to `facts` facts."""
    from seed import seed_home

    play_session(home)
    seed_home(home, facts)


def imports_anthropic(argv: list[str], env: dict[str, str]) -> bool:
    ran = run(argv, env | {"PYTHONPROFILEIMPORTTIME": "1"}, keep_stderr=True)
    return any(line.rsplit("|", 1)[-1].strip().split(".")[0] == "anthropic"
               for line in ran.stderr.decode().splitlines())


def measure(quick: bool = False) -> list[Figure]:
    runs, warmup = (3, 1) if quick else (21, 3)
    with tempfile.TemporaryDirectory(prefix="lumente-bench-") as tmp:
        homes = {"seeded": Path(tmp) / "seeded", "new": Path(tmp) / "new"}
        for home in homes.values():
            home.mkdir()
        prepare_home(homes["seeded"], 100 if quick else MEMORY_FACTS)
        envs = {name: clean_env(home) for name, home in homes.items()}
        samples: dict[str, list[float]] = {label: [] for label, *_ in COMMANDS}
        for round_ in range(warmup + runs):
            for label, argv, _, home in COMMANDS:
                ms = run(argv, envs[home]).ms
                if round_ >= warmup:
                    samples[label].append(ms)
        clean = {label: not imports_anthropic(argv, envs[home]) for label, argv, target, home in COMMANDS if target}
        claude = [run(CLAUDE[1], envs["seeded"]).ms for _ in range(1 if quick else 5)]
    figures = {label: Figure("startup", label, "ms", samples[label]) for label, *_ in COMMANDS}
    floor = figures[FLOOR]
    for label, _, target, _ in COMMANDS:
        fig = figures[label]
        if label != FLOOR:
            fig.against(floor)
        if target:
            fig.note = "" if clean[label] else "imports anthropic"
            fig.hold_to(f"≤ {target}× floor, no anthropic", fig.ratio <= target and clean[label])
    extra = Figure("startup", CLAUDE[0], "ms", claude, note="the Claude provider's import, for scale")
    extra.against(floor)
    return [*figures.values(), extra]


if __name__ == "__main__":
    from report import main_for

    raise SystemExit(main_for("startup", measure))
