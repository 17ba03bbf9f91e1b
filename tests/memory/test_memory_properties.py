"""Property: whatever sequence of writes arrives, every supersession chain
stays well-formed (contract §2.9, §11.4–§11.6)."""

from __future__ import annotations

import tempfile
from collections import Counter
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhelpers import ENTITY, Clock, client_for, fact, utc

from lumente_cli.memory_engine import MemoryEngine

KEYS = ["gap", "level_coordinate", "help_attributes"]
SCOPES = ["learner/p_abc", "learner/p_abc/device"]
VALUES = ["one", "two", "three"]

write = st.tuples(st.sampled_from(KEYS), st.sampled_from(VALUES), st.sampled_from(SCOPES),
                  st.integers(min_value=0, max_value=3))


def chains_from_links(rows):
    """Rebuild chains by following supersedes/supersededBy links only."""
    by_id = {r.id: r for r in rows}
    assert len(by_id) == len(rows), "duplicate ids"
    chains = []
    for head in (r for r in rows if r.supersedes is None):
        chain, row = [head], head
        while row.superseded_by is not None:
            nxt = by_id[row.superseded_by]
            assert nxt.supersedes == row.id, "links disagree"
            chain.append(nxt)
            row = nxt
        chains.append(chain)
    assert sum(len(c) for c in chains) == len(rows), "a row is in no chain, or in two"
    return chains


@settings(max_examples=35, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(write, min_size=1, max_size=14))
def test_chains_stay_well_formed(writes):
    with tempfile.TemporaryDirectory() as tmp:
        clock = Clock()
        engine = MemoryEngine(Path(tmp) / "memory.db", clock=clock)
        client = client_for(engine)
        for scope in SCOPES:
            client.register_scope(scope)
        model: dict[tuple[str, str], list[str]] = {}
        timeline = []  # (time, {(key, scope): value}) after each write
        for i, (key, value, scope, wait) in enumerate(writes):
            clock.advance(seconds=wait)
            client.write_facts(fact(key, value, scope=scope), idempotency_key=f"w{i}")
            chain = model.setdefault((key, scope), [])
            if not chain or chain[-1] != value:
                chain.append(value)
            timeline.append((clock.now, {k: v[-1] for k, v in model.items()}))

        for key in KEYS:
            rows = client.history("topic", ENTITY, key)
            assert [r.created_at for r in rows] == sorted(r.created_at for r in rows)
            chains = chains_from_links(rows)
            for chain in chains:
                assert sum(r.valid_until is None for r in chain) == 1, "exactly one open row per chain"
                assert chain[-1].valid_until is None
                for old, new in zip(chain, chain[1:]):
                    assert old.valid_until == new.valid_from
                    assert old.value != new.value
                    assert utc(new.created_at) >= utc(old.created_at)
                    assert utc(old.valid_from) <= utc(old.valid_until)
                for r in chain:
                    assert r.source.kind == "upsert" and r.source.trust == 0.95
            expected = Counter(tuple(v) for (k, _), v in model.items() if k == key)
            assert Counter(tuple(r.value for r in c) for c in chains) == expected

        current = client.entity("topic", ENTITY)
        assert Counter((a.key, a.value) for a in current.attributes) == Counter(
            (k, v[-1]) for (k, _), v in model.items())

        for moment, _ in timeline:
            # the last write at or before `moment` decides each chain's value then
            later_same_time = [s for t, s in timeline if t == moment][-1]
            seen = client.entity("topic", ENTITY, as_of=moment.isoformat())
            assert Counter((a.key, a.value) for a in seen.attributes) == Counter(
                (k, v) for (k, _), v in later_same_time.items())
        before = timeline[0][0] - timedelta(seconds=1)
        assert client.entity("topic", ENTITY, as_of=before.isoformat()) is None
        client.close()
        engine.close()
