"""Mutation testing for the modules that carry Lumente's promises.

Each mutant is one small, deliberate bug in a behaviour a promise rests on (the
session engine's scoring, the evaluator's refusals, the fact templates and the
outbox, the memory engine's grants and forget, the sanitiser). The script plants
one at a time in a scratch copy of the repository, runs the test files that
guard that behaviour, and counts the mutant as caught when they fail.

    python scripts/mutate.py            # every mutant; prints a table and the score
    python scripts/mutate.py --list     # the mutants, without running anything
    python scripts/mutate.py engine.    # only mutants whose name starts so

It takes a few minutes and is not part of CI; docs/testing.md quotes its last score.
A mutant whose text is no longer in its file is reported as stale, so the list
cannot silently go out of date.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = "lumente_cli"


@dataclass(frozen=True)
class Mutant:
    name: str
    file: str
    old: str
    new: str
    tests: tuple[str, ...]


M = Mutant
MUTANTS = [
    # the session engine: points, levels, the level-5 question
    M("engine.solid_points", f"{PKG}/session/engine.py", 'POINTS: dict[str, int] = {"solid": 2,',
      'POINTS: dict[str, int] = {"solid": 1,', ("tests/test_session_engine.py",)),
    M("engine.drop_after_three_taps", f"{PKG}/session/engine.py", "HELP_TAPS_FOR_DROP = 3", "HELP_TAPS_FOR_DROP = 4",
      ("tests/test_session_engine.py",)),
    M("engine.rise_with_one_tap", f"{PKG}/session/engine.py", "HELP_LIMIT_FOR_RISE = 1", "HELP_LIMIT_FOR_RISE = 2",
      ("tests/test_session_engine.py",)),
    M("engine.question_caps_points", f"{PKG}/session/engine.py", "        points = min(points, 1)",
      "        points = min(points, 2)", ("tests/test_session_engine.py",)),
    M("engine.level_clamp", f"{PKG}/session/engine.py", "return max(MIN_LEVEL, min(MAX_LEVEL, level))",
      "return max(MIN_LEVEL, level)", ("tests/test_session_engine.py",)),
    # the evaluator: what a wrong answer must not get
    M("judge.negation_ignored", f"{PKG}/agents/offline/language.py",
      "    if clause.negations_before[i] > allowed_negations:\n        return False",
      "    if False:\n        return False", ("tests/test_evaluator.py",)),
    M("judge.refutation_ignored", f"{PKG}/agents/offline/language.py", "    if clause.refuted:\n        return False\n    if clause.words[i] in NEGATIONS:",
      "    if False:\n        return False\n    if clause.words[i] in NEGATIONS:", ("tests/test_evaluator.py",)),
    M("judge.core_confusion_only_partial", f"{PKG}/agents/offline/evaluator.py",
      "if j.listed or j.copied or j.core_confusions or j.denied or not j.covered:",
      "if j.listed or j.copied or j.denied or not j.covered:", ("tests/test_evaluator.py",)),
    M("judge.denial_ignored", f"{PKG}/agents/offline/evaluator.py",
      "if j.listed or j.copied or j.core_confusions or j.denied or not j.covered:",
      "if j.listed or j.copied or j.core_confusions or not j.covered:", ("tests/test_evaluator.py",)),
    M("judge.lists_pass", f"{PKG}/agents/offline/evaluator.py", "LIST_BARE_SHARE = 0.75", "LIST_BARE_SHARE = 1.5",
      ("tests/test_evaluator.py",)),
    M("judge.copies_pass", f"{PKG}/agents/offline/evaluator.py", "BAG_COPY_SHARE = 0.8", "BAG_COPY_SHARE = 1.5",
      ("tests/test_evaluator.py", "tests/test_concept_content.py")),
    M("judge.required_ignored", f"{PKG}/concepts/schema.py",
      "if len(ids) >= self.needed_for_solid and all(kp.id in ids for kp in self.required):",
      "if len(ids) >= self.needed_for_solid:", ("tests/test_evaluator.py", "tests/claude/test_claude_agents.py")),
    M("judge.claude_verdict_unchecked", f"{PKG}/agents/claude/agents.py",
      "verdict = min(e.verdict, part.supported(covered), key=RANK.index)", "verdict = e.verdict",
      ("tests/claude/test_claude_agents.py",)),
    # facts and the outbox
    M("facts.random_idempotency_key", f"{PKG}/memory/writer.py",
      'return f"lumente:{pseudonym}:{session_id}:t{turn}:{fact.writer}:{entity}:{fact.key}"',
      'import uuid; return f"lumente:{uuid.uuid4().hex}"', ("tests/test_memory_sessions.py",)),
    M("facts.outbox_requeues", f"{PKG}/store/memory_log.py", "INSERT OR IGNORE INTO memory_fact",
      "INSERT OR REPLACE INTO memory_fact", ("tests/test_memory_sessions.py", "tests/serve/test_serve_faults.py")),
    M("facts.cites_unverified", f"{PKG}/agents/memory_aware.py", "    kept = [c for c in dict.fromkeys(cites) if c in sent]",
      "    kept = list(dict.fromkeys(cites))", ("tests/test_memory_sessions.py",)),
    M("facts.recall_this_session", f"{PKG}/memory/service.py",
      "exclude_ids=self.store.fact_ids_of_session(session_id),", "exclude_ids=set(),",
      ("tests/test_memory_sessions.py",)),
    # the memory engine: grants and forget
    M("auth.prefix_without_boundary", f"{PKG}/memory_engine/normalise.py",
      "return subtree == ROOT or path == subtree or path.startswith(subtree)",
      'return subtree == ROOT or path == subtree or path.startswith(subtree.rstrip("/"))',
      ("tests/memory/test_memory_auth.py", "tests/memory/test_memory_scopes.py")),
    M("auth.node_grant_covers_subtree", f"{PKG}/memory_engine/normalise.py",
      "if (subtree and in_subtree(path, base)) or (not subtree and path == base):",
      "if in_subtree(path, base):", ("tests/memory/test_memory_auth.py", "tests/memory/test_memory_scopes.py")),
    M("forget.keeps_relations", f"{PKG}/memory_engine/scopes.py",
      'FORGET_TABLES = ("attribute", "relation", "entity", "turn", "session")',
      'FORGET_TABLES = ("attribute", "entity", "turn", "session")', ("tests/memory/test_memory_scopes.py",)),
    M("forget.keeps_attributes", f"{PKG}/memory_engine/scopes.py",
      'FORGET_TABLES = ("attribute", "relation", "entity", "turn", "session")',
      'FORGET_TABLES = ("relation", "entity", "turn", "session")', ("tests/memory/test_memory_scopes.py",)),
    # the sanitiser and the views that use it
    M("sanitise.keeps_osc", f"{PKG}/text.py", r'    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL or ST',
      r'    r"|\x1bQ"  # OSC ... BEL or ST', ("tests/test_conventions.py",)),
    M("sanitise.keeps_bidi", f"{PKG}/text.py", r"\u202a-\u202e\u2066-\u2069]", "]", ("tests/test_conventions.py",)),
    M("views.raw_hint", f"{PKG}/views/session.py", 'Text("Hint: ", style="bold magenta") + safe(e["message"])',
      'Text("Hint: ", style="bold magenta") + Text(e["message"])', ("tests/test_conventions.py",)),
    M("views.raw_cue", f"{PKG}/views/session.py", 'Text("  · ", style="cyan") + safe(cue, "italic")',
      'Text("  · ", style="cyan") + Text(cue)', ("tests/test_conventions.py",)),
    M("views.raw_fact_id", f"{PKG}/views/memory.py", 'first = safe(fact.id, "dim cyan")',
      'first = Text(fact.id, style="dim cyan")', ("tests/serve/test_serve_hostile.py",)),
]


def run(mutant: Mutant, scratch: Path) -> str:
    target = scratch / mutant.file
    original = target.read_text("utf-8")
    if original.count(mutant.old) != 1:
        return "stale"
    target.write_text(original.replace(mutant.old, mutant.new), "utf-8")
    try:
        return "survived" if run_tests(mutant, scratch) == 0 else "caught"
    finally:
        target.write_text(original, "utf-8")


def run_tests(mutant: Mutant, scratch: Path) -> int:
    env = {**os.environ, "PYTHONPATH": str(scratch), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *mutant.tests],
        cwd=scratch, env=env, capture_output=True, text=True, timeout=1800,
    )
    return proc.returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("prefix", nargs="?", default="", help="only mutants whose name starts with this")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    chosen = [m for m in MUTANTS if m.name.startswith(args.prefix)]
    if args.list:
        for m in chosen:
            print(f"{m.name:34} {m.file}  ->  {', '.join(m.tests)}")
        return 0
    with tempfile.TemporaryDirectory(prefix="lumente-mutants-") as tmp:
        scratch = Path(tmp) / "repo"
        shutil.copytree(ROOT, scratch, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info"))
        # Unmutated, the guarding tests must pass, or every 'caught' below would mean nothing.
        baseline = Mutant("baseline", chosen[0].file, "", "", tuple(sorted({t for m in chosen for t in m.tests})))
        if run_tests(baseline, scratch) != 0:
            print("the tests fail without any mutant: fix them first", file=sys.stderr)
            return 2
        results = []
        for m in chosen:
            started = time.monotonic()
            outcome = run(m, scratch)
            results.append((m, outcome))
            print(f"{outcome:9} {m.name:34} {time.monotonic() - started:5.1f} s", flush=True)
    caught = sum(o == "caught" for _, o in results)
    live = [m.name for m, o in results if o == "survived"]
    stale = [m.name for m, o in results if o == "stale"]
    counted = len(results) - len(stale)
    print(f"\nmutation score: {caught} of {counted} caught" + (f" ({100 * caught / counted:.0f}%)" if counted else ""))
    if live:
        print("survived: " + ", ".join(live))
    if stale:
        print("stale (text not found, update the list): " + ", ".join(stale))
    return 1 if live or stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
