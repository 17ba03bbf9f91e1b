"""`lumente practice` without a concept: the paused session first, if there is one,
else the top recommendation of `lumente next` for the student to accept or decline."""

from __future__ import annotations

from dataclasses import dataclass

from lumente_cli.recommend import next_for
from lumente_cli.timeutil import utc_now
from lumente_cli.workspace import Workspace


@dataclass(frozen=True)
class Offer:
    concept: str
    name: str
    paused: bool  # a paused session on it: resume it rather than ask
    reason: str


def offer(ws: Workspace) -> Offer | None:
    lib = ws.library()
    learner = ws.store.find_learner(ws.pseudonym)
    if learner is not None:
        paused = ws.store.paused_session_concept(learner)
        if paused is not None and paused in lib.concepts:
            return Offer(paused, lib.name_of(paused), True, "you paused a session on it")
    names = {cid: lib.name_of(cid) for cid in lib.ids()}
    _, recommendations = next_for(ws.store, learner, names, now=utc_now(), limit=1)
    if not recommendations:
        return None
    top = recommendations[0]
    return Offer(top.concept, top.name, False, top.reason)
