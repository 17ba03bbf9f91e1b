"""Just enough English for rubric matching: normalising, word stems, clauses,
and the phrasing syntax of concept files ('word word|synonym hyphen-word')."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

_CONTRACTIONS = [
    (re.compile(r"\bcan['’]t\b"), "can not"),
    (re.compile(r"\bwon['’]t\b"), "will not"),
    (re.compile(r"\bshan['’]t\b"), "shall not"),
    (re.compile(r"n['’]t\b"), " not"),
    (re.compile(r"['’](re|ve|ll|d|m)\b"), ""),
    (re.compile(r"['’]s\b"), ""),
    # Typed without the apostrophe, as students in a hurry do: "doesnt", "isnt", "cant".
    (re.compile(r"\bcant\b"), "can not"),
    (re.compile(r"\bwont\b"), "will not"),
    (re.compile(r"\b(do|does|did|is|are|was|were|has|have|had|could|should|would|must|need)nt\b"), r"\1 not"),
]
# A full stop after these abbreviations does not end a sentence ("hashing vs. encryption").
_ABBREVIATIONS = re.compile(r"\b(e\.g|i\.e|vs|cf)\.")
_WORD = re.compile(r"[a-z0-9+#]+")
_SENTENCE_SPLIT = re.compile(r"[.!?;\n]+(?:\s|$)|[!?;\n]+")
_CLAUSE_SPLIT = re.compile(r",|:|\(|\)|—|–|\b(?:but|while|whereas|although|though|however|unlike|instead|vs|versus)\b")
_AND = re.compile(r"\band\b")
# A finite verb on both sides of "and" marks two clauses ("hashing is one way and
# encryption is reversible"); without one it joins words ("hashing and encryption are").
_CLAUSE_VERBS = frozenset(
    "is are was were can cannot could does do did will would has have had should must may might means mean".split()
)

NEGATIONS = frozenset(
    {"not", "no", "never", "neither", "nor", "without", "unlike", "nothing", "none", "instead", "rather", "cannot",
     "impossible", "infeasible", "unable", "ignore", "ignores", "ignoring", "ignored"}
)
FUNCTION_WORDS = frozenset(
    """a an the and or but so because if then than as of to in on at by for from with about into onto
    over under between through is are was were be been being am it its this that these those there here
    which who whom whose what when where why how not no can could will would shall should may might must
    do does did done has have had having i you we they he she them us our your their my me his her
    also only just very more most less least same other another each every any some all both either
    such one own up out via per like lets let get gets make makes made use uses used mean means""".split()
)

# No "-est": it cut "request" to "requ" and "digest" to "dig", while "requests" kept
# its stem, so the singular and the plural no longer matched.
_SUFFIXES = (
    "izations", "isations", "ization", "isation", "ations", "ation", "ings", "ing", "ments", "ment",
    "ness", "ions", "ion", "ies", "ied", "ers", "er", "ed", "es", "ly", "s",
)
# These need a longer stem, or "order"/"ordered" and "apply"/"applies" part ways.
_LONG_STEM_SUFFIXES = frozenset({"ers", "er", "ly"})
# After these, a stem ending in "-er" is cut again, so that "tamper", "tampered" and
# "tampering" (and "filter", "answer", "register"...) all meet.
_VERB_SUFFIXES = frozenset({"ings", "ing", "ed", "es", "s"})


def normalise(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).lower()
    for pattern, replacement in _CONTRACTIONS:
        folded = pattern.sub(replacement, folded)
    return folded


def words(text: str) -> list[str]:
    return _WORD.findall(normalise(text))


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """A light suffix stripper: plurals, -ing, -ed, -ation, -ly... Same rules both sides."""
    w = word.lower()
    if len(w) <= 3 or not w.isalpha():
        return w
    for suffix in _SUFFIXES:
        if suffix == "s" and w.endswith("ss"):
            break  # "class", "access", "process": not a plural
        minimum = 4 if suffix in _LONG_STEM_SUFFIXES else 3
        if w.endswith(suffix) and len(w) - len(suffix) >= minimum:
            w = w[: -len(suffix)]
            if suffix in ("ies", "ied"):
                w += "y"
            elif suffix in _VERB_SUFFIXES and w.endswith("er") and len(w) - 2 >= 4:
                w = w[:-2]  # "tampered" -> "tamper" -> "tamp", as "tamper" itself
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]
    if len(w) > 3 and w.endswith("y"):
        w = w[:-1] + "i"  # "query"/"queries", "cookie"/"cookies" meet at "queri", "cooki"
    return w


def stems(text: str) -> list[str]:
    return [stem(w) for w in words(text)]


def sentences(text: str) -> list[str]:
    folded = _ABBREVIATIONS.sub(lambda m: m.group(1).replace(".", ""), normalise(text))
    return [s for s in _SENTENCE_SPLIT.split(folded) if s.strip()]


def clauses(sentence: str) -> list[str]:
    result: list[str] = []
    for clause in _CLAUSE_SPLIT.split(sentence):
        if clause and clause.strip():
            result.extend(_split_and(clause))
    return result


def _split_and(clause: str) -> list[str]:
    """Split at an 'and' that joins two full clauses, each with its own verb."""
    pieces = _AND.split(clause)
    out = [pieces[0]]
    for piece in pieces[1:]:
        if _has_verb(out[-1]) and _has_verb(piece):
            out.append(piece)
        else:
            out[-1] = out[-1] + " and " + piece
    return [p for p in out if p.strip()]


def _has_verb(text: str) -> bool:
    return any(w in _CLAUSE_VERBS for w in words(text))


def word_matches(term: str, candidate: str) -> bool:
    """A term stem matches an answer stem exactly, or as a prefix when it is long enough
    to be specific ('chang' matches 'changed', 'tamper' matches 'tampering')."""
    return candidate == term or (len(term) >= 5 and candidate.startswith(term))


@dataclass(frozen=True)
class Phrasing:
    """All terms must appear; each term lists alternatives; an alternative may need several words."""

    source: str
    terms: tuple[tuple[tuple[str, ...], ...], ...]

    def matches(self, bag: frozenset[str]) -> bool:
        return all(any(all(any(word_matches(w, s) for s in bag) for w in alt) for alt in term) for term in self.terms)

    def matches_nearby(self, stems_in_order: list[str]) -> bool:
        """All terms within a short run of words: for short assertions such as
        'REST is a protocol', which words scattered over a long clause do not make."""
        width = 2 * len(self.terms) + 2
        if len(stems_in_order) <= width:
            return self.matches(frozenset(stems_in_order))
        return any(
            self.matches(frozenset(stems_in_order[i : i + width])) for i in range(len(stems_in_order) - width + 1)
        )


@lru_cache(maxsize=4096)
def compile_phrasing(source: str) -> Phrasing:
    terms = []
    for term in source.split():
        alts = tuple(tuple(stem(w) for w in words(alt)) for alt in term.split("|"))
        terms.append(tuple(a for a in alts if a))
    return Phrasing(source, tuple(t for t in terms if t))


# Idioms that contain a negation word but deny nothing: "the same, no matter how often".
_NON_NEGATING = re.compile(r"\b(?:no matter|not only|no doubt|nothing but)\b")


def is_negated(clause: str) -> bool:
    return negation_count(clause) > 0


def negation_count(text: str) -> int:
    return sum(w in NEGATIONS for w in words(_NON_NEGATING.sub(" ", normalise(text))))


def phrasing_negations(source: str) -> int:
    """How many terms of a phrasing are themselves negations ('idempotent no side-effects': 1)."""
    return sum(any(w in NEGATIONS for alt in term.split("|") for w in words(alt)) for term in source.split())


def function_word_ratio(text: str) -> float:
    ws = words(text)
    return sum(w in FUNCTION_WORDS for w in ws) / len(ws) if ws else 0.0


def shingles(tokens: list[str], n: int = 4) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}
