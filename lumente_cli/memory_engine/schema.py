"""The engine's tables. Entry i upgrades `PRAGMA user_version` i → i+1.
Append only; never edit an entry that has shipped.

Every memory row carries `context` (the Agent Memory context id) and `scope`
(a sorted JSON array of canonical scope paths, `["/"]` for the default
region). `scopes/forget` erases by `scope`; supersession chains are keyed by
(context, entity_id, key, scope).
"""

from __future__ import annotations

MIGRATIONS: list[list[str]] = [
    [
        """CREATE TABLE scope_node (
            context TEXT NOT NULL, path TEXT NOT NULL, created_at TEXT NOT NULL,
            tombstoned_at TEXT, display_name TEXT, description TEXT,
            PRIMARY KEY (context, path))""",
        """CREATE TABLE session (
            context TEXT NOT NULL, id TEXT PRIMARY KEY, scope TEXT NOT NULL,
            created_at TEXT NOT NULL)""",
        """CREATE TABLE turn (
            context TEXT NOT NULL, id TEXT PRIMARY KEY, session_id TEXT NOT NULL,
            role TEXT NOT NULL, content TEXT NOT NULL, labels TEXT NOT NULL,
            seq INTEGER NOT NULL, scope TEXT NOT NULL, created_at TEXT NOT NULL)""",
        "CREATE INDEX turn_session ON turn (context, session_id)",
        """CREATE TABLE entity (
            context TEXT NOT NULL, id TEXT NOT NULL, scope TEXT NOT NULL,
            entity_type TEXT NOT NULL, name TEXT NOT NULL, memory_category TEXT NOT NULL,
            importance REAL NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
            PRIMARY KEY (context, id, scope))""",
        "CREATE INDEX entity_type ON entity (context, entity_type)",
        """CREATE TABLE attribute (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            context TEXT NOT NULL, id TEXT NOT NULL UNIQUE, entity_id TEXT NOT NULL,
            key TEXT NOT NULL, value TEXT NOT NULL, memory_category TEXT NOT NULL,
            importance REAL NOT NULL, created_at TEXT NOT NULL, valid_from TEXT NOT NULL,
            valid_until TEXT, supersedes TEXT, superseded_by TEXT, scope TEXT NOT NULL,
            session_id TEXT NOT NULL, turn_id TEXT NOT NULL, turn_at TEXT NOT NULL)""",
        "CREATE INDEX attribute_entity ON attribute (context, entity_id, key)",
        # At most one open row per chain, whatever happens.
        """CREATE UNIQUE INDEX attribute_open ON attribute (context, entity_id, key, scope)
            WHERE valid_until IS NULL""",
        """CREATE TABLE relation (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            context TEXT NOT NULL, id TEXT NOT NULL UNIQUE, subject TEXT NOT NULL,
            label TEXT NOT NULL, object TEXT NOT NULL, memory_category TEXT NOT NULL,
            importance REAL NOT NULL, created_at TEXT NOT NULL, valid_from TEXT NOT NULL,
            valid_until TEXT, scope TEXT NOT NULL,
            session_id TEXT NOT NULL, turn_id TEXT NOT NULL, turn_at TEXT NOT NULL)""",
        "CREATE INDEX relation_subject ON relation (context, subject)",
        "CREATE INDEX relation_object ON relation (context, object)",
        """CREATE TABLE idempotency (
            context TEXT NOT NULL, principal TEXT NOT NULL, key TEXT NOT NULL,
            body_hash TEXT NOT NULL, state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
            token TEXT NOT NULL, created_at REAL NOT NULL, lease_until REAL,
            status INTEGER, response BLOB, scope TEXT,
            PRIMARY KEY (context, principal, key))""",
        """CREATE TABLE api_key (
            id TEXT PRIMARY KEY, context TEXT, name TEXT NOT NULL,
            secret_hash TEXT NOT NULL UNIQUE, principal_id TEXT NOT NULL,
            principal_grants TEXT NOT NULL, token_grants TEXT, is_admin INTEGER NOT NULL,
            created_at TEXT NOT NULL, valid_until TEXT, last_used_at TEXT)""",
        "CREATE UNIQUE INDEX api_key_name ON api_key (COALESCE(context, ''), name)",
    ],
    [
        # Every claim purges records older than 24 h; without this index that
        # purge scanned the whole table, making each write slower than the last.
        "CREATE INDEX idempotency_age ON idempotency (context, created_at)",
    ],
    [
        # An asOf read seeks each chain's row at an instant instead of loading
        # every row of the entity: (context, entity_id, key, scope) is the
        # chain, created_at the instant, and the rowid (seq) every index ends
        # with breaks a tie in write order. History reads use its first three
        # columns, so the index that was only those three is dropped.
        "CREATE INDEX attribute_chain ON attribute (context, entity_id, key, scope, created_at)",
        "DROP INDEX attribute_entity",
    ],
]
