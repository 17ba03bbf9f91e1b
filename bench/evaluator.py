"""How well the evaluator judges: agreement with a labelled corpus it was not tuned on.

The corpus (tests/data/corpus/*.toml) was written and labelled by helpers who saw only
each concept's name, questions, reference map and grading standard, never the rubric;
its labels were frozen before the first run. A fixed 30% of it (chosen by a hash of each
answer's id) is the holdout: kept aside while tuning, reported next to the rest.
Generated cases add what no writer needs to invent: each part's question, cues and
hints pasted back as the answer, after the session showed them (labelled missing).
The probes (tests/data/probes/*.toml) came later, written and labelled the same way to
look for what the corpus does not hold (negations phrased every way, misconceptions
stated plainly, paraphrases far from the reference's words, correct answers that reject
a misconception on the way); they were used for tuning, so they are reported as a set of
their own and never as held out. The held-aside sets (tests/data/heldaside/*.toml) were
written the same way after a round of tuning and measured when they arrived: wrong claims
amid right ones, and correct answers short and long. Half of the wrong-claims set (by a
hash of the id) has since been read to find mechanisms; the rest is unread. Their column
says how the judge does on answers it was not tuned to. The second held-aside set
(tests/data/heldaside2/) was written the same way on 2026-12-02, once the first had been
half read: a good paraphrase, one idea only, a negated and a misconception answer for every
part of every concept, all unread while tuning.

    python bench/evaluator.py                 # offline judge, both halves, docs updated
    python bench/evaluator.py --provider claude   # the Claude judge (needs ANTHROPIC_API_KEY)
    python bench/evaluator.py --errors        # list the disagreements of the tuning half and the probes
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tomllib
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus"
PROBES = ROOT / "tests" / "data" / "probes"
HELD_ASIDE = ROOT / "tests" / "data" / "heldaside"
HELD_ASIDE_2 = ROOT / "tests" / "data" / "heldaside2"
RESULTS = ROOT / "bench" / "results" / "evaluator.json"
DOCS = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- bench:evaluator:begin -->", "<!-- bench:evaluator:end -->"
VERDICTS = ("solid", "partial", "missing")
HOLDOUT_SHARE = 3  # in tenths

sys.path.insert(0, str(Path(__file__).resolve().parent))  # report.py beside this script
import report  # noqa: E402

if TYPE_CHECKING:
    from lumente_cli.concepts.library import Library

try:
    from lumente_cli.agents.contracts import EvaluateInput, Shown
    from lumente_cli.concepts.library import load_library
except ImportError:  # pragma: no cover - a message instead of a traceback
    sys.exit("Lumente is not installed: pip install -e '.[test]' first, then run python bench/evaluator.py")


@dataclass(frozen=True)
class Case:
    id: str
    concept: str
    part: str
    kind: str
    answer: str
    expected: str
    shown: Shown = Shown()
    level: int = 3

    @property
    def holdout(self) -> bool:
        return hashlib.blake2b(self.id.encode(), digest_size=2).digest()[0] % 10 < HOLDOUT_SHARE


def load_corpus(folder: Path = CORPUS) -> list[Case]:
    cases = []
    for path in sorted(folder.glob("*.toml")):
        for a in tomllib.loads(path.read_text("utf-8"))["answer"]:
            cases.append(Case(a["id"], a["concept"], a["part"], a["kind"], a["answer"], a["expected"]))
    return cases


NEW_STUDENT_LEVEL = 2  # where every part starts for someone with no history


def as_new_student(cases: list[Case], library: Library) -> list[Case]:
    """Each answer judged as a new student's session would judge it: after the part was
    shown at the level it starts at (guided questions and cues), which the judge must
    tell copying from answering. This is how a teacher scripting `lumente practice`
    with a fresh data folder meets the judge."""
    from dataclasses import replace

    from lumente_cli.agents.contracts import AskInput
    from lumente_cli.agents.offline import OfflineAgents

    shown: dict[tuple[str, str], Shown] = {}
    agents: dict[str, OfflineAgents] = {}
    out = []
    for c in cases:
        if (c.concept, c.part) not in shown:
            if c.concept not in agents:
                agents[c.concept] = OfflineAgents(library.resolve(c.concept))
            q = agents[c.concept].ask(AskInput(concept=c.concept, part=c.part, level=NEW_STUDENT_LEVEL))
            shown[c.concept, c.part] = Shown(prompt=q.prompt, cues=tuple(q.cues), worked_example=q.worked_example or "")
        out.append(replace(c, shown=shown[c.concept, c.part], level=NEW_STUDENT_LEVEL))
    return out


def generated_cases(library: Library) -> list[Case]:
    """Pasting back what the session showed: never understanding, always missing."""
    cases = []
    for cid in library.ids():
        concept = library.resolve(cid)
        for key, part in concept.parts():
            guided = "\n".join(part.guided)
            at_level_2 = Shown(prompt=guided, cues=tuple(part.cues))
            cases.append(Case(f"{cid}.{key}.question", cid, key, "pasted_question", part.question, "missing",
                              Shown(prompt=part.question)))
            cases.append(Case(f"{cid}.{key}.guided", cid, key, "pasted_question", guided, "missing", at_level_2, 2))
            cases.append(Case(f"{cid}.{key}.cues", cid, key, "pasted_cues", " ".join(part.cues), "missing",
                              at_level_2, 2))
            for i, hint in enumerate(part.hints):
                shown = Shown(prompt=part.question, hints=tuple(part.hints[: i + 1]))
                cases.append(Case(f"{cid}.{key}.hint{i + 1}", cid, key, "pasted_hint", hint, "missing", shown))
            last = part.hints[-1].split()
            reworded = " ".join(w for i, w in enumerate(last) if i % 6 != 5)
            cases.append(Case(f"{cid}.{key}.hint_reworded", cid, key, "pasted_hint", reworded, "missing",
                              Shown(prompt=part.question, hints=tuple(part.hints))))
    return cases


def load_sets(library: Library, limit: int = 0) -> tuple[list[Case], ...]:
    """The corpus, probes, first held-aside set, generated cases and second held-aside set,
    as `measure` takes them; `limit` keeps the first N of each (of each half of the corpus)."""
    corpus = as_new_student(load_corpus(), library)
    generated = generated_cases(library)
    if limit:
        corpus = [c for c in corpus if not c.holdout][:limit] + [c for c in corpus if c.holdout][:limit]
        generated = generated[:limit]
    probes, held_aside, held_aside_2 = (as_new_student(load_corpus(folder)[: limit or None], library)
                                        for folder in (PROBES, HELD_ASIDE, HELD_ASIDE_2))
    return corpus, probes, held_aside, generated, held_aside_2


def offline_judge(library: Library) -> Callable[[Case], str]:
    from lumente_cli.agents.offline import OfflineAgents

    agents = {cid: OfflineAgents(library.resolve(cid)) for cid in library.ids()}

    def judge(case: Case) -> str:
        inp = EvaluateInput(concept=case.concept, part=case.part, level=case.level, answer=case.answer, shown=case.shown)
        return agents[case.concept].evaluate(inp).verdict

    return judge


def claude_judge(library: Library) -> Callable[[Case], str]:
    from lumente_cli import settings as lumente_settings
    from lumente_cli.agents.factory import make_agents

    settings = lumente_settings.load()
    if not settings["anthropic_api_key"]:
        sys.exit("--provider claude needs ANTHROPIC_API_KEY (or `lumente config set anthropic_api_key`).")
    agents = {}
    for cid in library.ids():
        agents[cid], _ = make_agents(library.resolve(cid), settings, "claude", notify=lambda m: print(m, file=sys.stderr))

    def judge(case: Case) -> str:
        inp = EvaluateInput(concept=case.concept, part=case.part, level=case.level, answer=case.answer, shown=case.shown)
        return agents[case.concept].evaluate(inp).verdict

    return judge


def measure(judge: Callable[[Case], str], corpus: list[Case], probes: list[Case], held_aside: list[Case],
            generated: list[Case], held_aside_2: list[Case]) -> tuple[dict[str, dict], dict[str, str]]:
    got = {c.id: judge(c) for c in corpus + probes + held_aside + held_aside_2 + generated}
    halves = {
        "tuning": score([c for c in corpus if not c.holdout], got),
        "holdout": score([c for c in corpus if c.holdout], got),
        "probes": score(probes, got),
        "held aside": score(held_aside, got),
        "held aside 2": score(held_aside_2, got),
        "generated": score(generated, got),
    }
    return halves, got


def score(cases: list[Case], got: dict[str, str]) -> dict:
    n = len(cases)
    matrix = {e: Counter() for e in VERDICTS}
    for c in cases:
        matrix[c.expected][got[c.id]] += 1

    def share(sel: list[Case], ok: Callable[[Case], bool]) -> float | None:
        return round(100 * sum(ok(c) for c in sel) / len(sel), 1) if sel else None

    def of_kind(*kinds: str) -> list[Case]:
        return [c for c in cases if c.kind in kinds]

    by_kind = {k: share(of_kind(k), lambda c: got[c.id] == c.expected) for k in sorted({c.kind for c in cases})}
    by_concept = defaultdict(list)
    for c in cases:
        by_concept[c.concept].append(c)
    missing = [c for c in cases if c.expected == "missing"]
    return {
        "answers": n,
        "exact": share(cases, lambda c: got[c.id] == c.expected),
        "solid_vs_not": share(cases, lambda c: (got[c.id] == "solid") == (c.expected == "solid")),
        "missing_judged_solid": share(missing, lambda c: got[c.id] == "solid"),
        "missing_judged_solid_count": sum(got[c.id] == "solid" for c in missing),
        "negated_judged_solid_per_100": share(of_kind("negated"), lambda c: got[c.id] == "solid"),
        "misconception_judged_solid_per_100": share(of_kind("misconception"), lambda c: got[c.id] == "solid"),
        "paraphrase_judged_solid": share([c for c in of_kind("paraphrase_good") if c.expected == "solid"],
                                         lambda c: got[c.id] == "solid"),
        "matrix": {e: {g: matrix[e][g] for g in VERDICTS} for e in VERDICTS},
        "by_kind": by_kind,
        "by_concept": {k: share(v, lambda c: got[c.id] == c.expected) for k, v in sorted(by_concept.items())},
    }


HEADLINE = [
    ("answers", "answers", ""),
    ("exact", "exact agreement", "%"),
    ("solid_vs_not", "solid vs not solid", "%"),
    ("missing_judged_solid", "labelled missing, judged solid", "%"),
    ("negated_judged_solid_per_100", "negated answers judged solid, per 100", ""),
    ("misconception_judged_solid_per_100", "misconceptions judged solid, per 100", ""),
    ("paraphrase_judged_solid", "good paraphrases judged solid", "%"),
]


def _cell(value: float | None, unit: str) -> str:
    return "—" if value is None else f"{value}{unit}"


def tables(halves: dict[str, dict]) -> str:
    names = list(halves)
    lines = ["| figure | " + " | ".join(names) + " |", "| --- |" + " ---: |" * len(names)]
    for key, label, unit in HEADLINE:
        lines.append(f"| {label} | " + " | ".join(_cell(halves[h][key], unit) for h in names) + " |")
    both = halves[names[0]]
    lines += ["", "Confusion matrix, tuning half + holdout (rows: label, columns: verdict):", "",
              "| label | solid | partial | missing |", "| --- | ---: | ---: | ---: |"]
    total = {e: Counter() for e in VERDICTS}
    for h in ("tuning", "holdout"):
        if h in halves:
            for e in VERDICTS:
                total[e].update(halves[h]["matrix"][e])
    for e in VERDICTS:
        lines.append(f"| {e} | " + " | ".join(str(total[e][g]) for g in VERDICTS) + " |")
    kinds = sorted({k for h in names for k in halves[h]["by_kind"]})
    lines += ["", "Agreement by kind of answer:", "", "| kind | " + " | ".join(names) + " |", "| --- |" + " ---: |" * len(names)]
    for k in kinds:
        lines.append(f"| {k} | " + " | ".join(_cell(halves[h]["by_kind"].get(k), "%") for h in names) + " |")
    concepts = sorted(both["by_concept"])
    lines += ["", "Agreement by concept:", "", "| concept | " + " | ".join(names) + " |", "| --- |" + " ---: |" * len(names)]
    for k in concepts:
        lines.append(f"| {k} | " + " | ".join(_cell(halves[h]["by_concept"].get(k), "%") for h in names) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--provider", choices=("offline", "claude"), default="offline")
    ap.add_argument("--errors", action="store_true", help="list the disagreements of the tuning half and the probes (never the holdout's)")
    ap.add_argument("--no-write", action="store_true", help="print only; leave results and docs alone")
    ap.add_argument("--limit", type=int, default=0, help="judge only the first N answers of each half (a smoke run)")
    args = ap.parse_args(argv)

    library = load_library()
    args.no_write = args.no_write or bool(args.limit)
    corpus, probes, held_aside, generated, held_aside_2 = load_sets(library, args.limit)
    judge = offline_judge(library) if args.provider == "offline" else claude_judge(library)
    halves, got = measure(judge, corpus, probes, held_aside, generated, held_aside_2)
    text = tables(halves)
    print(f"Evaluator: {args.provider}\n")
    print(text)
    if args.errors:
        print("\nDisagreements in the tuning half and the probes:")
        for c in [c for c in corpus if not c.holdout] + probes:
            if got[c.id] != c.expected:
                print(f"  {c.id} [{c.kind}] {c.concept}.{c.part}: label {c.expected}, judged {got[c.id]}\n      {c.answer}")
        for c in generated:
            if got[c.id] != c.expected:
                print(f"  {c.id} [{c.kind}]: judged {got[c.id]}\n      {c.answer}")
    if not args.no_write and args.provider == "offline":
        doc = {
            "section": "evaluator",
            "provider": args.provider,
            "measured_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "halves": halves,
        }
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(doc, indent=2) + "\n", "utf-8")
        update_docs(text)
    return 0


def update_docs(text: str) -> None:
    report.write_block("evaluator", f"{BEGIN}\n{text}\n{END}", heading="Evaluator", docs=DOCS)


if __name__ == "__main__":
    os.environ.setdefault("LUMENTE_PROVIDER", "offline")
    raise SystemExit(main())
