"""The concept files' `[detection]` sections compiled once per scan into lookups:
dependency and import names in dictionaries, calls and patterns as compiled
regular expressions, so each file is read once whatever the number of concepts."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from lumente_cli.concepts.detection import (
    CallSignal,
    CodeSignal,
    DependencySignal,
    ImportSignal,
    PatternSignal,
)
from lumente_cli.concepts.schema import Concept
from lumente_cli.scan.manifests import normalise


@dataclass(frozen=True)
class SignalRef:
    """One signal of one concept: what a piece of evidence is evidence for."""

    concept: str
    index: int  # its place in the concept's [[detection.signals]]
    kind: str
    reason: str
    risky: bool


@dataclass(frozen=True)
class Pattern:
    signal: SignalRef
    whole: re.Pattern[str]  # the same, multi-line, over a whole file: one call before reading line by line
    line: re.Pattern[str]  # matched against one line
    needles: frozenset[str] | None  # a file holding none of these (lower-cased) cannot match


@dataclass
class Detectors:
    names: dict[str, str] = field(default_factory=dict)  # concept id -> display name
    dependencies: dict[tuple[str, str], list[SignalRef]] = field(default_factory=lambda: defaultdict(list))
    python_imports: dict[str, list[SignalRef]] = field(default_factory=lambda: defaultdict(list))
    python_calls: dict[str, list[SignalRef]] = field(default_factory=lambda: defaultdict(list))
    js_imports: dict[str, list[SignalRef]] = field(default_factory=lambda: defaultdict(list))
    js_calls: dict[str, list[SignalRef]] = field(default_factory=lambda: defaultdict(list))
    js_call_pattern: re.Pattern[str] | None = None
    python_call_pattern: re.Pattern[str] | None = None  # for a file that does not parse
    code: dict[str, list[SignalRef]] = field(default_factory=lambda: defaultdict(list))
    patterns: dict[str, list[Pattern]] = field(default_factory=lambda: defaultdict(list))  # language -> patterns
    # Every pattern's needles in one regex, to learn in one pass which of them a file holds.
    needle_finder: re.Pattern[str] | None = None
    implied: dict[str, frozenset[str]] = field(default_factory=dict)  # needle -> the needles it begins with

    def needles_in(self, lowered: str) -> set[str]:
        """The needles that occur in `lowered` (a file's text, lower-cased)."""
        if self.needle_finder is None:
            return set()
        found: set[str] = set()
        for longest in set(self.needle_finder.findall(lowered)):
            found |= self.implied[longest]
        return found

    def patterns_for(self, language: str) -> list[Pattern]:
        """A python or javascript file gets its own language's patterns and the 'any' ones."""
        if language == "any":
            return self.patterns["any"]
        return self.patterns[language] + self.patterns["any"]


def compile_detectors(concepts: Iterable[Concept]) -> Detectors:
    d = Detectors()
    for concept in concepts:
        if not concept.detection.signals:
            continue
        d.names[concept.id] = concept.name
        for index, signal in enumerate(concept.detection.signals):
            ref = SignalRef(concept.id, index, signal.kind, signal.reason, signal.risky)
            if isinstance(signal, DependencySignal):
                for name in signal.names:
                    d.dependencies[(signal.ecosystem, normalise(signal.ecosystem, name))].append(ref)
            elif isinstance(signal, ImportSignal):
                table = d.python_imports if signal.language == "python" else d.js_imports
                for name in signal.names:
                    table[name].append(ref)
            elif isinstance(signal, CallSignal):
                table = d.python_calls if signal.language == "python" else d.js_calls
                for name in signal.names:
                    table[name].append(ref)
            elif isinstance(signal, CodeSignal):
                d.code[signal.check].append(ref)
            elif isinstance(signal, PatternSignal):
                languages = {"python", "javascript"} & set(signal.languages) if "any" not in signal.languages \
                    else {"any"}
                for language in languages:
                    d.patterns[language].append(Pattern(ref, re.compile(signal.regex, re.MULTILINE),
                                                        re.compile(signal.regex), needles(signal.regex)))
    every = {n for patterns in d.patterns.values() for p in patterns for n in p.needles or ()}
    if every:
        d.needle_finder = _trie(every)
        d.implied = {n: frozenset(m for m in every if n.startswith(m)) for n in every}
    d.js_call_pattern = _call_pattern(d.js_calls, "$")
    d.python_call_pattern = _call_pattern(d.python_calls, "")
    return d


def _call_pattern(calls: dict[str, list[SignalRef]], extra_word: str) -> re.Pattern[str] | None:
    """`name(` with a word boundary before, for every name at once; longest first."""
    if not calls:
        return None
    names = sorted(calls, key=len, reverse=True)
    word = r"\w" + re.escape(extra_word)
    return re.compile(rf"(?<![{word}])({'|'.join(re.escape(n) for n in names)})\s*\(")


def _trie(words: set[str]) -> re.Pattern[str]:
    """A regex finding, at every position, the longest of `words` that starts there.

    The words are spelt out as a trie (`(?:a(?:bc|xy)|...)`), so that each position costs a
    few character tests rather than one per word; the lookahead lets matches overlap."""
    root: dict[str, dict] = {}
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def spell(node: dict[str, dict]) -> str:
        branches = [re.escape(char) + spell(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body  # greedy: the longer word first

    return re.compile(f"(?=({spell(root)}))")


def dotted_prefixes(name: str, sep: str = ".") -> list[str]:
    """'a.b.c' -> ['a.b.c', 'a.b', 'a']: a signal's name matches the name or any name under it."""
    parts = name.split(sep)
    return [sep.join(parts[:i]) for i in range(len(parts), 0, -1)]


def needles(regex: str) -> frozenset[str] | None:
    """Lower-case strings one of which every match of `regex` must contain, or None when
    no such set can be told from its syntax. A file holding none of them cannot match, so
    the pattern is not run on it: a substring test is far cheaper than a regex search."""
    from re import _parser  # type: ignore[attr-defined]  # the stdlib's own parser of `re` syntax

    try:
        return _required(_parser.parse(regex))
    except (re.error, RecursionError):
        return None


PRODUCT_CAP = 64  # alternatives kept when spelling out `\.(get|post)\(` as ".get(", ".post("


def _exact(items) -> frozenset[str] | None:  # noqa: ANN001 - a re._parser.SubPattern
    """The strings `items` matches, when it is only literals and alternatives of them."""
    from re import _constants as c  # type: ignore[attr-defined]

    out = frozenset({""})
    for op, av in items:
        if op is c.LITERAL:
            options: frozenset[str] | None = frozenset({chr(av).lower()})
        elif op is c.IN and all(o is c.LITERAL for o, _ in av) and len(av) <= 4:
            options = frozenset(chr(v).lower() for _, v in av)
        elif op is c.SUBPATTERN:
            options = _exact(av[3])
        elif op is c.BRANCH:
            branches = [_exact(alt) for alt in av[1]]
            options = None if any(b is None for b in branches) else frozenset().union(*branches)  # type: ignore[arg-type]
        else:
            return None
        if options is None or len(out) * len(options) > PRODUCT_CAP:
            return None
        out = frozenset(a + b for a in out for b in options)
    return out


def _required(items) -> frozenset[str] | None:  # noqa: ANN001 - a re._parser.SubPattern
    from re import _constants as c  # type: ignore[attr-defined]

    candidates: list[frozenset[str]] = []
    run: frozenset[str] = frozenset({""})

    def end_run() -> frozenset[str]:
        if min(map(len, run)):
            candidates.append(run)
        return frozenset({""})

    for op, av in items:
        exact: frozenset[str] | None = None
        if op is c.LITERAL:
            exact = frozenset({chr(av).lower()})
        elif op is c.IN and all(o is c.LITERAL for o, _ in av) and len(av) <= 4:
            exact = frozenset(chr(v).lower() for _, v in av)  # [nN], ["']: one of a few characters
        elif op in (c.SUBPATTERN, c.BRANCH):
            exact = _exact([(op, av)])
        elif op in (c.AT, c.ASSERT_NOT, c.ASSERT):
            continue  # zero-width: the letters either side are still next to each other
        if exact is not None and len(run) * len(exact) <= PRODUCT_CAP:
            run = frozenset(a + b for a in run for b in exact)
            continue
        run = end_run()
        sub: frozenset[str] | None = None
        if op is c.SUBPATTERN:
            sub = _required(av[3])
        elif op is c.BRANCH:
            branches = [_required(alt) for alt in av[1]]
            sub = None if any(b is None for b in branches) else frozenset().union(*branches)  # type: ignore[arg-type]
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT) and av[0] >= 1:
            sub = _required(av[2])
        if sub:
            candidates.append(sub)
    end_run()
    if not candidates:
        return None
    # The most selective: the set whose shortest string is longest.
    return max(candidates, key=lambda s: (min(map(len, s)), -len(s)))
