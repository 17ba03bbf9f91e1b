"""JavaScript and TypeScript by careful patterns: comments are blanked first (a
commented-out import does not count), and imports are found only where the code
itself says `import` or `require`, never inside a string.

Blanking keeps every offset and line number: a comment becomes spaces (and its own
newlines), a string's contents become spaces in the `code` view, so a match in
the code view can read the specifier at the same offset of the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

EXTENSIONS = frozenset({".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts"})

_TOKENS = re.compile(
    r"""(?P<string>'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)"""
    r"|(?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))",
    re.DOTALL,
)
# Where a token can start: `_TOKENS` is tried only there (a regex search for one of a few
# characters skips the rest of the text far quicker than trying every position).
_TOKEN_START = re.compile(r"[\"'`/]")
# Where the code says import or require; the specifier's quote follows at the match's end.
_IMPORT_AT = re.compile(
    r"(?<![\w$.])(?:import\s+(?:type\s+)?(?:[\w$*{}\s,]+?\s+from\s+)?|export\s+(?:type\s+)?[\w$*{}\s,]+?\s+from\s+"
    r"|require\s*\(\s*|import\s*\(\s*)(?=['\"])"
)


@dataclass(frozen=True)
class JavaScriptText:
    text: str  # comments blanked, strings kept: what patterns are matched against
    code: str  # comments and string contents blanked: where imports and calls are looked for


def blank(text: str) -> JavaScriptText:
    if "/" not in text and "'" not in text and '"' not in text and "`" not in text:
        return JavaScriptText(text, text)
    # One pass over the tokens builds both views: the text between tokens is shared.
    text_view: list[str] = []
    code_view: list[str] = []
    last = 0
    for m in _tokens(text):
        start, end = m.span()
        between = text[last:start]
        token = m.group()
        if m.lastgroup == "comment":
            spaces = _blanked(token)
            text_view += (between, spaces)
            code_view += (between, spaces)
        else:
            text_view += (between, token)
            code_view += (between, token[0] + _blanked(token[1:-1]) + token[-1] if len(token) >= 2 else token)
        last = end
    tail = text[last:]
    text_view.append(tail)
    code_view.append(tail)
    return JavaScriptText("".join(text_view), "".join(code_view))


def _tokens(text: str) -> Iterator[re.Match[str]]:
    """The same matches as `_TOKENS.finditer(text)`: none is empty, and each starts with a
    quote or a slash."""
    at = 0
    while (start := _TOKEN_START.search(text, at)) is not None:
        m = _TOKENS.match(text, start.start())
        if m is None:
            at = start.start() + 1
            continue
        yield m
        at = m.end()


def _blanked(token: str) -> str:
    """Spaces in place of every character but newlines, so offsets and lines stay put."""
    if "\n" not in token:
        return " " * len(token)
    return "\n".join(" " * len(part) for part in token.split("\n"))


def imports(js: JavaScriptText) -> list[tuple[str, int]]:
    """(module specifier, line) for every import, export ... from, require() and import()."""
    out = []
    for m in _IMPORT_AT.finditer(js.code):
        start = m.end()
        quote = js.text[start]
        end = js.text.find(quote, start + 1)
        if end == -1 or "\n" in js.text[start:end]:
            continue
        out.append((js.text[start + 1:end], js.code.count("\n", 0, start) + 1))
    return out
