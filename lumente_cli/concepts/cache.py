"""Concept files already parsed, keyed by a hash of their bytes, with a small index
of what listing needs.

Parsing TOML is most of what loading the library costs (tomllib is pure Python),
and every command that names a concept loads it; JSON of the same data loads far
faster (docs/benchmarks.md has the figures). The cache holds only files that parsed and
validated; a hit is validated again when the concept is used (cheap), so a stale
or tampered cache can never let a bad concept through.

Listing and finding concepts need only a few fields of each (id, names, summary,
area, links). Those sit in a second, small file, keyed by each file's path with its
size and modification time, so `lumente concepts` neither reads the concept files
nor parses the whole cache. A concept's full data is still looked up by the hash of
its bytes, and only when it is used. Any problem with either file just means parsing
the TOML again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lumente_cli import __version__

FORMAT = 3  # 3: the list index beside the validated model dumps
HEAD_FIELDS = ("id", "name", "full_name", "summary", "aliases", "area", "links")


def digest(raw: bytes) -> str:
    import hashlib  # only when a file is read: a listing from the index hashes nothing

    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def head_of(data: dict[str, Any]) -> dict[str, Any]:
    """What listing and finding read of a concept's validated data."""
    return {k: data.get(k) for k in HEAD_FIELDS}


def stamp_of(path: Path) -> list[int]:
    """What says a file is unchanged without reading it: its size and modification time."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def _read(path: Path | None, key: str) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if isinstance(doc, dict) and doc.get("format") == FORMAT and doc.get("version") == __version__ \
            and isinstance(doc.get(key), dict):
        return doc[key]
    return {}


class ConceptCache:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.index_path = path.with_name(path.stem + "-index.json") if path is not None else None
        self._index: dict[str, Any] = _read(self.index_path, "files")
        self._index_used: set[str] = set()
        self._index_dirty = False
        self._entries: dict[str, Any] | None = None  # read on first use: listing never needs it
        self._used: set[str] = set()
        self._dirty = False

    # the full, validated data, by the hash of the file's bytes --------------------------

    def _full(self) -> dict[str, Any]:
        if self._entries is None:
            self._entries = _read(self.path, "entries")
        return self._entries

    def get(self, raw: bytes) -> dict[str, Any] | None:
        key = digest(raw)
        found = self._full().get(key)
        if isinstance(found, dict):
            self._used.add(key)
            return found
        return None

    def put(self, raw: bytes, data: dict[str, Any]) -> None:
        key = digest(raw)
        self._full()[key] = data
        self._used.add(key)
        self._dirty = True

    # what listing reads, by the file's place and stamp ---------------------------------------

    def head(self, where: str, stamp: list[int]) -> dict[str, Any] | None:
        """The listing fields of the file at `where`, if it is unchanged since they were kept."""
        entry = self._index.get(where)
        if not (isinstance(entry, dict) and entry.get("stamp") == stamp and isinstance(entry.get("head"), dict)
                and isinstance(entry.get("digest"), str)):
            return None
        self._index_used.add(where)
        self._used.add(entry["digest"])  # its full data stays in the cache
        return entry["head"]

    def remember(self, where: str, stamp: list[int], raw: bytes, head: dict[str, Any]) -> None:
        entry = {"stamp": stamp, "digest": digest(raw), "head": head}
        self._index_used.add(where)
        if self._index.get(where) != entry:
            self._index[where] = entry
            self._index_dirty = True

    def save(self) -> None:
        """Keep what this load used (a deleted file's entry goes); never fail the command."""
        if self.path is None:
            return
        if self._entries is not None and (self._dirty or set(self._entries) - self._used):
            kept = {k: v for k, v in self._entries.items() if k in self._used}
            self._write(self.path, {"entries": kept})
        if self._index_dirty or set(self._index) - self._index_used:
            kept = {k: v for k, v in self._index.items() if k in self._index_used}
            assert self.index_path is not None
            self._write(self.index_path, {"files": kept})

    @staticmethod
    def _write(path: Path, body: dict[str, Any]) -> None:
        from lumente_cli.paths import write_private_file

        try:
            data = json.dumps({"format": FORMAT, "version": __version__, **body},
                              ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            write_private_file(path, data)
        except (OSError, TypeError, ValueError):
            pass
