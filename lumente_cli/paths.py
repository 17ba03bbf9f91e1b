"""Where Lumente keeps its files. Resolved at call time so tests and
`LUMENTE_HOME` can move everything; nothing is created here."""

from __future__ import annotations

import os
from dataclasses import dataclass
from itertools import takewhile
from pathlib import Path
from typing import Literal

APP = "lumente"


@dataclass(frozen=True)
class Entry:
    """One thing Lumente stores, for `lumente path`, the man page and the docs."""

    name: str
    path: Path
    kind: Literal["dir", "file", "table"]
    description: str
    table: str | None = None  # for kind "table": the table inside `path`


@dataclass(frozen=True)
class Paths:
    config_dir: Path
    data_dir: Path

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.toml"

    @property
    def user_concepts_dir(self) -> Path:
        """Concept files the user adds by hand."""
        return self.config_dir / "concepts"

    @property
    def mapped_concepts_dir(self) -> Path:
        """Concept files the Claude mapper built, kept for reuse."""
        return self.data_dir / "mapped-concepts"

    @property
    def database(self) -> Path:
        """Lumente's own log: learners, sessions, answers, levels, outbox."""
        return self.data_dir / "lumente.db"

    @property
    def memory_database(self) -> Path:
        """The embedded Agent Memory engine's store."""
        return self.data_dir / "memory.db"

    @property
    def concept_cache(self) -> Path:
        """Concept files already parsed, so commands need not parse TOML each time."""
        return self.data_dir / "cache" / "concepts.json"

    @property
    def secret(self) -> Path:
        """The random key the learner pseudonym is derived under."""
        return self.data_dir / "secret"

    def entries(self) -> list[Entry]:
        """Everything Lumente keeps, in the order `lumente path` lists it."""
        return [
            Entry("config_dir", self.config_dir, "dir", "Settings and your own concept files."),
            Entry("config", self.config_file, "file",
                  "Settings (TOML, mode 0600); `lumente config` reads and writes it."),
            Entry("user_concepts", self.user_concepts_dir, "dir",
                  "Concept files you add by hand, one TOML file per concept."),
            Entry("data_dir", self.data_dir, "dir", "Lumente's data (mode 0700)."),
            Entry("database", self.database, "file",
                  "Lumente's own log (SQLite, mode 0600, with -wal and -shm files beside it): "
                  "learners, sessions, your answers, levels. The only place your answers are kept."),
            Entry("outbox", self.database, "table",
                  "Memory facts waiting to be delivered: the memory_fact table inside the database "
                  "(rows not yet delivered). `lumente memory sync` delivers them.",
                  table="memory_fact"),
            Entry("memory_database", self.memory_database, "file",
                  "The embedded memory engine's store (SQLite), used when no memory_url is set."),
            Entry("secret", self.secret, "file",
                  "The random key your learner pseudonym is derived under (mode 0600). "
                  "Without it you get a new pseudonym."),
            Entry("concept_cache", self.concept_cache, "file",
                  "Concept files already parsed (JSON, keyed by a hash of each file, with a small "
                  "index for listing beside it), so commands skip parsing TOML; safe to delete, it is rebuilt."),
            Entry("mapped_concepts", self.mapped_concepts_dir, "dir",
                  "Concept files the Claude mapper built for concepts not in the library, kept for reuse."),
        ]


def current() -> Paths:
    """`LUMENTE_HOME` puts everything in one folder; otherwise the XDG dirs."""
    home = os.environ.get("LUMENTE_HOME")
    if home:
        root = Path(home).expanduser()
        return Paths(config_dir=root / "config", data_dir=root / "data")
    from platformdirs import PlatformDirs

    dirs = PlatformDirs(APP, appauthor=False)
    return Paths(config_dir=Path(dirs.user_config_dir), data_dir=Path(dirs.user_data_dir))


def ensure_private_dir(path: Path) -> None:
    """Create a directory readable only by its owner (0700), and so every
    missing folder above it: mkdir(parents=True) would make those 0755 (a cache
    file written first must not leave the data folder readable by others)."""
    missing = list(takewhile(lambda folder: not folder.exists(), (path, *path.parents)))
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
    path.mkdir(parents=True, exist_ok=True, mode=0o700)  # raises when `path` is a file
    # A folder of Lumente's that already existed open to others (0777 from an old
    # umask or a copy) is closed again: it holds answers and the learner secret.
    if path.stat().st_mode & 0o077:
        os.chmod(path, 0o700)


def write_private_file(path: Path, data: bytes) -> None:
    """Write a file atomically with mode 0600, so a crash never leaves half of it."""
    ensure_private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    os.chmod(path, 0o600)
