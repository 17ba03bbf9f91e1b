"""Run whole practice sessions in-process with a memory client whose traffic
is recorded: the real runner, offline agents, store and embedded engine."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from lumente_cli.agents.offline import OfflineAgents
from lumente_cli.concepts.library import load_library
from lumente_cli.memory.backend import MemoryBackend
from lumente_cli.agent_memory.client import MemoryClient
from lumente_cli.memory_engine import MemoryEngine
from lumente_cli.memory.service import LearnerMemory
from lumente_cli.memory_engine.transport import EmbeddedTransport
from lumente_cli.practice.events import Emitter
from lumente_cli.practice.opening import ResumeChoice
from lumente_cli.practice.runner import PracticeRun
from lumente_cli.practice.student_io import ScriptedIO
from lumente_cli.store import LocalStore
from lumente_cli.sqlite_tx import write_tx


@dataclass
class Captured:
    method: str
    url: str
    headers: list[tuple[str, str]]
    body: bytes

    def text(self) -> str:
        head = "\n".join(f"{k}: {v}" for k, v in self.headers)
        return f"{self.method} {self.url}\n{head}\n\n{self.body.decode('utf-8', 'replace')}"


class RecordingTransport:
    """A client transport that passes every request to the wrapped one and keeps a
    copy of it: its method, URL (with the query), headers and JSON body."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.requests: list[Captured] = []

    def where(self) -> str:
        return self.inner.where()

    def send(self, method: str, path: str, *, params: Mapping[str, str] | None, headers: Mapping[str, str],
             json_body: Any, time_left: float | None) -> Any:
        query = f"?{urlencode(params)}" if params else ""
        body = b"" if json_body is None else json.dumps(json_body).encode()
        self.requests.append(Captured(method, f"http://embedded.memory{path}{query}", list(headers.items()), body))
        return self.inner.send(method, path, params=params, headers=headers, json_body=json_body, time_left=time_left)

    def close(self) -> None:
        self.inner.close()


@dataclass
class Rig:
    """One learner's local store and a recorded memory engine, in a folder."""

    root: Path
    pseudonym: str = "p_0123456789abcdef01234567"
    concept_id: str = "jwt"
    events: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.store = LocalStore(self.root / "lumente.db")
        self.memory_db = self.root / "memory.db"
        self.engine = MemoryEngine(self.memory_db)
        self.recorder = RecordingTransport(EmbeddedTransport(self.engine))
        self.concept = load_library().resolve(self.concept_id)
        self.learner_id = self.store.learner_id(self.pseudonym)

    def client(self) -> MemoryClient:
        return MemoryClient(self.recorder, context="lumente", where="recorded embedded memory")

    def set_levels(self, levels: dict[str, int]) -> None:
        with write_tx(self.store.con):
            for part, level in levels.items():
                self.store.con.execute(
                    "INSERT OR REPLACE INTO level(learner_id, concept, part, level, updated_at) VALUES (?, ?, ?, ?, '')",
                    (self.learner_id, self.concept_id, part, level),
                )

    def run(self, lines: list[str], *, predict: int | None = None, resume: ResumeChoice = "restart",
            memory_on: bool = True) -> int:
        backend = MemoryBackend("embedded", "recorded embedded memory", self.client, context="lumente")
        memory = LearnerMemory(backend, self.store, self.pseudonym, self.concept_id) if memory_on else None
        emitter = Emitter()
        emitter.add(self.events.append)
        stream = io.BytesIO("".join(line + "\n" for line in lines).encode("utf-8"))
        run = PracticeRun.open(
            concept=self.concept, store=self.store, learner_id=self.learner_id, agents=OfflineAgents(self.concept),
            io=ScriptedIO(stream), emitter=emitter, memory=memory, predict=predict, resume=resume,
        )
        return int(run.run())

    def close(self) -> None:
        self.store.close()
        self.engine.close()
