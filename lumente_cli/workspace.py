"""Everything a command needs from the machine, opened lazily: paths,
settings, the local store, and the learner's pseudonym."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from lumente_cli import paths as paths_mod
from lumente_cli import settings as settings_mod
from lumente_cli.memory import pseudonym as pseudo

if TYPE_CHECKING:
    from lumente_cli.concepts.library import Library
    from lumente_cli.memory.backend import MemoryBackend
    from lumente_cli.store import LocalStore


@dataclass
class Workspace:
    _store: LocalStore | None = field(default=None, init=False)

    @cached_property
    def paths(self) -> paths_mod.Paths:
        return paths_mod.current()

    @cached_property
    def settings(self) -> settings_mod.Settings:
        return settings_mod.load()

    @property
    def store(self) -> LocalStore:
        if self._store is None:
            from lumente_cli.store import LocalStore

            self._store = LocalStore(self.paths.database)
        return self._store

    @cached_property
    def sign_in(self) -> str:
        return pseudo.sign_in_or_default(self.settings["sign_in"])

    @cached_property
    def pseudonym(self) -> str:
        return pseudo.learner_pseudonym(self.paths.secret, self.sign_in)

    @property
    def scope(self) -> str:
        return pseudo.scope_of(self.pseudonym)

    def memory_backend(self, *, disabled: bool = False) -> MemoryBackend:
        from lumente_cli.memory.backend import from_settings

        return from_settings(self.settings, self.paths, disabled=disabled)

    def library(self) -> Library:
        from lumente_cli.concepts.library import load_default

        return load_default()

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
