"""Reads and writes seek through indexes, however long the chains grow; and
asOf reads, now one index seek per chain, give the answers the contract
defines (§3.6): per chain the row with the greatest createdAt ≤ asOf, the
later write on a tie, lapsed rows left out, unreadable scopes not there, 404
when nothing is visible then."""

from __future__ import annotations

import re
import sqlite3
import tempfile
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhelpers import Clock, ENTITY, client_for, fact, mint_key

from lumente_cli.memory_engine import KeyRing, MemoryEngine
from lumente_cli.memory_engine.lifecycle import expired
from lumente_cli.memory_engine.schema import MIGRATIONS
from lumente_cli.timeutil import format_time, parse_instant
from lumente_cli.agent_memory.wire import MintKeyBody

MINE, OTHER = "learner/p_abc", "learner/p_other"
SEEKS_A_CHAIN = "COVERING INDEX attribute_chain (context=? AND entity_id=? AND key=? AND scope=? AND created_at<?)"


def traced(engine: MemoryEngine) -> list[str]:
    """Every statement the engine runs from now on. Single-threaded, the pool
    hands the same connection back to each call."""
    statements: list[str] = []
    with engine.store.connection() as con:
        con.set_trace_callback(statements.append)
    return statements


def plan(engine: MemoryEngine, sql: str) -> list[str]:
    con = sqlite3.connect(engine.db_path)  # its own connection, so explaining is not traced
    try:
        return [row[3] for row in con.execute("EXPLAIN QUERY PLAN " + sql)]
    finally:
        con.close()


def plans_of(engine: MemoryEngine, statements: list[str], table: str | None = None) -> list[list[str]]:
    """The plans of the statements that query `table` (of every query, without one)."""
    queries = [s for s in statements if s.split(" ", 1)[0].upper() in ("SELECT", "UPDATE", "INSERT", "DELETE")
               and (table is None or re.search(rf"\b(FROM|INTO|UPDATE) {table}\b", s))]
    return [plan(engine, s) for s in queries]


def grow(client, clock, rounds: int) -> None:
    for i in range(rounds):
        clock.advance(minutes=1)
        for key in ("gap", "level_coordinate"):
            client.write_facts(fact(key, f"{key} {i}"), idempotency_key=f"{key}-{i}")


def test_current_and_as_of_reads_seek_only_through_indexes(engine, client, clock):
    grow(client, clock, 5)
    statements = traced(engine)
    client.entity("topic", ENTITY)
    current = plans_of(engine, statements, "attribute")
    statements.clear()
    client.entity("topic", ENTITY, as_of=clock.now.isoformat())
    as_of = plans_of(engine, statements, "attribute")
    relations = plans_of(engine, statements, "relation")
    assert current == [["SEARCH attribute USING INDEX attribute_open (context=? AND entity_id=?)",
                        "USE TEMP B-TREE FOR ORDER BY"]]
    [steps] = as_of
    assert "SEARCH head USING INDEX attribute_open (context=? AND entity_id=?)" in steps
    assert "SEARCH row USING INTEGER PRIMARY KEY (rowid=?)" in steps
    assert f"SEARCH x USING {SEEKS_A_CHAIN}" in steps
    [steps] = relations
    assert any("relation_subject (context=? AND subject=?)" in s for s in steps)
    assert any("relation_object (context=? AND object=?)" in s for s in steps)
    assert not [s for p in current + as_of + relations for s in p if s.startswith("SCAN")]


def test_writes_and_history_reads_seek_only_through_indexes(engine, client, clock):
    grow(client, clock, 3)
    statements = traced(engine)
    clock.advance(minutes=1)
    client.write_facts(fact("gap", "new"), idempotency_key="new")
    client.history("topic", ENTITY, "gap")
    steps = [s for p in plans_of(engine, statements) for s in p]
    assert "SEARCH attribute USING INDEX attribute_open (context=? AND entity_id=? AND key=? AND scope=?)" in steps
    assert "SEARCH attribute USING INDEX attribute_chain (context=? AND entity_id=? AND key=?)" in steps
    assert not [s for s in steps if s.startswith("SCAN")]


def test_a_schema_2_file_gets_the_chain_index_and_keeps_its_rows(tmp_path, clock):
    db = tmp_path / "memory.db"
    con = sqlite3.connect(db)
    for statements in MIGRATIONS[:2]:
        for statement in statements:
            con.execute(statement)
    con.execute("PRAGMA user_version = 2")
    con.commit()
    con.close()
    with MemoryEngine(db, clock=clock) as engine:
        client = client_for(engine)
        client.register_scope(MINE)
        grow(client, clock, 2)
        assert [a.value for a in client.entity("topic", ENTITY).attributes] == ["gap 1", "level_coordinate 1"]
        client.close()
    con = sqlite3.connect(db)
    indexes = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'attribute'")}
    assert con.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) == 3
    assert "attribute_chain" in indexes and "attribute_open" in indexes and "attribute_entity" not in indexes
    con.close()


# ------------------------------------------------------------- asOf semantics


def shift(stamp: str, micros: int) -> str:
    return format_time(parse_instant(stamp) + timedelta(microseconds=micros))


def expected_as_of(db: Path, moment: str, readable: set[str], now) -> list[str] | None:
    """The contract's asOf answer, worked out the slow way from every row: the
    ids the entity read must return, in order, or None for a 404."""
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    try:
        eid = f"entity:topic/{ENTITY}"
        scopes = {f'["{s}/"]' for s in readable}
        if not [r for r in con.execute("SELECT * FROM entity WHERE id = ?", (eid,))
                if r["scope"] in scopes and r["created_at"] <= moment]:
            return None
        best = {}
        for row in con.execute("SELECT * FROM attribute WHERE entity_id = ? ORDER BY created_at, seq", (eid,)):
            if row["scope"] in scopes and row["created_at"] <= moment:
                best[(row["key"], row["scope"])] = row  # in (created_at, seq) order: the later write wins a tie
        kept = sorted((r for r in best.values() if not expired(r, now)), key=lambda r: (r["created_at"], r["seq"]))
        return [r["id"] for r in kept]
    finally:
        con.close()


# (key, value, scope, observed_at minutes before now or None, category, minutes to wait first)
WRITE = st.tuples(st.sampled_from(["gap", "level_coordinate"]), st.sampled_from(["one", "two", "three"]),
                  st.sampled_from([MINE, OTHER]), st.one_of(st.none(), st.integers(0, 3)),
                  st.sampled_from(["knowledge", "context"]), st.integers(0, 2))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(WRITE, min_size=1, max_size=12), st.booleans())
def test_as_of_gives_the_contract_answer_at_every_instant(writes, later):
    with tempfile.TemporaryDirectory() as tmp:
        db, clock, ring = Path(tmp) / "memory.db", Clock(), KeyRing()
        with MemoryEngine(db, auth=ring, clock=clock) as engine:
            admin = client_for(engine, context="ctx", api_key=ring.mint_admin_key("admin"))
            for scope in (MINE, OTHER):
                admin.register_scope(scope)
            narrow = mint_key(admin, MintKeyBody(name="mine", grants={"memory:read": [MINE + "/*"]}))
            mine = client_for(engine, context="ctx", api_key=narrow.key)
            for i, (key, value, scope, back, category, wait) in enumerate(writes):
                clock.advance(minutes=wait)
                observed = None if back is None else (clock.now - timedelta(minutes=back)).isoformat()
                admin.write_facts(fact(key, value, scope=scope, observed_at=observed, memory_category=category),
                                  idempotency_key=f"w{i}")
            if later:
                clock.advance(days=8)  # every `context` row has lapsed
            con = sqlite3.connect(db)
            stamps = sorted({r[0] for r in con.execute("SELECT created_at FROM attribute")})
            con.close()
            moments = ["2000-01-01T00:00:00.000000Z"] + [shift(s, by) for s in stamps for by in (-1, 0, 1)]
            for reader, readable in ((admin, {MINE, OTHER}), (mine, {MINE})):
                for moment in moments:
                    got = reader.entity("topic", ENTITY, as_of=moment)
                    want = expected_as_of(db, moment, readable, clock.now)
                    assert (None if got is None else [a.id for a in got.attributes]) == want, moment
            admin.close()
            mine.close()
