"""Schema migrations: entry i moves `user_version` from i to i+1.

Append only; never edit an entry that has shipped.
"""

MIGRATIONS: list[list[str]] = [
    [
        """CREATE TABLE learner(
            id INTEGER PRIMARY KEY,
            pseudonym TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL)""",
        """CREATE TABLE session(
            id TEXT PRIMARY KEY,
            learner_id INTEGER NOT NULL REFERENCES learner(id) ON DELETE CASCADE,
            concept TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('active', 'paused', 'finished', 'abandoned')),
            provider TEXT NOT NULL,
            started_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            finished_at TEXT,
            prediction INTEGER,
            score INTEGER,
            initial_state TEXT NOT NULL,
            state TEXT NOT NULL,
            input_tokens INTEGER NOT NULL DEFAULT 0,
            output_tokens INTEGER NOT NULL DEFAULT 0)""",
        "CREATE INDEX session_by_learner ON session(learner_id, concept, status)",
        """CREATE TABLE engine_event(
            session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            event TEXT NOT NULL,
            PRIMARY KEY (session_id, seq))""",
        """CREATE TABLE event(
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            part TEXT,
            data TEXT NOT NULL,
            at TEXT NOT NULL)""",
        "CREATE INDEX event_by_session ON event(session_id)",
        """CREATE TABLE answer(
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
            part TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('answer', 'question')),
            level INTEGER NOT NULL,
            text TEXT NOT NULL,
            verdict TEXT NOT NULL,
            feedback TEXT NOT NULL,
            at TEXT NOT NULL)""",
        """CREATE TABLE level(
            learner_id INTEGER NOT NULL REFERENCES learner(id) ON DELETE CASCADE,
            concept TEXT NOT NULL,
            part TEXT NOT NULL,
            level INTEGER NOT NULL CHECK (level BETWEEN 1 AND 5),
            updated_at TEXT NOT NULL,
            PRIMARY KEY (learner_id, concept, part))""",
        """CREATE TABLE part_result(
            session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
            part TEXT NOT NULL,
            level INTEGER NOT NULL,
            new_level INTEGER NOT NULL,
            verdict TEXT NOT NULL,
            question TEXT,
            points INTEGER NOT NULL,
            help_taps INTEGER NOT NULL,
            PRIMARY KEY (session_id, part))""",
        """CREATE TABLE agent_call(
            id INTEGER PRIMARY KEY,
            session_id TEXT REFERENCES session(id) ON DELETE CASCADE,
            agent TEXT NOT NULL,
            provider TEXT NOT NULL,
            scope TEXT,
            cites_kept TEXT NOT NULL DEFAULT '[]',
            cites_dropped TEXT NOT NULL DEFAULT '[]',
            at TEXT NOT NULL)""",
        """CREATE TABLE agent_call_fact(
            call_id INTEGER NOT NULL REFERENCES agent_call(id) ON DELETE CASCADE,
            fact_id TEXT NOT NULL,
            PRIMARY KEY (call_id, fact_id))""",
        "CREATE INDEX agent_call_fact_by_fact ON agent_call_fact(fact_id)",
        # Every memory fact Lumente decides to write, from queueing to delivery.
        # Rows with delivered_at NULL are the outbox.
        """CREATE TABLE memory_fact(
            idempotency_key TEXT PRIMARY KEY,
            scope TEXT NOT NULL,
            session_id TEXT,
            entity TEXT NOT NULL,
            key TEXT NOT NULL,
            body TEXT NOT NULL,
            queued_at TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            delivered_at TEXT,
            fact_id TEXT)""",
        "CREATE INDEX memory_fact_pending ON memory_fact(scope, delivered_at)",
    ],
    # A session is driven by one process at a time: the one that holds it.
    [
        "ALTER TABLE session ADD COLUMN holder TEXT",
        "ALTER TABLE session ADD COLUMN held_at TEXT",
    ],
    # The last `lumente scan` of each learner, for `lumente next`: which concepts the
    # project relies on and how strongly. No path, file name or line of the project.
    [
        """CREATE TABLE scan(
            learner_id INTEGER PRIMARY KEY REFERENCES learner(id) ON DELETE CASCADE,
            scanned_at TEXT NOT NULL,
            files INTEGER NOT NULL)""",
        """CREATE TABLE scan_finding(
            learner_id INTEGER NOT NULL REFERENCES scan(learner_id) ON DELETE CASCADE,
            concept TEXT NOT NULL,
            score REAL NOT NULL,
            risky INTEGER NOT NULL,
            signals INTEGER NOT NULL,
            files INTEGER NOT NULL,
            reason TEXT NOT NULL,
            PRIMARY KEY (learner_id, concept))""",
    ],
    # `lumente check`: a level per concept, each finished round, and each claim's verdict
    # with what the student wrote about it (kept here only, like answers).
    [
        """CREATE TABLE check_level(
            learner_id INTEGER NOT NULL REFERENCES learner(id) ON DELETE CASCADE,
            concept TEXT NOT NULL,
            level INTEGER NOT NULL CHECK (level BETWEEN 1 AND 5),
            updated_at TEXT NOT NULL,
            PRIMARY KEY (learner_id, concept))""",
        """CREATE TABLE check_round(
            id TEXT PRIMARY KEY,
            learner_id INTEGER NOT NULL REFERENCES learner(id) ON DELETE CASCADE,
            concept TEXT NOT NULL,
            explanation TEXT NOT NULL,
            level INTEGER NOT NULL,
            new_level INTEGER NOT NULL,
            prediction INTEGER NOT NULL,
            claims INTEGER NOT NULL,
            flaws INTEGER NOT NULL,
            caught INTEGER NOT NULL,
            false_alarms INTEGER NOT NULL,
            score INTEGER NOT NULL,
            hints INTEGER NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT NOT NULL)""",
        "CREATE INDEX check_round_by_learner ON check_round(learner_id, concept, finished_at)",
        """CREATE TABLE check_claim(
            round_id TEXT NOT NULL REFERENCES check_round(id) ON DELETE CASCADE,
            number INTEGER NOT NULL,
            verdict TEXT NOT NULL,
            reason TEXT,
            question TEXT,
            question_verdict TEXT,
            PRIMARY KEY (round_id, number))""",
    ],
]
