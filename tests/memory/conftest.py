"""Fixtures for the memory tests (helpers live in memhelpers.py). "contract §n" in
these tests cites docs/spec/agent-memory-contract.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhelpers import LEARNER, Clock, client_for

from lumente_cli.memory.backend import embedded_client
from lumente_cli.memory_engine import KeyRing, MemoryEngine


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "memdir" / "memory.db"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def engine(db_path, clock):
    eng = MemoryEngine(db_path, clock=clock)
    yield eng
    eng.close()


@pytest.fixture
def client(engine):
    c = client_for(engine)
    c.register_scope(LEARNER)
    yield c
    c.close()


@pytest.fixture
def embedded(db_path):
    c = embedded_client(db_path)
    yield c
    c.close()


@pytest.fixture
def served(tmp_path, clock):
    """An engine with a key ring, as `lumente memory serve` will run it."""
    ring = KeyRing()
    eng = MemoryEngine(tmp_path / "served" / "memory.db", auth=ring, clock=clock)
    admin_key = ring.mint_admin_key("test-admin")
    yield eng, admin_key
    eng.close()

