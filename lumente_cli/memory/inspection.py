"""What memory holds for one learner, for `memory show`, `memory history` and
`memory forget`. Reads go through the same client as every other path."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lumente_cli.memory import facts as F
from lumente_cli.memory.facts import ENTITY_TYPE
from lumente_cli.parts import PARTS, PartKey
from lumente_cli.timeutil import parse_stamp

if TYPE_CHECKING:
    from lumente_cli.agent_memory.client import MemoryClient
    from lumente_cli.agent_memory.wire import AttributeDetail


@dataclass(frozen=True)
class ShownFact:
    concept: str
    key: str
    part: PartKey | None
    kind: str
    sentence: str
    id: str
    written_at: str
    valid_until: str | None
    supersedes: str | None
    superseded_by: str | None
    source_kind: str | None
    trust: float | None
    reads: int = 0
    current: bool = True  # False: a row a later value replaced (`memory history`)

    def to_json(self) -> dict[str, Any]:
        return {
            "concept": self.concept, "key": self.key, "part": self.part, "kind": self.kind,
            "sentence": self.sentence, "id": self.id, "written_at": self.written_at,
            "valid_until": self.valid_until, "supersedes": self.supersedes, "superseded_by": self.superseded_by,
            "source": {"kind": self.source_kind, "trust": self.trust}, "reads": self.reads,
            "current": self.current,
        }


def concept_of(entity_name: str, pseudonym: str) -> str | None:
    prefix = f"{pseudonym}_"
    return entity_name[len(prefix):] if entity_name.startswith(prefix) else None


def learner_concepts(client: MemoryClient, pseudonym: str, *, deadline: float | None = None) -> list[str]:
    """Every concept this learner has facts on, from the service's entity list."""
    names = [e.name for e in client.list_entities(ENTITY_TYPE, deadline=deadline)]
    return sorted(c for c in (concept_of(n, pseudonym) for n in names) if c)


def key_order(key: str) -> tuple[int, int]:
    if key in F.CHECK_KEYS:  # after the gap, the part-less practice fact
        return (len(PARTS), 2 + F.CHECK_KEYS.index(key))
    if key in F.ALL_KEYS:
        kind, _, part = key.partition("_")
        return (PARTS.index(part) if part in PARTS else len(PARTS), ["level", "gap", "help"].index(kind))  # type: ignore[arg-type]
    return (len(PARTS) + 1, 0)


def shown(concept: str, row: AttributeDetail, reads: dict[str, int], *, current: bool = True) -> ShownFact:
    fact = F.read_fact(row.key, row.value)
    source = getattr(row, "source", None)
    return ShownFact(
        concept=concept, key=row.key, part=fact.get("part") if fact else _part_of(row.key),
        kind=fact["kind"] if fact else "other", sentence=row.value, id=row.id, written_at=row.created_at,
        valid_until=row.valid_until, supersedes=row.supersedes, superseded_by=row.superseded_by,
        source_kind=getattr(source, "kind", None), trust=getattr(source, "trust", None), reads=reads.get(row.id, 0),
        current=current,
    )


def _part_of(key: str) -> PartKey | None:
    _, _, part = key.partition("_")
    return part if part in PARTS else None  # type: ignore[return-value]


def current_facts(
    client: MemoryClient, pseudonym: str, concepts: list[str], *, as_of: str | None, read_counts: Any,
    deadline: float | None = None,
) -> list[ShownFact]:
    """Each key's current value: one entity read per concept.

    What a value replaced is named by its `supersedes` ID; the values
    themselves are `memory history`'s to show, so this read does not grow
    with the number of keys or sessions."""
    rows: list[tuple[str, AttributeDetail]] = []
    for concept in concepts:
        view = client.entity(ENTITY_TYPE, f"{pseudonym}_{concept}", as_of=as_of, deadline=deadline)
        rows += [(concept, row) for row in (view.attributes if view is not None else [])]
    reads = read_counts([r.id for _, r in rows])
    out = [shown(c, r, reads) for c, r in rows]
    return sorted(out, key=lambda s: (s.concept, key_order(s.key)))


def history_facts(
    client: MemoryClient, pseudonym: str, concepts: list[str], keys: list[str], *, read_counts: Any,
    deadline: float | None = None,
) -> list[list[ShownFact]]:
    """One chain per (concept, key), each newest first."""
    chains: list[tuple[str, str, list[AttributeDetail]]] = []
    for concept in concepts:
        for key in keys:
            rows = client.history(ENTITY_TYPE, f"{pseudonym}_{concept}", key, deadline=deadline)
            if rows:
                chains.append((concept, key, sorted(rows, key=lambda r: parse_stamp(r.created_at), reverse=True)))
    reads = read_counts([r.id for _, _, rows in chains for r in rows])
    return [[shown(c, r, reads, current=r.valid_until is None) for r in rows] for c, _, rows in chains]
