"""What a pattern's syntax tells before it is run: the strings and whole words every match
contains, and whether the lines holding them can be searched alone. The scan skips a
pattern on a file lacking them, so each must hold for every match; the property tests
check it on matches generated from the library's own patterns."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lumente_cli.concepts.library import load_default
from lumente_cli.scan.detectors import Pattern, PatternSet, SignalRef, compile_detectors
from lumente_cli.scan.needles import line_local, needles


def test_the_strings_every_match_contains_keep_their_case_unless_the_pattern_ignores_it():
    cors = needles(r"\bCORSMiddleware\b")
    assert cors.clauses == (frozenset({"CORSMiddleware"}),) and not cors.folded
    assert cors.words == {"CORSMiddleware"}
    folded = needles(r"(?i)\bcorsMiddleware\b")
    assert folded.folded and folded.clauses == (frozenset({"corsmiddleware"}),)
    assert needles(r"(?i:from)\s+x").folded  # a flag turned on inside counts too
    assert needles(r"\.(?:put|patch|delete)\(\s*x").clauses[0] == {".put(", ".patch(", ".delete("}
    assert needles(r"\bset[nN][xX]\(").clauses[0] == {"setnx(", "setnX(", "setNx(", "setNX("}
    assert needles(r"\w+") is None


def test_every_part_a_match_needs_is_a_clause_and_alternatives_are_spelt_out():
    conflict = needles(r"(?i)\bON\s+CONFLICT\b[^;]*\bDO\s+NOTHING\b|\bINSERT\s+(?:OR\s+)?IGNORE\b")
    assert conflict.admit("insert or ignore into t")
    assert conflict.admit("on conflict (id) do nothing")
    assert not conflict.admit("insert into t values (1)")  # one of the words is not enough
    assert needles(r"^(<{7}|>{7}) \S").clauses == (frozenset({"<<<<<<< ", ">>>>>>> "}),)  # a fixed count
    assert not needles(r"^(<{7}|>{7}) \S").admit("a = b  # no conflict marker")


def test_whole_words_need_a_non_word_character_or_a_boundary_on_both_sides():
    assert needles(r"\basync\s+function\b").words == {"function"}
    assert needles(r"^\s*(?:it|test|describe)(?:\.only)?\(").words == {"it", "test", "describe"}
    assert needles(r"\.execute\(").words == {"execute"}
    assert needles(r"async\(").words is None  # `xasync(` matches: no boundary before
    assert needles(r"\bretry[-_]?after\b").words is None  # `retry_after` is one word
    assert needles(r"\.(ab)?foo\b").words is None  # `.abfoo` is one word
    assert needles(r"^\s*@(\w+\.)?csrf_exempt\b").words == {"csrf_exempt"}


def test_a_pattern_that_could_see_past_its_line_is_searched_over_the_whole_file():
    assert line_local(r"\bawait\s+[\w$.]+\s*\(")
    assert line_local(r"^(?!.*\bdecode\b).*\bverify\s*=\s*False\b")  # `.` never crosses a line break
    assert line_local(r"(?<![\w$.])require\(")
    assert not line_local(r"\Aimport")
    assert not line_local(r"x\Z")
    assert not line_local(r"=(?!\s*;?\s*$)")  # `\s` could see the line break and the next line
    assert not line_local(r"(?<!\n)x")


def _library_patterns():
    detectors = compile_detectors([load_default().resolve(i) for i in load_default().ids()])
    unique = {id(p): p for patterns in detectors.patterns.values() for p in patterns}
    return sorted(unique.values(), key=lambda p: p.regex)


PATTERNS = _library_patterns()
# Patterns that test the edges: no boundary at either end, optional word characters next to
# a word, lookarounds that could see a line break, anchors at the ends of the whole text.
TRICKY = [Pattern(SignalRef("t", i, "pattern", "tricky", False), regex) for i, regex in enumerate([
    r"async\(", r"(?i)same_?site[=:]", r"\.(ab)?foo\b", r"webhook[-_]?secret", r"x=(?!\s*;?\s*$)",
    r"(?<!\n)xy", r"(?<![^a])xy", r"\Axy", r"xy\Z", r"(?i)\bON\s+CONFLICT\b[^;]*\bDO\s+NOTHING\b|\bINSERT\s+IGNORE\b",
    r"^\s*(?:it|test)(?:\.only)?\(", r"\bfoo(?:_\w+)?\s*=",
])]
FILLER = st.text(alphabet=st.sampled_from(list("ab_1 \t\n.(\"'=:;/-")), max_size=12)


def _lines(text: str) -> list[tuple[int, str]]:
    out, start = [], 0
    for line in text.split("\n"):
        out.append((start, line))
        start += len(line) + 1
    return out


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_what_the_syntax_tells_holds_for_matches_of_the_library_patterns(data):
    pattern = data.draw(st.sampled_from(PATTERNS + TRICKY * 10))
    match = data.draw(st.from_regex(pattern.regex, fullmatch=True))
    text = data.draw(FILLER) + match + data.draw(FILLER)
    whole = re.compile(pattern.regex, re.MULTILINE)
    on_lines = [(start, line) for start, line in _lines(text) if pattern.line.search(line)]
    need = pattern.needles
    if need is None or (whole.search(text) is None and not on_lines):
        return
    hay = text.lower() if need.folded else text
    assert need.admit(hay), (pattern.regex, text)
    if text.isascii():
        assert pattern in PatternSet([pattern]).candidates(text), (pattern.regex, text)
    for start, line in on_lines:
        # The line holds a needle of the clause that locates lines, and (for a line-local
        # pattern) a match over the whole text starts on it: searching the lines holding
        # needles finds every line a search over the whole text finds.
        lowered = line.lower() if need.folded else line
        assert any(n in lowered for n in need.clauses[0]), (pattern.regex, line)
        if pattern.line_local:
            m = whole.search(text, start)
            assert m is not None and m.start() <= start + len(line), (pattern.regex, text)


@pytest.mark.parametrize("text", ["naïve = 'ſecret'\nimport os\n", "plain ascii\n"])
def test_a_text_with_other_than_ascii_gets_every_pattern(text):
    patterns = PATTERNS[:5]
    chosen = PatternSet(patterns).candidates(text)
    assert (chosen == patterns) is (not text.isascii())
