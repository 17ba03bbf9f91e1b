"""Concept files already parsed, keyed by a hash of their bytes.

Parsing TOML is most of what loading the library costs (tomllib is pure
Python: about 3 ms a file, 40 ms for the shipped 13), and every command that
names a concept loads it. JSON of the same data loads about 20× faster. The
cache holds only files that parsed and validated; a hit is validated again
(cheap), so a stale or tampered cache can never let a bad concept through.
Any problem with the cache file just means parsing the TOML again.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from lumente_cli import __version__

FORMAT = 2  # 2: the validated model dump, not the raw TOML


def digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


class ConceptCache:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._entries: dict[str, Any] = {}
        self._used: set[str] = set()
        self._dirty = False
        if path is None:
            return
        try:
            doc = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return
        if isinstance(doc, dict) and doc.get("format") == FORMAT and doc.get("version") == __version__ \
                and isinstance(doc.get("entries"), dict):
            self._entries = doc["entries"]

    def get(self, raw: bytes) -> dict[str, Any] | None:
        key = digest(raw)
        found = self._entries.get(key)
        if isinstance(found, dict):
            self._used.add(key)
            return found
        return None

    def put(self, raw: bytes, data: dict[str, Any]) -> None:
        key = digest(raw)
        self._entries[key] = data
        self._used.add(key)
        self._dirty = True

    def save(self) -> None:
        """Keep what this load used (a deleted file's entry goes); never fail the command."""
        if self.path is None or not (self._dirty or set(self._entries) - self._used):
            return
        from lumente_cli.paths import write_private_file

        kept = {k: v for k, v in self._entries.items() if k in self._used}
        try:
            data = json.dumps({"format": FORMAT, "version": __version__, "entries": kept},
                              ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            write_private_file(self.path, data)
        except (OSError, TypeError, ValueError):
            pass
