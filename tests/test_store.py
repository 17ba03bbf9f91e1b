"""The local store's boundary: what goes in and comes out are frozen records
(never SQLite rows), on a real database file."""

from __future__ import annotations

import dataclasses
import sqlite3

import pytest
from helpers import lumente, solid_script

from lumente_cli import paths
from lumente_cli.store import FinishedSession, LocalStore, OutboxFact, PartResult, PendingFact
from lumente_cli.store.condition import OutboxState, database_condition, outbox_state
from lumente_cli.store.readonly import connect_read_only, fact_read_counts


def a_fact(n: int, *, scope: str = "learner/p_a", session_id: str | None = "s-1") -> OutboxFact:
    return OutboxFact(idempotency_key=f"key-{n}", scope=scope, session_id=session_id, entity="p_a_jwt",
                      key=f"help_{n}", body={"triples": [{"key": f"help_{n}", "value": f"fact {n}"}]})


@pytest.fixture
def store(tmp_path):
    s = LocalStore(tmp_path / "lumente.db")
    yield s
    s.close()


def test_the_outbox_keeps_each_field_where_it_was_given(store):
    assert store.queue_facts([a_fact(1), a_fact(2, scope="learner/p_b", session_id=None)]) == 2
    (pending,) = store.pending_facts("learner/p_a")
    assert isinstance(pending, PendingFact)
    assert pending == PendingFact(**dataclasses.asdict(a_fact(1)), attempts=0)
    (other,) = store.pending_facts("learner/p_b")
    assert other.session_id is None and other.key == "help_2"
    with pytest.raises(dataclasses.FrozenInstanceError):
        pending.attempts = 3  # type: ignore[misc]


def test_a_key_already_queued_is_kept_as_it_was(store):
    assert store.queue_facts([a_fact(1)]) == 1
    changed = dataclasses.replace(a_fact(1), body={"triples": []})
    assert store.queue_facts([changed, a_fact(3)]) == 1
    assert [p.body for p in store.pending_facts() if p.idempotency_key == "key-1"] == [a_fact(1).body]


def test_failed_and_delivered_facts_leave_the_outbox_as_recorded(store):
    store.queue_facts([a_fact(1), a_fact(2)])
    store.mark_failed("key-1", "memory is down")
    store.mark_delivered("key-2", "attr-2")
    (left,) = store.pending_facts()
    assert (left.idempotency_key, left.attempts) == ("key-1", 1)
    assert store.fact_ids_of_session("s-1") == {"attr-2"}
    con = connect_read_only(store.path)
    try:
        assert outbox_state(con) == OutboxState(pending=1, last_error="memory is down")
    finally:
        con.close()


def test_finished_sessions_and_their_parts_are_records():
    assert lumente("practice", "jwt", "--no-memory", input=solid_script(5)).exit_code == 0
    store = LocalStore(paths.current().database)
    try:
        (learner,) = [row[0] for row in store.con.execute("SELECT id FROM learner")]
        (finished,) = store.finished_sessions(learner)
        assert isinstance(finished, FinishedSession)
        assert (finished.concept, finished.prediction, finished.score) == ("jwt", 5, 8)
        assert store.finished_sessions(learner, "not_practised") == []
        parts = store.part_results([finished.id, "s-none"])
        assert parts["s-none"] == {}
        assert set(parts[finished.id]) == {"supraordinate", "coordinate", "attributes", "subordinate"}
        for part, result in parts[finished.id].items():
            assert isinstance(result, PartResult) and not isinstance(result, sqlite3.Row)
            assert result.part == part and result.new_level == result.level + 1 and result.points == 2
    finally:
        store.close()


def test_the_read_only_condition_of_a_database_changes_nothing(store):
    before = store.path.read_bytes()
    con = connect_read_only(store.path)
    try:
        condition = database_condition(con)
        with pytest.raises(sqlite3.OperationalError):
            con.execute("DELETE FROM memory_fact")
    finally:
        con.close()
    assert condition.intact and condition.journal_mode == "wal" and condition.schema_version >= 1
    assert store.path.read_bytes() == before


def test_a_missing_database_is_not_created_by_a_read_only_connection(tmp_path):
    with pytest.raises(sqlite3.OperationalError):
        connect_read_only(tmp_path / "absent.db")
    assert not (tmp_path / "absent.db").exists()


def test_read_counts_read_only_agree_with_the_store_and_create_nothing(store, tmp_path):
    store.record_agent_call(None, "coach", "offline", scope="learner/p_a", facts_given=["f1", "f2"])
    store.record_agent_call(None, "hint_giver", "offline", scope="learner/p_a", facts_given=["f1"])
    ids = ["f1", "f2", "f3"]
    before = store.path.read_bytes()
    assert fact_read_counts(store.path, ids) == store.read_counts(ids) == {"f1": 2, "f2": 1, "f3": 0}
    assert store.path.read_bytes() == before
    assert fact_read_counts(tmp_path / "absent.db", ids) == {"f1": 0, "f2": 0, "f3": 0}
    assert not (tmp_path / "absent.db").exists()
    older = tmp_path / "older.db"  # a database from before agent calls were logged
    sqlite3.connect(older).execute("CREATE TABLE learner(id INTEGER PRIMARY KEY)").connection.close()
    assert fact_read_counts(older, ids) == {"f1": 0, "f2": 0, "f3": 0}


def test_history_is_read_without_writing_and_an_older_database_is_left_to_the_store(store, tmp_path):
    from lumente_cli.store.history import read_history

    learner = store.learner_id("p_a")
    before = store.path.read_bytes()
    history = read_history(store.path)
    assert history is not None
    try:
        assert history.find_learner("p_a") == learner and history.finished_sessions(learner) == []
        with pytest.raises(sqlite3.OperationalError):  # read-only: a write fails
            history.learner_id("p_b")
    finally:
        history.close()
    assert store.path.read_bytes() == before
    assert read_history(tmp_path / "absent.db") is None and not (tmp_path / "absent.db").exists()
    older = tmp_path / "older.db"
    con = sqlite3.connect(older)
    con.execute("PRAGMA user_version=1")
    con.close()
    assert read_history(older) is None
