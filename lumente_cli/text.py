"""Small text helpers shared by every layer: slugs and untrusted-text sanitising."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

_SLUG_DROP = re.compile(r"[^a-z0-9]+")
# CSI, OSC, and other escape sequences, then any remaining C0/C1 control character
# except newline and tab. Outside text (model replies, concept files) goes through this.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI ... final byte
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL or ST
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS/SOS/PM/APC strings
    r"|\x1b[@-Z\\-_]"  # two-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
# Control characters, and the bidirectional overrides and isolates that make text
# display in another order than it reads (a 'Trojan Source' in a fact id or a hint).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


_C1 = re.compile(r"[\x7f-\x9f\u2028\u2029]")


def json_dumps(document: object, *, indent: int | None = None) -> str:
    """JSON for a terminal or a pipe: UTF-8 text as is, but every control
    character escaped. json.dumps escapes C0 (ESC, BEL) itself; DEL, the C1
    controls (an 8-bit CSI is U+009B) and the line separators are escaped here,
    which JSON allows inside strings and never needs outside them."""
    import json

    text = json.dumps(document, ensure_ascii=False, indent=indent)
    return _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def slug(name: str) -> str:
    """'Hashing vs. Encryption' -> 'hashing_vs_encryption'; only [a-z0-9_] survives."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return _SLUG_DROP.sub("_", folded).strip("_")


def sanitize(text: str) -> str:
    """Neutralise terminal escape sequences and control characters in outside text."""
    return _CONTROLS.sub("", _ESCAPES.sub("", text))


def sanitize_all(value: object, clean: Callable[[str], str] = sanitize) -> object:
    """Every string inside a model's reply (dicts and lists walked), passed through `clean`."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {k: sanitize_all(v, clean) for k, v in value.items()}
    if isinstance(value, list):
        return [sanitize_all(v, clean) for v in value]
    return value


def one_line(text: str) -> str:
    """Outside text made safe and flattened to one line."""
    return " ".join(sanitize(text).split())


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, an ellipsis marking a cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def reflow(text: str) -> str:
    """Undo the hard line breaks of text written in a TOML file, keeping
    paragraphs and '- ' list items, so the terminal can wrap it at its width."""
    blocks: list[str] = []
    for block in text.strip().split("\n\n"):
        items: list[str] = []
        for line in block.splitlines():
            stripped = line.strip()
            if not stripped:
                continue
            if stripped.startswith(("- ", "* ", "• ")) or not items:
                items.append(stripped)
            else:
                items[-1] += " " + stripped
        blocks.append("\n".join(items))
    return "\n\n".join(blocks)


def redact_url(url: str) -> str:
    """A URL fit to print: a password in it, and every query value (tokens travel
    there), replaced by ****; the user name, host, port and path stay recognisable."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "(an unreadable URL)"
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{port}" if port else host
    if parts.username is not None:
        netloc = f"{parts.username}{':****' if parts.password is not None else ''}@{netloc}"
    query = urlencode([(k, "****") for k, _ in parse_qsl(parts.query, keep_blank_values=True)], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, "****" if parts.fragment else ""))
