"""The concept files' `[detection]` sections compiled once per scan into lookups:
dependency and import names in dictionaries, calls as one compiled regular
expression per language, and patterns with the needles a file must hold before
they are searched, so each file is read once whatever the number of concepts."""

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
from lumente_cli.scan import python_prepass
from lumente_cli.scan.needles import Needles, line_local, needles, words_of


@dataclass(frozen=True)
class SignalRef:
    """One signal of one concept: what a piece of evidence is evidence for."""

    concept: str
    index: int  # its place in the concept's [[detection.signals]]
    kind: str
    reason: str
    risky: bool


class Pattern:
    """One `pattern` signal: its regex, compiled on first use (most patterns are never run
    on a given project: a file lacking their needles is not searched), and what its
    syntax tells before any search."""

    __slots__ = ("signal", "regex", "needles", "line_local", "_whole", "_line")

    def __init__(self, signal: SignalRef, regex: str) -> None:
        self.signal, self.regex = signal, regex
        self.needles: Needles | None = needles(regex)
        self.line_local = line_local(regex)  # searching the lines holding a needle is enough
        self._whole: re.Pattern[str] | None = None
        self._line: re.Pattern[str] | None = None

    @property
    def whole(self) -> re.Pattern[str]:
        """The regex over a whole file (multi-line): one call before reading line by line."""
        if self._whole is None:
            self._whole = re.compile(self.regex, re.MULTILINE)
        return self._whole

    @property
    def line(self) -> re.Pattern[str]:
        """The regex against one line."""
        if self._line is None:
            self._line = re.compile(self.regex)
        return self._line


class PatternSet:
    """One language's patterns, indexed by the whole words that let each of them match."""

    def __init__(self, patterns: list[Pattern]) -> None:
        self.patterns = patterns
        self.by_word: dict[bytes, list[int]] = defaultdict(list)
        self.by_folded_word: dict[bytes, list[int]] = defaultdict(list)
        always = []
        for index, pattern in enumerate(patterns):
            need = pattern.needles
            if need is None or need.words is None:
                always.append(index)
                continue
            table = self.by_folded_word if need.folded else self.by_word
            for word in need.words:
                table[word.encode()].append(index)
        self.always = frozenset(always)

    def candidates(self, text: str, words: set[bytes] | None = None) -> list[Pattern]:
        """The patterns that may match in `text`: those whose words it holds, and those
        that have no words to look for. A text with other than ASCII gets them all.
        `words`: the whole words of `text`, or of a text holding it, when known."""
        if not text.isascii():
            return self.patterns
        if words is None:
            words = words_of(text)
        chosen = set(self.always)
        for word in words.intersection(self.by_word):
            chosen.update(self.by_word[word])
        if self.by_folded_word:
            for word in {w.lower() for w in words}.intersection(self.by_folded_word):
                chosen.update(self.by_folded_word[word])
        return [self.patterns[i] for i in sorted(chosen)]


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
    # What a python or javascript file is matched against: its own language's patterns and the 'any' ones.
    pattern_sets: dict[str, PatternSet] = field(default_factory=dict)
    python_words: frozenset[bytes] = frozenset()  # a Python file holding none of these may go unparsed

    def patterns_for(self, language: str) -> PatternSet:
        """A python or javascript file gets its own language's patterns and the 'any' ones."""
        return self.pattern_sets[language]


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
                pattern = Pattern(ref, signal.regex)
                for language in languages:
                    d.patterns[language].append(pattern)
    d.pattern_sets = {language: PatternSet(d.patterns[language] + (d.patterns["any"] if language != "any" else []))
                      for language in ("python", "javascript", "any")}
    d.python_words = python_prepass.wanted_words(d.python_imports, d.python_calls, d.code)
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


def dotted_prefixes(name: str, sep: str = ".") -> list[str]:
    """'a.b.c' -> ['a.b.c', 'a.b', 'a']: a signal's name matches the name or any name under it."""
    parts = name.split(sep)
    return [sep.join(parts[:i]) for i in range(len(parts), 0, -1)]
