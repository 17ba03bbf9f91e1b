"""Lumente's own local database: the only place student text is kept, and the
only source the scoring code reads levels from."""

from lumente_cli.store.db import open_database
from lumente_cli.store.repository import LocalStore, SessionRecord

__all__ = ["LocalStore", "SessionRecord", "open_database"]
