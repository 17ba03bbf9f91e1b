"""A Lumente home whose embedded memory holds a given number of facts, for
the benchmarks of commands that read memory (`memory show` with 1,000 or
10,000 facts).

The facts are the ones sessions write: the templates of memory/facts.py, for
the learner `lumente` itself derives from the home's secret, spread over the
shipped concepts, a simulated session at a time (four Help facts, a gap, and
the level of each part that changed). Each simulated session goes to the
engine through the real client as one request carrying its facts, which keeps
seeding 10,000 facts to a few seconds; the timed write benchmark
(bench/writes.py) sends one fact per request, as the app does.
"""

from __future__ import annotations

import os
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

from lumente_cli.memory import facts as F
from lumente_cli.memory import writer
from lumente_cli.parts import PARTS


FIRST_SESSION = datetime(2024, 1, 1, 18, tzinfo=timezone.utc)


def seed_home(home: Path, facts: int, *, seed: int = 8) -> int:
    """Fill `home` (a LUMENTE_HOME) with about `facts` facts; returns the exact count written."""
    os.environ["LUMENTE_HOME"] = str(home)
    from lumente_cli.concepts.library import load_default
    from lumente_cli.agent_memory.wire import FactsRequest
    from lumente_cli.workspace import Workspace

    rng = random.Random(seed)
    ws = Workspace()
    lib = load_default()
    concepts = [lib.concepts[cid].concept for cid in lib.ids()]
    backend = ws.memory_backend()
    client = backend.client()
    client.register_scope(ws.scope)
    levels = {(c.id, p): 1 for c in concepts for p in PARTS}
    written = session = 0
    try:
        while written < facts:
            concept = concepts[session % len(concepts)]
            session += 1
            sid = f"seed-{session:06d}"
            rows: list[writer.FactWrite] = []
            for part in PARTS:
                old = levels[(concept.id, part)]
                new = max(1, min(5, old + rng.choice((-1, 0, 0, 1))))
                if new != old or session <= len(concepts):
                    levels[(concept.id, part)] = new
                    rows.append(writer.FactWrite(F.level_key(part), F.level_sentence(concept.name, part, new),
                                                 "advance", (("level", new), ("previous", old))))
            predicted, proved = rng.randint(0, 8), rng.randint(0, 8)
            rows.append(writer.FactWrite(F.GAP_KEY, F.gap_sentence(concept.name, predicted, proved), "coach",
                                         (("predicted", predicted), ("score", proved))))
            for part in PARTS:
                taps = rng.randint(0, 3)
                rows.append(writer.FactWrite(F.help_key(part), F.help_sentence(concept.name, part, taps),
                                             "hint_giver", (("help", taps),)))
            rows = rows[: facts - written]
            entity = writer.entity_name(ws.pseudonym, concept.id)
            # One session a day, as a student would: each session's facts share their known time.
            observed = (FIRST_SESSION + timedelta(days=session)).strftime("%Y-%m-%dT%H:%M:%SZ")
            bodies = [writer.request_body(r, scope=ws.scope, entity=entity, session_id=sid, turn=9,
                                          observed_at=observed) for r in rows]
            merged = dict(bodies[0], triples=[t for b in bodies for t in b["triples"]])
            client.write_facts(FactsRequest.model_validate(merged), idempotency_key=f"seed:{sid}")
            written += len(rows)
    finally:
        backend.close()
        ws.close()
    return written
