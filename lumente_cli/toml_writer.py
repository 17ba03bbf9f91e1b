"""The one TOML writer: concept files the mapper writes, and the config file's values.

It covers what the concept schema uses: strings, integers, booleans, lists of
strings, tables, and arrays of tables. `tomllib.loads(dumps(data)) == data` holds
for any such data whose strings are valid Unicode (no lone surrogates): strings
are escaped, not trusted. Text with line breaks is written as a multi-line
basic string so the file stays readable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
# Characters TOML does not allow raw inside a basic string: C0 controls except
# tab (and newline, in multi-line strings), DEL, and the backslash and quote
# that have a meaning there.
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_NEEDS_ESCAPE = re.compile(r'[\\"\x00-\x1f\x7f]')
_NEEDS_ESCAPE_MULTILINE = re.compile(r'[\\\x00-\x08\x0b-\x1f\x7f]|"(?="")|"\Z')
ONE_LINE_LIST = 88  # a list longer than this is written one item per line


class TomlWriteError(ValueError):
    """The data has something this writer (or TOML) cannot represent."""


def dumps(data: Mapping[str, Any], *, header: str | None = None) -> str:
    """The TOML text for a mapping. `header` becomes leading `#` comment lines."""
    out: list[str] = []
    if header:
        out.extend(f"# {line}".rstrip() for line in header.splitlines())
    _table(out, (), data)
    return "\n".join(out).strip("\n") + "\n"


def _table(out: list[str], path: tuple[str, ...], data: Mapping[str, Any]) -> None:
    plain, tables, arrays = [], [], []
    for key, value in data.items():
        if not isinstance(key, str):
            raise TomlWriteError(f"key {key!r} is not a string")
        if value is None:
            continue  # TOML has no null: absent means default
        if isinstance(value, Mapping):
            tables.append((key, value))
        elif _is_table_array(value):
            arrays.append((key, value))
        else:
            plain.append((key, value))
    for key, value in plain:
        out.append(f"{_key(key)} = {_value(value)}")
    for key, value in tables:
        out.append("")
        out.append(f"[{_dotted(path + (key,))}]")
        _table(out, path + (key,), value)
    for key, items in arrays:
        for item in items:
            out.append("")
            out.append(f"[[{_dotted(path + (key,))}]]")
            _table(out, path + (key,), item)


def _is_table_array(value: Any) -> bool:
    return (
        isinstance(value, Sequence)
        and not isinstance(value, (str, bytes))
        and len(value) > 0
        and all(isinstance(v, Mapping) for v in value)
    )


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else basic_string(key)


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(_key(k) for k in path)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Sequence) and not isinstance(value, bytes):
        items = list(value)
        if any(isinstance(v, Mapping) for v in items):
            raise TomlWriteError("a list mixes tables and values")
        if not items:
            return "[]"
        rendered = [_value(v) for v in items]
        one_line = "[" + ", ".join(rendered) + "]"
        if len(one_line) <= ONE_LINE_LIST and "\n" not in one_line:
            return one_line
        return "[\n" + "".join(f"  {r},\n" for r in rendered) + "]"
    raise TomlWriteError(f"cannot write a {type(value).__name__} as TOML")


def _string(text: str) -> str:
    _check_unicode(text)
    if "\n" in text:
        return _multiline(text)
    return basic_string(text)


def basic_string(text: str) -> str:
    """`text` as a one-line TOML basic string, every character TOML does not allow raw escaped."""
    _check_unicode(text)
    return '"' + _NEEDS_ESCAPE.sub(lambda m: _escape(m.group(0)), text) + '"'


def _multiline(text: str) -> str:
    """A multi-line basic string. The newline right after the opening quotes is
    dropped by TOML, so the text comes back exactly. Backslashes and controls are
    escaped; a quote is escaped when two more follow it (so no run of three can
    close the string early) and at the very end (next to the closing quotes)."""
    body = _NEEDS_ESCAPE_MULTILINE.sub(lambda m: _escape(m.group(0)), text)
    return '"""\n' + body + '"""'


def _escape(ch: str) -> str:
    return _ESCAPES.get(ch) or f"\\u{ord(ch):04X}"


def _check_unicode(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise TomlWriteError("text holds characters that are not valid Unicode (a lone surrogate)") from None
