"""Where Lumente keeps its files. Resolved at call time so tests and
`LUMENTE_HOME` can move everything; nothing is created here."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

APP = "lumente"


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
    def secret(self) -> Path:
        """The random key the learner pseudonym is derived under."""
        return self.data_dir / "secret"


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
    """Create a directory readable only by its owner (0700)."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)


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
