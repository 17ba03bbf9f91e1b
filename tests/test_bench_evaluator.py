"""bench/evaluator.py measures the judge on the independent corpus: it runs on both
providers, docs/benchmarks.md quotes its last results, and the offline judge does
not fall back below what the corpus last measured."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections import Counter

import pytest
from fake_messages_api import FakeMessagesAPI
from helpers import BENCH, load_bench
from sessions import Rig

from lumente_cli.parts import PARTS

ROOT = BENCH.parent
bench = load_bench("evaluator")


def test_the_corpus_is_independent_spread_and_frozen_in_shape():
    cases = bench.load_corpus()
    assert len(cases) >= 40 * 13
    per_concept = Counter(c.concept for c in cases)
    assert min(per_concept.values()) >= 40
    kinds = Counter(c.kind for c in cases)
    for kind in ("paraphrase_good", "textbook_good", "long_correct", "partial_vague", "partial_one_idea",
                 "misconception", "negated", "keyword_list", "off_topic", "dont_know", "echoed_question",
                 "wrong_concept", "refuting_misconception"):
        assert kinds[kind] >= 13, kind
    assert len({c.id for c in cases}) == len(cases)
    holdout = sum(c.holdout for c in cases) / len(cases)
    assert 0.2 < holdout < 0.4
    for path in (ROOT / "tests" / "data" / "corpus").glob("*.toml"):
        for a in tomllib.loads(path.read_text("utf-8"))["answer"]:
            assert list(a) == ["id", "concept", "part", "kind", "answer", "expected", "why"]


@pytest.mark.parametrize("folder", ["PROBES", "HELD_ASIDE", "HELD_ASIDE_2"])
def test_the_probes_and_held_aside_sets_cover_every_concept_apart_from_the_corpus(folder):
    sets = bench.load_corpus(getattr(bench, folder))
    assert len({c.concept for c in sets}) == len(bench.load_library().ids())
    assert len({c.id for c in sets}) == len(sets)
    others = bench.load_corpus() + [c for f in ("PROBES", "HELD_ASIDE", "HELD_ASIDE_2") if f != folder
                                    for c in bench.load_corpus(getattr(bench, f))]
    assert not {c.id for c in sets} & {c.id for c in others}
    assert {c.kind for c in sets} <= {"negated", "misconception", "paraphrase_good", "long_correct",
                                      "refuting_misconception", "partial_one_idea"}


def test_the_docs_quote_the_last_results():
    doc = json.loads((BENCH / "results" / "evaluator.json").read_text("utf-8"))
    docs = (ROOT / "docs" / "benchmarks.md").read_text("utf-8")
    assert bench.tables(doc["halves"]) in docs, "docs/benchmarks.md is stale: python bench/evaluator.py"


def test_the_offline_judge_holds_what_the_corpus_last_measured():
    """A change that makes the judge praise wrong answers again fails here."""
    doc = json.loads((BENCH / "results" / "evaluator.json").read_text("utf-8"))
    library = bench.load_library()
    now, _ = bench.measure(bench.offline_judge(library), *bench.load_sets(library))
    assert now == doc["halves"], "the judge's verdicts changed: rerun python bench/evaluator.py and read the table"


def test_the_bench_judges_each_answer_as_a_new_students_session_does(tmp_path):
    """What the bench measures is what a teacher scripting `lumente practice` with a fresh
    data folder meets: the same verdicts, after the same guided questions and cues."""
    library = bench.load_library()
    closures = [c for c in bench.load_sets(library)[0] if c.concept == "closures"]
    chosen = {p: next(c for c in closures if c.part == p) for p in PARTS}
    rig = Rig(tmp_path, concept_id="closures")
    try:
        rig.run([chosen[p].answer for p in PARTS], predict=4, memory_on=False)
    finally:
        rig.close()
    in_session = {e["part"]: e["verdict"] for e in rig.events if e.get("event") == "verdict" and e["kind"] == "answer"}
    judge = bench.offline_judge(library)
    assert in_session == {p: judge(c) for p, c in chosen.items()}
    shown = {e["part"]: (e["prompt"], tuple(e["cues"]), e["level"]) for e in rig.events if e.get("event") == "part_started"}
    assert shown == {p: (c.shown.prompt, c.shown.cues, c.level) for p, c in chosen.items()}
    assert all(c.shown.prompt and c.shown.cues for c in chosen.values())


def test_a_smoke_run_prints_the_tables_and_writes_nothing():
    before = (ROOT / "docs" / "benchmarks.md").read_bytes()
    proc = subprocess.run([sys.executable, str(BENCH / "evaluator.py"), "--limit", "20"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "exact agreement" in proc.stdout and "Confusion matrix" in proc.stdout
    assert (ROOT / "docs" / "benchmarks.md").read_bytes() == before


def test_the_claude_judge_runs_on_the_same_corpus_against_the_messages_api():
    with FakeMessagesAPI() as api:
        env = {"ANTHROPIC_API_KEY": "sk-ant-test-bench", "ANTHROPIC_BASE_URL": api.url, "LUMENTE_MODEL": "claude-haiku-5-5"}
        import os

        proc = subprocess.run([sys.executable, str(BENCH / "evaluator.py"), "--provider", "claude", "--limit", "3"],
                              capture_output=True, text=True, timeout=180, env={**os.environ, **env})
    assert proc.returncode == 0, proc.stderr
    assert "Evaluator: claude" in proc.stdout
    assert api.roles() and set(api.roles()) == {"evaluator"}
    assert len(api.seen) == 18  # 3 answers from each half, the probes, both held-aside sets and the generated


def test_the_claude_judge_needs_a_key():
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "LUMENTE"))}
    proc = subprocess.run([sys.executable, str(BENCH / "evaluator.py"), "--provider", "claude", "--limit", "1"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode != 0 and "ANTHROPIC_API_KEY" in proc.stderr and "Traceback" not in proc.stderr
