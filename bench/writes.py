"""Benchmark: embedded memory writes, sequential as the app makes them, and
how they and the app's reads compare with the live service.

Each session's facts are queued in the local store (`LearnerMemory.
queue_session`, the app's own call) and then delivered by `LearnerMemory.
deliver`: `writer.deliver` through the real client and the in-process
transport, one request per fact with its Idempotency-Key, each marked
delivered in the local store. Only the delivery is timed. A sample is a batch
of sessions; facts/s is the batch's facts over its delivery time.

The live service's figures are the ones the team reported in
/work/shared/seeds/lumente-agent-memory-post.txt ("Notes from the live
service": "about 900 ms each" for sequential POST /facts; "Reading it back":
the history read "took 290 to 370 ms"). They are one-off reported numbers,
not measured here.

    python bench/writes.py [--quick]
"""

from __future__ import annotations

import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # report.py, figures.py, machine.py beside this script
import report
from figures import Figure, repeat

from lumente_cli.memory import facts as F
from lumente_cli.memory.backend import embedded
from lumente_cli.memory.recall import facts_of
from lumente_cli.memory.service import LearnerMemory
from lumente_cli.memory.writer import ENTITY_TYPE
from lumente_cli.parts import PARTS
from lumente_cli.session.engine import PartProgress, SessionState
from lumente_cli.store import LocalStore

SECTION = "writes"
SEED_POST = "/work/shared/seeds/lumente-agent-memory-post.txt"
LIVE_WRITE_MS = 900.0  # "One at a time, they all went through at about 900 ms each"
LIVE_HISTORY_MS = (290.0, 370.0)  # "When we measured it on the live service, it took 290 to 370 ms"
TARGET_RATE = 300.0
PSEUDONYM = "p_" + "cd" * 12
CONCEPT_ID, CONCEPT_NAME = "jwt", "JWT"
BASE = datetime(2025, 1, 1, tzinfo=timezone.utc)


def finished_session(i: int) -> SessionState:
    """A finished session whose numbers change every time, so every level,
    gap and help fact supersedes the one before (nine facts, as the app's
    busiest session writes)."""
    parts = tuple(PartProgress(part=p, level=1 + (i + k) % 5, status="done", help_taps=(i + k) % 3,
                               points=(i + k) % 3, new_level=1 + (i + k + 1) % 5)
                  for k, p in enumerate(PARTS))
    return SessionState(concept=CONCEPT_ID, stage="finished", prediction=1 + i % 5, parts=parts, current=len(parts))


class App:
    """The app's memory path for one learner: local outbox, embedded memory."""

    def __init__(self, root: Path) -> None:
        self.store = LocalStore(root / "lumente.db")
        self.backend = embedded(root / "memory.db")
        self.memory = LearnerMemory(self.backend, self.store, PSEUDONYM, CONCEPT_ID)
        self.sessions = 0

    def queue(self) -> int:
        i, self.sessions = self.sessions, self.sessions + 1
        at = (BASE + timedelta(minutes=i)).isoformat()
        return self.memory.queue_session(f"bench-session-{i}", CONCEPT_NAME, finished_session(i), at)

    def deliver_sessions(self, sessions: int) -> float:
        """Facts per second over `sessions` sessions, each queued then
        delivered as the app does at a session's end (only delivery timed)."""
        facts, spent = 0, 0.0
        for _ in range(sessions):
            queued = self.queue()
            start = time.perf_counter()
            done = self.memory.deliver(budget_s=None)
            spent += time.perf_counter() - start
            assert done.error is None and done.written == queued and done.queued == 0, done
            facts += done.written
        return facts / spent

    def close(self) -> None:
        self.backend.close()
        self.store.close()


def measure(quick: bool = False) -> list[Figure]:
    runs, sessions = (3, 3) if quick else (9, 20)
    with tempfile.TemporaryDirectory() as tmp:
        app = App(Path(tmp))
        try:
            app.deliver_sessions(sessions)  # warm-up: files created, code paths loaded
            rates = [app.deliver_sessions(sessions) for _ in range(runs)]
            client = app.backend.client()
            entity = app.memory.entity
            recall = repeat(lambda: facts_of(client, ENTITY_TYPE, entity), runs=max(runs, 10))
            history = repeat(lambda: client.history(ENTITY_TYPE, entity, F.GAP_KEY), runs=max(runs, 10))
            rows_per_key = app.sessions
        finally:
            app.close()
    practice_keys = [k for k in F.ALL_KEYS if k not in F.CHECK_KEYS]  # what a practice session writes
    per_session = f"{sessions} sessions of {len(practice_keys)} facts per sample"
    # Rates: ours over the live rate (how many times more facts/s). Times: the
    # live figure over ours (how many times longer the live service took), so
    # neither ratio is a 0.00x.
    live_rate = Figure(SECTION, "live service: sequential writes (reported)", "facts/s", [1000 / LIVE_WRITE_MS],
                       note=f"{SEED_POST}: about {LIVE_WRITE_MS:g} ms per POST /facts, one at a time",
                       higher_is_better=True)
    rate = Figure(SECTION, "embedded: sequential writes through writer.deliver", "facts/s", rates,
                  note=per_session, higher_is_better=True)
    rate.against(live_rate)
    rate.hold_to(f">= {TARGET_RATE:g} facts/s", rate.median >= TARGET_RATE)
    write = Figure(SECTION, "embedded: one write", "ms", [1000 / r for r in rates], note=per_session)
    live_write = Figure(SECTION, "live service: one write (reported)", "ms", [LIVE_WRITE_MS], note=SEED_POST)
    live_write.against(write)
    history_fig = Figure(SECTION, f"embedded: history of one key, {rows_per_key} rows", "ms", history)
    live_read = Figure(SECTION, "live service: history read (reported)", "ms", list(LIVE_HISTORY_MS),
                       note=f"{SEED_POST}: 290 to 370 ms (the min and max reported; the median is their middle)")
    live_read.against(history_fig)
    recall_fig = Figure(SECTION, f"embedded: recall (facts_of), {rows_per_key} rows/key", "ms", recall,
                        note="the one read the app makes where the live app read the history")
    return [live_rate, rate, write, live_write, history_fig, live_read, recall_fig]


def main(argv: list[str] | None = None) -> int:
    return report.main_for("writes", measure, argv)


if __name__ == "__main__":
    sys.exit(main())
