"""Whether a Python file's syntax tree could show anything the scan looks for, told from
its raw text before it is parsed: most files of a project import nothing a concept
names and hold no structure a concept asks for, and parsing is the dearest step.

The answer may be "yes" for a file that shows nothing (it is then parsed, as before);
it is "no" only when neither the syntax tree nor, for a file that does not parse, the
line patterns read in its place could find an import, a call, a code check or a secret
value. Every rule below says what the text must hold for one of them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from lumente_cli.scan import python_source

# The names a code check's syntax must spell out as whole words (modules through their
# imports, methods by their own names); checks missing here have a rule of their own.
CHECK_WORDS: dict[str, frozenset[str]] = {
    "async_def": frozenset({"async"}),
    "sql_string_execute": python_source.EXECUTES | {"sqlalchemy"},
    "jwt_decode_unverified": frozenset(n.split(".", 1)[0] for n in python_source.JWT_DECODE),
    "lock_use": frozenset(n.split(".", 1)[0] for n in python_source.LOCKS),
    "memoize_decorator": frozenset(n.split(".", 1)[0] for n in python_source.MEMOIZE),
    "thread_or_process": frozenset(n.split(".", 1)[0] for n in python_source.WORKERS) | {"concurrent"},
    "env_read": frozenset(n.split(".", 1)[0] for n in python_source.ENV_CALLS),
}
# A name a secret is given to holds one of these (SECRET_NAME, lower-cased).
SECRET_PARTS = ("key", "secret", "token", "passw", "pwd")
# Where one string literal may end and the next begin: a dict key may spell a secret's
# name in pieces ("to" "ken"); with escapes (a backslash), the file is always parsed.
_STRING_PIECES = re.compile(r"""["'][ \t]*(?:\\\r?\n[ \t]*|\r?\n[ \t]*)*[rRbBuUfF]{0,2}["']""")
_DEF = re.compile(r"(?m)^([ \t]*)(?:async[ \t]+)?def[ \t]+(\w+)")
# Lines whose indentation is not what it looks like: a joined line, a form feed, a lone CR.
_ODD_LINES = re.compile(r"\\\r?\n|\f|\r(?!\n)")


def wanted_words(imports: Iterable[str], calls: Iterable[str], checks: Collection[str]) -> frozenset[bytes]:
    """The whole words a file must hold for its imports, calls or those code checks to be
    evidence: the first name of each import or call signal (every dotted name the reader
    resolves starts with an imported module's own first name), and each check's words."""
    words = {name.split(".", 1)[0] for name in (*imports, *calls)}
    for check in checks:
        words |= CHECK_WORDS.get(check, frozenset())
    return frozenset(w.encode() for w in words)


def needs_syntax(text: str, words: set[bytes], wanted: frozenset[bytes], checks: Collection[str]) -> bool:
    """Whether `text` must be parsed: `words` are its whole words (see needles.words_of),
    `wanted` what `wanted_words` gave, `checks` the code checks some concept asks for."""
    if not text.isascii():
        return True  # identifiers are normalised (NFKC): `ｊwt` is `jwt`
    if not words.isdisjoint(wanted):
        return True
    if "\\" in text or _may_name_a_secret(text.lower()):
        return True  # a secret may be named here; its value is masked in every snippet of the file
    if "self_call" in checks and _may_call_itself(text):
        return True
    return "nested_capture" in checks and _may_nest(text, words)


def _may_name_a_secret(lowered: str) -> bool:
    """A name that looks like a secret's, even one a dict key spells in pieces ("to" "ken"):
    with every quote-to-quote join taken out, the pieces come together again."""
    if any(part in lowered for part in SECRET_PARTS):
        return True
    joined = _STRING_PIECES.sub("", lowered)
    return joined != lowered and any(part in joined for part in SECRET_PARTS)


def _may_call_itself(text: str) -> bool:
    """A function calling itself spells its name at least twice, as a whole word: where it
    is defined and where it is called."""
    for m in _DEF.finditer(text):
        name = m.group(2)
        if text.count(name) >= 2 and len(re.findall(rf"(?<!\w){re.escape(name)}(?!\w)", text)) >= 2:
            return True
    return False


def _may_nest(text: str, words: set[bytes]) -> bool:
    """A function inside a function: a lambda anywhere, or a `def` indented deeper than one
    before it (a nested `def` starts a line of its own, inside the body of the other)."""
    if b"lambda" in words or _ODD_LINES.search(text):
        return True
    shallowest = None
    for m in _DEF.finditer(text):
        indent = len(m.group(1))
        if shallowest is not None and indent > shallowest:
            return True
        shallowest = indent if shallowest is None else min(shallowest, indent)
    return False
