"""JavaScript and TypeScript by careful patterns: comments are blanked first (a
commented-out import does not count), and imports are found only where the code
itself says `import` or `require`, never inside a string.

Blanking keeps every offset and line number: a comment becomes spaces (and its own
newlines), a string's contents become spaces in the `code` view, so a match in
the code view can read the specifier at the same offset of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

EXTENSIONS = frozenset({".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts"})

_TOKENS = re.compile(
    r"""(?P<string>'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)"""
    r"|(?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))",
    re.DOTALL,
)
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
    def without_comment(m: re.Match[str]) -> str:
        if m.lastgroup == "comment":
            return _blanked(m.group())
        return m.group()

    def without_either(m: re.Match[str]) -> str:
        token = m.group()
        if m.lastgroup == "comment":
            return _blanked(token)
        return token[0] + _blanked(token[1:-1]) + token[-1] if len(token) >= 2 else token

    if "/" not in text and "'" not in text and '"' not in text and "`" not in text:
        return JavaScriptText(text, text)
    return JavaScriptText(_TOKENS.sub(without_comment, text), _TOKENS.sub(without_either, text))


def _blanked(token: str) -> str:
    """Spaces in place of every character but newlines, so offsets and lines stay put."""
    return re.sub(r"[^\n]", " ", token)


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
