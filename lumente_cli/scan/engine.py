"""Running a scan: list the project's files, read each once, match every concept's
signals, and rank the concepts by their evidence.

Bounded work: a cap on files, on each file's size, and on time; a limit that is hit
is reported in the result, with what was found until then.
"""

from __future__ import annotations

import math
import os
import re
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lumente_cli.concepts.schema import Concept
from lumente_cli.scan import javascript_source, python_source
from lumente_cli.scan.detectors import Detectors, Pattern, SignalRef, compile_detectors, dotted_prefixes
from lumente_cli.scan.evidence import WEIGHTS, Evidence, Finding, ScanResult, snippet
from lumente_cli.scan.files import list_files, read_text
from lumente_cli.scan.manifests import line_of, reader_for
from lumente_cli.scan.needles import words_of
from lumente_cli.scan.python_prepass import needs_syntax

PYTHON_EXTENSIONS = frozenset({".py", ".pyi"})
# A committed .env file: every secret in it is in the repository's history.
ENV_FILE = re.compile(r"^\.env(\.[\w.-]+)?$")
ENV_TEMPLATES = (".example", ".sample", ".template", ".dist", ".defaults")
ENV_CONCEPT = "env_secrets"
ENV_REASON = "commits a .env file to git"
_PY_COMMENT_LINE = re.compile(r"(?m)^[ \t]*#[^\n]*")
_PY_IMPORT_LINE = re.compile(r"(?m)^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import|import[ \t]+([\w.]+))")
EVIDENCE_PER_FILE = 3  # lines of one signal kept per file
EVIDENCE_SHOWN = 12  # lines kept per finding


@dataclass(frozen=True)
class Limits:
    max_files: int = 50_000
    max_file_bytes: int = 1 << 20
    max_lockfile_bytes: int = 16 << 20  # generated, and often far larger than any source file
    max_seconds: float = 30.0


@dataclass
class _Hits:
    files: set[str] = field(default_factory=set)
    evidence: list[Evidence] = field(default_factory=list)
    occurrences: int = 0


class _File:
    """One file's text and, on demand, its lines and line starts."""

    def __init__(self, rel: str, text: str, *, code: bool) -> None:
        self.rel, self.text, self.code = rel, text, code
        self._lines: list[str] | None = None
        self._starts: list[int] | None = None
        self.secret_values: dict[int, list[str]] = {}

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.text.split("\n")
        return self._lines

    def line_at(self, offset: int) -> int:
        if self._starts is None:
            self._starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        return bisect_right(self._starts, offset)

    def line_text(self, number: int) -> str:
        lines = self.lines
        return lines[number - 1] if 0 < number <= len(lines) else ""


class _Scan:
    def __init__(self, detectors: Detectors) -> None:
        self.d = detectors
        self.hits: dict[SignalRef, _Hits] = {}

    def hit(self, ref: SignalRef, file: _File, line: int) -> None:
        hits = self.hits.setdefault(ref, _Hits())
        hits.occurrences += 1
        if len(hits.evidence) >= EVIDENCE_SHOWN and hits.evidence[-1].path != file.rel:
            # Files come in path order and a finding shows its earliest lines per signal:
            # this signal already holds all it could show, so only the counts grow.
            hits.files.add(file.rel)
            return
        if file.rel in hits.files and sum(e.path == file.rel for e in hits.evidence[-EVIDENCE_PER_FILE:]) \
                >= EVIDENCE_PER_FILE:
            return
        if any(e.path == file.rel and e.line == line for e in hits.evidence[-EVIDENCE_PER_FILE:]):
            return
        hits.files.add(file.rel)
        values = tuple(file.secret_values.get(line, ()))
        shown = snippet(file.line_text(line), values, code=file.code)
        hits.evidence.append(Evidence(file.rel, line, ref.kind, ref.reason, shown, ref.risky))

    # per kind of file ------------------------------------------------------------

    def manifest(self, file: _File) -> None:
        reader = reader_for(file.rel)
        if reader is None:
            return
        for declared in reader(file.text):
            refs = self.d.dependencies.get((declared.ecosystem, declared.name))
            if refs is None and declared.ecosystem == "go":  # a module under a listed path: .../jwt/v5
                refs = next((self.d.dependencies[("go", p)] for p in dotted_prefixes(declared.name, "/")[1:]
                             if ("go", p) in self.d.dependencies), None)
            for ref in refs or ():
                self.hit(ref, file, declared.line or line_of(file.text, declared.name))

    def python(self, file: _File) -> None:
        stripped = _PY_COMMENT_LINE.sub("", file.text) if "#" in file.text else file.text
        words = words_of(file.text) if file.text.isascii() else None
        if words is not None and not needs_syntax(file.text, words, self.d.python_words, self.d.code):
            self.patterns(file, stripped, "python", words)  # nothing the syntax could show: no parse
            return
        facts = python_source.analyse(file.text)
        if facts is None:  # does not parse: imports and calls by pattern
            for m in _PY_IMPORT_LINE.finditer(stripped):
                self._python_import(m.group(1) or m.group(2), file, stripped.count("\n", 0, m.start()) + 1)
            if self.d.python_call_pattern is not None:
                for m in self.d.python_call_pattern.finditer(stripped):
                    for ref in self.d.python_calls[m.group(1)]:
                        self.hit(ref, file, stripped.count("\n", 0, m.start()) + 1)
        else:
            file.secret_values = facts.secret_values
            for module, line in facts.imports:
                self._python_import(module, file, line)
            for name, line in facts.calls:
                for prefix in dotted_prefixes(name):
                    for ref in self.d.python_calls.get(prefix, ()):
                        self.hit(ref, file, line)
            for check, lines in facts.checks.items():
                for ref in self.d.code.get(check, ()):
                    for line in lines:
                        self.hit(ref, file, line)
        self.patterns(file, stripped, "python", words)

    def _python_import(self, module: str, file: _File, line: int) -> None:
        for prefix in dotted_prefixes(module):
            for ref in self.d.python_imports.get(prefix, ()):
                self.hit(ref, file, line)

    def javascript(self, file: _File) -> None:
        js = javascript_source.blank(file.text)
        for spec, line in javascript_source.imports(js):
            bare = spec.removeprefix("node:")
            for prefix in dict.fromkeys([spec, *dotted_prefixes(bare, "/")]):
                for ref in self.d.js_imports.get(prefix, ()):
                    self.hit(ref, file, line)
        if self.d.js_call_pattern is not None:
            for m in self.d.js_call_pattern.finditer(js.code):
                for ref in self.d.js_calls[m.group(1)]:
                    self.hit(ref, file, file.line_at(m.start()))
        self.patterns(file, js.text, "javascript")

    def patterns(self, file: _File, text: str, language: str, words: set[bytes] | None = None) -> None:
        """The lines where each pattern matches, at most EVIDENCE_PER_FILE per pattern.

        A line counts when the pattern matches the line on its own and a match over the
        whole text starts on it (a match of the multi-line form may run past the end of
        its line). For a pattern that is `line_local` the first implies the second, so only
        the lines holding one of its needles are searched. `words`: those of a text holding
        `text`, when known."""
        lowered: str | None = None
        for pattern in self.d.patterns_for(language).candidates(text, words):
            need = pattern.needles
            if need is None:
                self._search_whole(pattern, file, text)
                continue
            hay = text
            if need.folded:
                hay = lowered = text.lower() if lowered is None else lowered
            if not need.admit(hay):
                continue
            # Lower-casing keeps offsets unless some character grew (İ): then search it all.
            if pattern.line_local and len(hay) == len(text):
                self._search_lines(pattern, file, text, _lines_holding(hay, need.clauses[0]))
            else:
                self._search_whole(pattern, file, text)

    def _search_lines(self, pattern: Pattern, file: _File, text: str, starts: list[int]) -> None:
        found = 0
        for start in starts:
            end = text.find("\n", start)
            if pattern.line.search(text[start:] if end < 0 else text[start:end]):
                self.hit(pattern.signal, file, text.count("\n", 0, start) + 1)
                found += 1
                if found == EVIDENCE_PER_FILE:
                    return

    def _search_whole(self, pattern: Pattern, file: _File, text: str) -> None:
        # Jump from match to match over the whole text, and confirm each on its own line.
        found, pos = 0, 0
        while found < EVIDENCE_PER_FILE:
            m = pattern.whole.search(text, pos)
            if m is None:
                break
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.start())
            end = len(text) if end < 0 else end
            if pattern.line.search(text[start:end]):
                self.hit(pattern.signal, file, text.count("\n", 0, start) + 1)
                found += 1
            pos = end + 1

    def tracked_env(self, file: _File) -> None:
        if ENV_CONCEPT not in self.d.names:
            return
        ref = SignalRef(ENV_CONCEPT, -1, "code", ENV_REASON, True)
        first = next((n for n, line in enumerate(file.lines, 1) if "=" in line and not line.lstrip().startswith("#")), 1)
        self.hit(ref, file, first)

    # the result ---------------------------------------------------------------------

    def findings(self) -> tuple[Finding, ...]:
        by_concept: dict[str, list[tuple[SignalRef, _Hits]]] = {}
        for ref, hits in self.hits.items():
            by_concept.setdefault(ref.concept, []).append((ref, hits))
        out = []
        for concept, fired in by_concept.items():
            score = sum(WEIGHTS[ref.kind] * (1 + math.log2(len(hits.files))) for ref, hits in fired)
            fired.sort(key=lambda item: (not item[0].risky, -WEIGHTS[item[0].kind], item[0].index))
            evidence = sorted((e for _, hits in fired for e in hits.evidence),
                              key=lambda e: (not e.risky, -WEIGHTS[e.kind], e.path, e.line))
            out.append(Finding(
                concept=concept, name=self.d.names[concept], score=round(score, 1),
                risky=any(ref.risky for ref, _ in fired),
                reasons=tuple(dict.fromkeys(ref.reason for ref, _ in fired)),
                files=len({f for _, hits in fired for f in hits.files}), signals=len(fired),
                occurrences=sum(hits.occurrences for _, hits in fired), evidence=tuple(evidence[:EVIDENCE_SHOWN]),
            ))
        out.sort(key=lambda f: (-f.score, f.concept))
        return tuple(out)


def _lines_holding(text: str, strings: frozenset[str]) -> list[int]:
    """The offsets where the lines holding any of `strings` start, in order."""
    starts: set[int] = set()
    for string in strings:
        at = text.find(string)
        while at >= 0:
            starts.add(text.rfind("\n", 0, at) + 1)
            end = text.find("\n", at)
            if end < 0:
                break
            at = text.find(string, end + 1)
    return sorted(starts)


# Below this many files one process is quicker than starting workers.
PARALLEL_MIN_FILES = 2_000
SLICES_PER_WORKER = 4


@dataclass
class _Part:
    """What one run over a slice of the listing found."""

    hits: dict[SignalRef, _Hits]
    scanned: int
    skipped: dict[str, int]
    timed_out: bool


def scan(root: Path, concepts: Iterable[Concept], *, limits: Limits = Limits(),
         clock: Callable[[], float] = time.monotonic, workers: int | None = None) -> ScanResult:
    """Scan the folder `root` for the concepts' signals. Reads only; prints nothing.

    A large tree is split into contiguous slices of the sorted listing, read in forked
    worker processes (one per CPU); their findings merge in path order, so the result
    is the same as one process's."""
    began = clock()
    detectors = compile_detectors(concepts)
    listing = list_files(root, max_files=limits.max_files)
    paths = sorted(listing.paths)  # path order: see _Scan.hit
    workers = _workers(len(paths)) if workers is None else max(1, workers)
    job = _Job(detectors, root, limits, began, clock, listing.source, frozenset(listing.tracked))
    if workers > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # Several slices per worker, handed out as workers come free: a project's costly
        # files sit together in path order (all its Python under one folder, say).
        size = -(-len(paths) // (workers * SLICES_PER_WORKER))
        slices = [paths[i : i + size] for i in range(0, len(paths), size)]
        global _JOB
        _JOB = job  # the forked workers inherit it: nothing compiled is pickled
        try:
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
                parts = list(pool.map(_run_slice, slices))
        finally:
            _JOB = None
    else:
        parts = [job.run(paths)]
    run = _Scan(detectors)
    skipped = dict(listing.skipped)
    for part in parts:
        for ref, hits in part.hits.items():
            merged = run.hits.setdefault(ref, _Hits())
            merged.files |= hits.files
            merged.evidence += hits.evidence[: max(0, EVIDENCE_SHOWN - len(merged.evidence))]
            merged.occurrences += hits.occurrences
        for why, count in part.skipped.items():
            skipped[why] = skipped.get(why, 0) + count
    stopped = (["files"] if listing.truncated else []) + (["time"] if any(p.timed_out for p in parts) else [])
    return ScanResult(str(root), listing.source, len(listing.paths), sum(p.scanned for p in parts), skipped,
                      tuple(stopped), clock() - began, run.findings())


def _workers(files: int) -> int:
    import multiprocessing

    if files < PARALLEL_MIN_FILES or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return min(os.cpu_count() or 1, 4)


@dataclass(frozen=True)
class _Job:
    detectors: Detectors
    root: Path
    limits: Limits
    began: float
    clock: Callable[[], float]
    source: str
    tracked: frozenset[str]

    def run(self, paths: list[str]) -> _Part:
        run = _Scan(self.detectors)
        skipped: dict[str, int] = {}
        scanned = 0
        for index, rel in enumerate(paths):
            if index % 64 == 0 and self.clock() - self.began > self.limits.max_seconds:
                return _Part(run.hits, scanned, skipped, True)
            name = rel.rsplit("/", 1)[-1]
            manifest = reader_for(rel) is not None
            text, why = read_text(self.root, rel, max_bytes=self.limits.max_lockfile_bytes if manifest
                                  else self.limits.max_file_bytes)
            if text is None:
                skipped[why or "unreadable"] = skipped.get(why or "unreadable", 0) + 1
                continue
            scanned += 1
            extension = os.path.splitext(name)[1].lower()
            file = _File(rel, text, code=extension in PYTHON_EXTENSIONS or extension in javascript_source.EXTENSIONS)
            if manifest:
                run.manifest(file)
            if extension in PYTHON_EXTENSIONS:
                run.python(file)
            elif extension in javascript_source.EXTENSIONS:
                run.javascript(file)
            else:
                run.patterns(file, text, "any")
            if self.source == "git" and rel in self.tracked and ENV_FILE.match(name) \
                    and not name.endswith(ENV_TEMPLATES):
                run.tracked_env(file)
        return _Part(run.hits, scanned, skipped, False)


_JOB: _Job | None = None


def _run_slice(paths: list[str]) -> _Part:
    assert _JOB is not None, "a worker runs only under scan()"
    return _JOB.run(paths)
