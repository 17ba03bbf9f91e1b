"""What a concept's line pattern needs before it can match, read from the regex's own
syntax (the standard library's parser of `re` syntax), so that most patterns are
never run on most files: a substring test is far cheaper than a regex search.

`needles` tells the strings every match must contain; `line_local` tells whether a
pattern can be run on the lines holding those strings alone, with the same result as
searching the whole file.
"""

from __future__ import annotations

from dataclasses import dataclass
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from re import error as RegexError

PRODUCT_CAP = 64  # alternatives kept when spelling out `\.(get|post)\(` as ".get(", ".post("
BRANCH_CLAUSES = 3  # of each alternative's required strings, the most selective ones kept
CLAUSE_CAP = 16  # required strings kept for one pattern

_Items = list  # a re._parser.SubPattern's items: (opcode, argument) pairs


@dataclass(frozen=True)
class Needles:
    """Every match of the pattern contains one string of each clause, and one of `words`
    as a whole word (no word character either side of it in the text)."""

    folded: bool  # the pattern ignores case: the strings are lower-case, for lower-cased text
    clauses: tuple[frozenset[str], ...]  # the most selective first
    words: frozenset[str] | None  # ASCII words; None when the syntax tells none

    def admit(self, text: str) -> bool:
        """Whether `text` (lower-cased when `folded`) holds what every match needs."""
        for clause in self.clauses:
            for needle in clause:
                if needle in text:
                    break
            else:
                return False
        return True


def needles(regex: str) -> Needles | None:
    """The strings every match of `regex` must contain, or None when its syntax tells none."""
    try:
        parsed = _parser.parse(regex)
        folded = _ignores_case(parsed)
        clauses = _simplest(_required(list(parsed), folded))
        words = _words(list(parsed), folded, before=False, after=False)
    except (RegexError, RecursionError):
        return None
    if not clauses:
        return None
    return Needles(folded, tuple(clauses), min(words, key=lambda s: (*_selectivity(s), sorted(s))) if words else None)


def line_local(regex: str) -> bool:
    """Whether a match of `regex` in one line of a file, searched alone, is a match at the same
    place in the whole file. True unless the pattern anchors at the start or end of the whole
    string (\\A, \\Z) or a negative lookaround could see the line break beyond the line: then
    only a search over the whole file tells."""
    try:
        parsed = _parser.parse(regex)
    except (RegexError, RecursionError):
        return False
    return _stays_on_line(list(parsed), bool(_flags(parsed) & c.SRE_FLAG_DOTALL))


# -- the strings a match must contain ----------------------------------------------------


def _flags(parsed) -> int:  # noqa: ANN001 - a re._parser.SubPattern
    """The global flags and every flag turned on inside the pattern."""
    flags = parsed.state.flags
    stack = list(parsed)
    while stack:
        op, av = stack.pop()
        if op is c.SUBPATTERN:
            flags |= av[1]
        stack.extend(_children(op, av))
    return flags


def _ignores_case(parsed) -> bool:  # noqa: ANN001
    return bool(_flags(parsed) & c.SRE_FLAG_IGNORECASE)


def _children(op, av) -> list:  # noqa: ANN001
    """The items of every sub-pattern under one item."""
    if op is c.SUBPATTERN:
        return list(av[3])
    if op is c.BRANCH:
        return [item for alternative in av[1] for item in alternative]
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        return list(av[2])
    if op in (c.ASSERT, c.ASSERT_NOT):
        return list(av[1])
    if op is c.ATOMIC_GROUP:
        return list(av)
    return []


def _char(value: int, folded: bool) -> str:
    return chr(value).lower() if folded else chr(value)


def _exact(items: _Items, folded: bool) -> frozenset[str] | None:
    """The strings `items` matches, when it is only literals and alternatives of them."""
    out = frozenset({""})
    for op, av in items:
        options = _exact_item(op, av, folded)
        if options is None or len(out) * len(options) > PRODUCT_CAP:
            return None
        out = frozenset(a + b for a in out for b in options)
    return out


def _exact_item(op, av, folded: bool) -> frozenset[str] | None:  # noqa: ANN001
    if op is c.LITERAL:
        return frozenset({_char(av, folded)})
    if op is c.IN and all(o is c.LITERAL for o, _ in av) and len(av) <= 4:
        return frozenset(_char(v, folded) for _, v in av)  # [nN], ["']: one of a few characters
    if op is c.SUBPATTERN:
        return _exact(list(av[3]), folded)
    if op is c.BRANCH:
        branches = [_exact(list(alt), folded) for alt in av[1]]
        return None if any(b is None for b in branches) else frozenset().union(*branches)  # type: ignore[arg-type]
    if op is c.MAX_REPEAT and av[0] == av[1] and 0 < av[0] <= 8:  # a fixed count: `<{7}`
        once = _exact(list(av[2]), folded)
        return None if once is None else _exact([(c.SUBPATTERN, (None, 0, 0, list(av[2])))] * av[0], folded)
    return None


def _required(items: _Items, folded: bool) -> list[frozenset[str]]:
    """Clauses every match of `items` satisfies: it contains one string of each."""
    clauses: list[frozenset[str]] = []
    run: frozenset[str] = frozenset({""})  # the literal text matched so far, uninterrupted

    def end_run() -> frozenset[str]:
        if min(map(len, run)):
            clauses.append(run)
        return frozenset({""})

    for op, av in items:
        exact = _exact_item(op, av, folded)
        if exact is not None and len(run) * len(exact) <= PRODUCT_CAP:
            run = frozenset(a + b for a in run for b in exact)
            continue
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue  # zero-width: the letters either side are still next to each other
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
            # The first repetition is text the match holds, right after what came before.
            once = _exact(list(av[2]), folded)
            if once is not None and len(run) * len(once) <= PRODUCT_CAP:
                run = frozenset(a + b for a in run for b in once)
                run = end_run()
                continue
        run = end_run()
        if op is c.SUBPATTERN:
            clauses += _required(list(av[3]), folded)
        elif op is c.ATOMIC_GROUP:
            clauses += _required(list(av), folded)
        elif op is c.BRANCH:
            clauses += _either([_required(list(alt), folded) for alt in av[1]])
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
            clauses += _required(list(av[2]), folded)
    end_run()
    return clauses


def _either(alternatives: list[list[frozenset[str]]]) -> list[frozenset[str]]:
    """Clauses of `a|b|...`: a match of any alternative satisfies each clause, so each is the
    union of one clause of every alternative (spelt out for the most selective few)."""
    if not alternatives or any(not clauses for clauses in alternatives):
        return []  # an alternative that needs nothing: neither does the whole
    kept = BRANCH_CLAUSES
    while kept > 1 and kept ** len(alternatives) > CLAUSE_CAP:
        kept -= 1
    combined: list[frozenset[str]] = [frozenset()]
    for clauses in alternatives:
        best = _simplest(clauses)[:kept]
        combined = [acc | clause for acc in combined for clause in best]
    return combined


def _selectivity(clause: frozenset[str]) -> tuple[int, int]:
    return -min(map(len, clause)), len(clause)


def _simplest(clauses: list[frozenset[str]]) -> list[frozenset[str]]:
    """The clauses without those another one implies, the most selective first: the longest
    shortest string, then the fewest strings."""
    unique = sorted(set(clauses), key=lambda s: (*_selectivity(s), sorted(s)))
    kept: list[frozenset[str]] = []
    for clause in unique:
        # `clause` adds nothing when some kept clause's every string already contains one of its own.
        if not any(all(any(n in k for n in clause) for k in other) for other in kept):
            kept.append(clause)
    return kept[:CLAUSE_CAP]


# -- whether a line can be searched alone --------------------------------------------------

_NEWLINE_CATEGORIES = frozenset({
    c.CATEGORY_SPACE, c.CATEGORY_NOT_WORD, c.CATEGORY_NOT_DIGIT, c.CATEGORY_LINEBREAK,
    c.CATEGORY_UNI_SPACE, c.CATEGORY_UNI_NOT_WORD, c.CATEGORY_UNI_NOT_DIGIT, c.CATEGORY_UNI_LINEBREAK,
    c.CATEGORY_LOC_NOT_WORD,
})
_NO_NEWLINE_CATEGORIES = frozenset({
    c.CATEGORY_WORD, c.CATEGORY_DIGIT, c.CATEGORY_NOT_SPACE, c.CATEGORY_NOT_LINEBREAK,
    c.CATEGORY_UNI_WORD, c.CATEGORY_UNI_DIGIT, c.CATEGORY_UNI_NOT_SPACE, c.CATEGORY_UNI_NOT_LINEBREAK,
    c.CATEGORY_LOC_WORD,
})
_CONSUMING = (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN)
_GROUPS = (c.SUBPATTERN, c.BRANCH, c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT, c.ATOMIC_GROUP, c.ASSERT)


def _stays_on_line(items: _Items, dotall: bool) -> bool:
    for op, av in items:
        if op is c.AT:
            if av in (c.AT_BEGINNING_STRING, c.AT_END_STRING):
                return False
        elif op is c.ASSERT_NOT:
            if _may_match_newline(list(av[1]), dotall) or not _stays_on_line(list(av[1]), dotall):
                return False
        elif op in _GROUPS:
            if not _stays_on_line(_children(op, av), dotall):
                return False
        elif op not in _CONSUMING:
            return False  # a back-reference or anything newer: search the whole file
    return True


def _may_match_newline(items: _Items, dotall: bool) -> bool:
    for op, av in items:
        if op is c.LITERAL:
            if av == 10:
                return True
        elif op is c.NOT_LITERAL:
            if av != 10:
                return True
        elif op is c.ANY:
            if dotall:
                return True
        elif op is c.IN:
            if _set_holds_newline(av):
                return True
        elif op is c.AT:
            continue
        elif op in _GROUPS or op is c.ASSERT_NOT:
            if _may_match_newline(_children(op, av), dotall):
                return True
        else:
            return True
    return False


def _set_holds_newline(items: list) -> bool:
    negate = bool(items) and items[0][0] is c.NEGATE
    inside = False
    for op, av in items[1:] if negate else items:
        if op is c.LITERAL:
            inside |= av == 10
        elif op is c.RANGE:
            inside |= av[0] <= 10 <= av[1]
        elif op is c.CATEGORY and av in _NEWLINE_CATEGORIES:
            inside = True
        elif not (op is c.CATEGORY and av in _NO_NEWLINE_CATEGORIES):
            return True  # not understood: assume it may
    return inside != negate


# -- whole words a match must contain ----------------------------------------------------
# Tested against the set of a file's words, a pattern's words rule it out with one set
# lookup instead of a substring search per needle.

WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
# Bytes that end a word: every ASCII byte but letters, digits and `_`, and every byte of a
# non-ASCII character (which may or may not be a word character; splitting there finds
# at least every whole word a pattern asks for).
_SEPARATORS = bytes(b if chr(b) in WORD_CHARS else 32 for b in range(256))


def words_of(text: str) -> set[bytes]:
    """The whole words of an ASCII text, as bytes: one translation and one split, in C."""
    return set(text.encode().translate(_SEPARATORS).split())


def _nonword(char: str) -> bool:
    """Never a word character, in the regex's sense as in the scanner's split into words."""
    return char.isascii() and char not in WORD_CHARS


def _whole_words(run: frozenset[str], left: bool, right: bool) -> frozenset[str] | None:
    """For each string of `run`, its longest whole word: delimited inside the string by
    non-word characters, or at its ends when `left`/`right` say the text has one there."""
    out = set()
    for string in run:
        best = ""
        for start, word in _ascii_words(string):
            end = start + len(word)
            if (start > 0 and _nonword(string[start - 1])) or (start == 0 and left):
                if (end < len(string) and _nonword(string[end])) or (end == len(string) and right):
                    best = max(best, word, key=len)
        if not best:
            return None
        out.add(best)
    return frozenset(out)


def _ascii_words(string: str) -> list[tuple[int, str]]:
    """(offset, word) for each maximal run of ASCII word characters in `string`."""
    out, start = [], None
    for i, char in enumerate(string + " "):
        if char in WORD_CHARS:
            start = i if start is None else start
        elif start is not None:
            out.append((start, string[start:i]))
            start = None
    return out


_REPEATS = (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT)
_OPENING = (c.AT_BEGINNING, c.AT_BEGINNING_LINE, c.AT_BEGINNING_STRING, c.AT_BOUNDARY)
_CLOSING = (c.AT_END, c.AT_END_LINE, c.AT_END_STRING, c.AT_BOUNDARY)


def _words(items: _Items, folded: bool, *, before: bool, after: bool) -> list[frozenset[str]]:
    """Clauses of whole words for `items`. `before`: the text has no word character just
    before them; `after`: none just after them."""
    clauses: list[frozenset[str]] = []
    closed = before  # no word character just before the current position
    run: frozenset[str] = frozenset({""})
    left = before

    def end_run(rest: _Items) -> None:
        if min(map(len, run)):
            words = _whole_words(run, left, _starts_nonword(rest, after))
            if words:
                clauses.append(words)

    for index, (op, av) in enumerate(items):
        exact = _exact_item(op, av, folded)
        if exact is not None and len(run) * len(exact) <= PRODUCT_CAP:
            if run == {""}:
                left = closed
            run = frozenset(a + b for a in run for b in exact)
            closed = all(s and _nonword(s[-1]) for s in run)
            continue
        if op in (c.ASSERT, c.ASSERT_NOT):
            continue  # zero-width: the run goes on
        rest = items[index:]
        end_run(rest)
        run = frozenset({""})
        following = items[index + 1:]
        if op is c.AT:
            closed = av in _OPENING or (closed and av is not c.AT_NON_BOUNDARY)
        elif op is c.SUBPATTERN or op is c.ATOMIC_GROUP:
            inner = list(av[3]) if op is c.SUBPATTERN else list(av)
            clauses += _words(inner, folded, before=closed, after=_starts_nonword(following, after))
        elif op is c.BRANCH:
            tail = _starts_nonword(following, after)
            clauses += _either([_words(list(alt), folded, before=closed, after=tail) for alt in av[1]])
        elif op in _REPEATS and av[0] >= 1:
            sub = list(av[2])
            tail = _starts_nonword(sub + following, after) and _starts_nonword(following, after)
            clauses += _words(sub, folded, before=closed, after=tail)
        if op is not c.AT:
            closed = _ends_nonword([(op, av)], closed)
    end_run([])
    return clauses


def _starts_nonword(items: _Items, after: bool) -> bool:
    """Whether the character after the text matched so far is never a word character: the
    next one `items` consumes is not, or the position is a line's end or a word's end (this
    is asked only right after a word character, where \\b means the word ends)."""
    for index, (op, av) in enumerate(items):
        rest = items[index + 1:]
        if op is c.AT:
            if av in _CLOSING:
                return True
            if av is c.AT_NON_BOUNDARY:
                return False
            continue
        if op in (c.ASSERT, c.ASSERT_NOT):
            continue
        if op in (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN):
            return _only_nonword([(op, av)])
        if op is c.SUBPATTERN or op is c.ATOMIC_GROUP:
            return _starts_nonword((list(av[3]) if op is c.SUBPATTERN else list(av)) + rest, after)
        if op is c.BRANCH:
            return all(_starts_nonword(list(alt) + rest, after) for alt in av[1])
        if op in _REPEATS:
            once = _starts_nonword(list(av[2]) + rest, after)
            return once if av[0] >= 1 else once and _starts_nonword(rest, after)
        return False
    return after


def _ends_nonword(items: _Items, before: bool) -> bool:
    """Whether the last character `items` consume is never a word character (`before`: the
    same of the character before them, for when they consume none)."""
    for index in range(len(items) - 1, -1, -1):
        op, av = items[index]
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue
        earlier = items[:index]
        if op in (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN):
            return _only_nonword([(op, av)])
        if op is c.SUBPATTERN or op is c.ATOMIC_GROUP:
            return _ends_nonword(earlier + (list(av[3]) if op is c.SUBPATTERN else list(av)), before)
        if op is c.BRANCH:
            return all(_ends_nonword(earlier + list(alt), before) for alt in av[1])
        if op in _REPEATS:
            last = _ends_nonword(earlier + list(av[2]), before)
            return last if av[0] >= 1 else last and _ends_nonword(earlier, before)
        return False
    return before


def _only_nonword(items: _Items) -> bool:
    """Whether every character `items` can consume is a non-word character."""
    for op, av in items:
        if op is c.LITERAL:
            if not _nonword(chr(av)):
                return False
        elif op is c.IN:
            if not _set_only_nonword(av):
                return False
        elif op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue
        elif op in _GROUPS or op is c.BRANCH:
            if not _only_nonword(_children(op, av)):
                return False
        else:
            return False
    return True


def _set_only_nonword(items: list) -> bool:
    for op, av in items:
        if op is c.LITERAL:
            if not _nonword(chr(av)):
                return False
        elif op is c.RANGE:
            if av[1] > 127 or any(not _nonword(chr(v)) for v in range(av[0], av[1] + 1)):
                return False
        elif not (op is c.CATEGORY and av in (c.CATEGORY_SPACE, c.CATEGORY_UNI_SPACE, c.CATEGORY_NOT_WORD,
                                               c.CATEGORY_UNI_NOT_WORD)):
            return False  # a negated set, digits, words, or anything not understood
    return True
