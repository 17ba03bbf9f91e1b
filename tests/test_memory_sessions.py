"""Memory in sessions: facts written, recalled, cited and verified; and a
session that goes on when memory is empty, refusing or failing."""

from __future__ import annotations

import json
import socket

import pytest
from helpers import JWT_SOLID, lumente, script, solid_script
from hypothesis import given
from hypothesis import strategies as st
from sessions import Rig

from lumente_cli.agents.contracts import (
    AskInput,
    CoachInput,
    EvaluateInput,
    HintInput,
    JudgeInput,
    PartResult,
    Remark,
)
from lumente_cli.agents.memory_aware import MemoryAwareAgents, verify_cites
from lumente_cli.agents.offline import OfflineAgents
from lumente_cli.concepts.library import load_library
from lumente_cli.memory.recall import Recall
from lumente_cli.memory import facts as F
from lumente_cli.agent_memory.client import MemoryClient
from lumente_cli.memory.recall import MAX_FACTS, facts_of
from lumente_cli.agent_memory.wire import FactsRequest
from lumente_cli.memory_engine import EngineResponse
from lumente_cli.memory.writer import request_body, session_facts
from lumente_cli.parts import PARTS
from lumente_cli.session import AnswerJudged, Predicted, advance, start

HELPED = script(4, "?", "?", JWT_SOLID["supraordinate"], *list(JWT_SOLID.values())[1:])


def events_of(r, kind):
    return [e for e in r.events() if e["event"] == kind]


# --- the whole loop through the CLI, embedded memory ----------------------------------------


def test_second_session_recalls_cites_and_the_ids_match_memory_show():
    first = lumente("practice", "jwt", "--json", input=HELPED)
    assert first.exit_code == 0, first.stderr
    assert events_of(first, "memory_recalled")[0]["facts"] == []  # nothing yet
    written = events_of(first, "memory_written")[0]
    assert written == {**written, "written": 9, "queued": 0}  # 4 levels (first time), gap, 4 help

    second = lumente("practice", "jwt", "--json", input=HELPED)
    assert second.exit_code == 0, second.stderr
    recalled = events_of(second, "memory_recalled")[0]["facts"]
    assert [f["key"] for f in recalled][:5] == [*(f"level_{p}" for p in PARTS), "gap"]
    assert recalled[5]["key"] == "help_supraordinate"  # most Help first
    hint = events_of(second, "hint")[0]
    assert hint["citations"] and "took 2 Help taps" in hint["citations"][0]["sentence"]
    assert "Last time Category needed two hints" in hint["message"]
    coach = events_of(second, "coach")[0]
    assert "Your guess was as close as last time" in coach["message"]
    cited = {c["id"] for c in hint["citations"] + coach["citations"]}
    assert cited <= {f["id"] for f in recalled}

    shown = json.loads(lumente("memory", "show", "--json").stdout)
    shown_ids = {f["id"] for f in shown["facts"]}
    # the cited facts were current when the second session read them; the gap and help
    # facts it cited were superseded by its own writes, so history lists them
    history = json.loads(lumente("memory", "history", "--json").stdout)
    every_id = {row["id"] for chain in history["chains"] for row in chain["rows"]}
    assert cited <= every_id
    assert shown_ids <= every_id
    reads = {f["id"]: f["reads"] for f in shown["facts"]}
    assert any(n > 0 for n in reads.values())


def test_level_facts_are_written_first_time_and_on_change_only():
    rig_sessions = []
    first = lumente("practice", "jwt", "--json", input=HELPED)
    rig_sessions.append(first)
    # second session: Category took 2 taps again (level holds), the rest rise
    second = lumente("practice", "jwt", "--json", input=HELPED)
    assert second.exit_code == 0
    assert events_of(second, "memory_written")[0]["written"] == 3 + 1 + 4  # 3 changed levels, gap, 4 help
    history = json.loads(lumente("memory", "history", "jwt", "--json").stdout)
    chains = {c["key"]: c["rows"] for c in history["chains"]}
    assert len(chains["level_supraordinate"]) == 1
    assert len(chains["level_coordinate"]) == 2
    assert chains["level_coordinate"][1]["superseded_by"] == chains["level_coordinate"][0]["id"]
    assert chains["level_coordinate"][1]["valid_until"] is not None
    assert len(chains["gap"]) == 1  # "guessed 4 and proved 8" both times: the same value writes no new row


def test_no_memory_option_reads_and_writes_nothing():
    r = lumente("practice", "jwt", "--json", "--no-memory", input=solid_script(5))
    assert r.exit_code == 0
    assert not {"memory_recalled", "memory_unavailable", "memory_written"} & set(r.kinds())
    from lumente_cli import paths

    assert not paths.current().memory_database.exists()


# --- degradation -------------------------------------------------------------------------------


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_memory_refusing_connections_the_session_finishes_and_facts_wait():
    env = {"LUMENTE_MEMORY_URL": f"http://127.0.0.1:{closed_port()}"}
    offline = lumente("practice", "jwt", "--json", "--no-memory", input=HELPED)
    r = lumente("practice", "jwt", "--json", input=HELPED, env=env)
    assert r.exit_code == 0, r.stderr
    unavailable = events_of(r, "memory_unavailable")
    assert len(unavailable) == 1
    assert r.stderr.count("Memory is unavailable") == 1  # told once, in one line
    # the agents got exactly the input they would have had without memory
    assert [h["message"] for h in events_of(r, "hint")] == [h["message"] for h in events_of(offline, "hint")]
    assert events_of(r, "coach")[0]["message"] == events_of(offline, "coach")[0]["message"]
    written = events_of(r, "memory_written")[0]
    assert written["written"] == 0 and written["queued"] == 9

    # still down: sync says so and exits 4, nothing lost
    down = lumente("memory", "sync", env=env)
    assert down.exit_code == 4 and "9 facts could not be delivered" in down.stderr
    # back (here: the embedded engine): delivered, and exactly once
    up = lumente("memory", "sync", "--json")
    assert up.exit_code == 0 and json.loads(up.stdout)["written"] == 9
    again = lumente("memory", "sync", "--json")
    assert json.loads(again.stdout)["written"] == 0
    history = json.loads(lumente("memory", "history", "--json").stdout)
    assert all(len(c["rows"]) == 1 for c in history["chains"]) and len(history["chains"]) == 9


class Failing:
    """A memory service that answers every request with one status."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.calls = 0

    def where(self) -> str:
        return "failing memory"

    def send(self, method, path, *, params, headers, json_body, time_left):
        self.calls += 1
        return EngineResponse(self.status, {"Content-Type": "application/json"}, b'{"message": "unknown error"}')

    def close(self) -> None:
        pass


@pytest.mark.parametrize("status", [500, 503])
def test_memory_answering_5xx_the_session_finishes_and_facts_wait(tmp_path, status):
    rig = Rig(tmp_path)
    failing = Failing(status)
    rig.client = lambda: MemoryClient(failing, context="lumente",  # type: ignore[method-assign]
                                      where="failing memory", sleep=lambda s: None)
    try:
        assert rig.run(HELPED.splitlines()) == 0
        kinds = [e["event"] for e in rig.events]
        assert kinds.count("memory_unavailable") == 1
        unavailable = next(e for e in rig.events if e["event"] == "memory_unavailable")
        assert str(status) in unavailable["reason"]
        assert rig.store.count_pending() == 9
        assert kinds[-1] == "memory_written"
        assert failing.calls >= 2  # it did retry
    finally:
        rig.close()


def test_empty_memory_gives_the_agents_their_plain_input(tmp_path):
    rig = Rig(tmp_path)
    try:
        assert rig.run(HELPED.splitlines()) == 0
        recalled = next(e for e in rig.events if e["event"] == "memory_recalled")
        assert recalled["facts"] == []
        hint = next(e for e in rig.events if e["event"] == "hint")
        assert hint["citations"] == [] and hint["message"] == rig.concept.supraordinate.hints[0]
    finally:
        rig.close()


def test_memory_is_read_once_per_session_and_only_for_hint_and_coach(tmp_path):
    rig = Rig(tmp_path)
    try:
        rig.run(HELPED.splitlines())
        rig.recorder.requests.clear()
        rig.run(HELPED.splitlines())
        reads = [r for r in rig.recorder.requests if r.method == "GET"]
        assert len(reads) == 1  # one entity read serves the whole session
        calls = rig.store.con.execute("SELECT agent, COUNT(*) FROM agent_call GROUP BY agent").fetchall()
        assert {agent for agent, _ in calls} == {"hint_giver", "coach"}
    finally:
        rig.close()


# --- recall rules, on the real engine -------------------------------------------------------------


def write(client: MemoryClient, key: str, value: str, n: int, session: str = "s-old") -> str:
    body = FactsRequest.model_validate({
        "infer": "triples", "scopes": [["learner/p_x"]], "memory_category": "knowledge",
        "labels": [f"session={session}"], "triples": [{"entity": {"type": "topic", "name": "p_x_jwt"}, "key": key, "value": value}],
    })
    response = client.write_facts(body, idempotency_key=f"k-{key}-{n}")
    return response.extraction.attributes[0].id


def test_recall_selection_rules(tmp_path):
    from lumente_cli.memory.backend import embedded_client

    client = embedded_client(tmp_path / "m.db", context="lumente")
    client.register_scope("learner/p_x")
    for i, part in enumerate(PARTS):
        write(client, F.level_key(part), F.level_sentence("JWT", part, 2), i)
    write(client, F.level_key("coordinate"), F.level_sentence("JWT", "coordinate", 3), 10)
    old_gap = write(client, F.GAP_KEY, F.gap_sentence("JWT", 4, 2), 11)
    current_gap = write(client, F.GAP_KEY, F.gap_sentence("JWT", 6, 5), 12, session="s-now")
    for i, (part, taps) in enumerate(zip(PARTS, (0, 3, 1, 2), strict=True)):
        write(client, F.help_key(part), F.help_sentence("JWT", part, taps), 20 + i)
    write(client, "note", "something a derived pass wrote", 30)  # not ours: never recalled
    write(client, F.GAP_KEY.replace("gap", "level_attributes"), "free text pretending to be a level", 31)

    facts = facts_of(client, "topic", "p_x_jwt", exclude_ids={current_gap})
    assert len(facts) <= MAX_FACTS
    keys = [f.key for f in facts]
    # levels in map order (attributes' newest row is not ours, so it is skipped), then the gap from
    # before this session, then Help facts with the most Help first
    assert keys == ["level_supraordinate", "level_coordinate", "level_subordinate", "gap",
                    "help_coordinate", "help_subordinate", "help_attributes", "help_supraordinate"][:MAX_FACTS]
    assert facts[1].level == 3
    assert next(f for f in facts if f.kind == "gap").id == old_gap
    assert all(f.reason for f in facts)
    client.close()


# --- citations ------------------------------------------------------------------------------------


def fact(i: int) -> F.MemoryFact:
    return F.MemoryFact(id=f"attribute:{i:020d}", key="gap", kind="gap", sentence=F.gap_sentence("JWT", 1, i % 9), at="t")


def test_verify_cites_keeps_only_ids_that_were_sent():
    sent = [fact(1), fact(2)]
    kept, dropped = verify_cites([fact(2).id, "attribute:madeupmadeupmadeup00", fact(2).id, fact(1).id], sent)
    assert kept == [fact(2).id, fact(1).id]
    assert dropped == ["attribute:madeupmadeupmadeup00"]


UNSENT = st.sampled_from(["attribute:madeupmadeupmadeup00", "attribute:00000000000000000099", "", "x"])


@given(st.data(), st.integers(0, 5))
def test_verify_cites_keeps_exactly_the_sent_ids_once_each_in_order(data, n):
    """Cites are drawn from the ids that were sent and from ids that were not, so a
    verify_cites that drops everything (or keeps everything) fails."""
    sent = [fact(i) for i in range(n)]
    sent_ids = [f.id for f in sent]
    pool = st.sampled_from(sent_ids) | UNSENT if sent_ids else UNSENT
    cites = data.draw(st.lists(pool, max_size=10))
    kept, dropped = verify_cites(cites, sent)
    assert kept == list(dict.fromkeys(c for c in cites if c in sent_ids))
    assert dropped == [c for c in cites if c not in sent_ids]


class RecordingAgents:
    """A provider that keeps each input it is given. The hint cites a fact that is sent
    and an ID nobody sent; the coach cites a real fact's ID that was not sent to it."""

    name = "recording"

    def __init__(self) -> None:
        self.offline = OfflineAgents(load_library().resolve("jwt"))
        self.given: dict[str, list] = {}

    def _got(self, agent: str, inp):
        self.given.setdefault(agent, []).append(inp)
        return inp

    def ask(self, inp):
        return self.offline.ask(self._got("ask", inp))

    def evaluate(self, inp):
        return self.offline.evaluate(self._got("evaluate", inp))

    def judge(self, inp):
        return self.offline.judge(self._got("judge", inp))

    def hint(self, inp):
        self._got("hint", inp)
        return Remark(message="hint", cites=[fact(1).id, "attribute:invented0000000000000"])

    def coach(self, inp):
        self._got("coach", inp)
        return Remark(message="coach", cites=[fact(2).id, fact(1).id])


def coach_input() -> CoachInput:
    results = tuple(PartResult(part=p, level=2, new_level=2, verdict="partial", points=1, help_taps=0) for p in PARTS)
    return CoachInput(concept="jwt", prediction=4, score=4, results=results)


def test_memory_aware_agents_give_facts_to_hint_and_coach_only_and_drop_unsent_ids():
    provider = RecordingAgents()
    recalls = []
    agents = MemoryAwareAgents(provider, recall=lambda: recalls.append(1) or Recall("recalled", (fact(1),)))
    ask = AskInput(concept="jwt", part="coordinate", level=2)
    evaluate = EvaluateInput(concept="jwt", part="coordinate", level=2, answer="x")
    judge = JudgeInput(concept="jwt", part="coordinate", question="why?")
    agents.ask(ask), agents.evaluate(evaluate), agents.judge(judge)
    assert recalls == [] and agents.take_calls() == []  # memory is read on first need, not before
    # ...and the other three get their input as it was, straight through
    assert provider.given["ask"] == [ask] and provider.given["evaluate"] == [evaluate]
    assert provider.given["judge"] == [judge]
    assert "memory" not in type(evaluate).model_fields  # the evaluator cannot get memory

    first = agents.hint(HintInput(concept="jwt", part="coordinate", level=2, tap=1))
    agents.hint(HintInput(concept="jwt", part="coordinate", level=2, tap=2))
    note = agents.coach(coach_input())
    assert recalls == [1]  # read once
    assert [inp.memory for inp in provider.given["hint"] + provider.given["coach"]] == [(fact(1),)] * 3
    assert first.cites == [fact(1).id] and note.cites == [fact(1).id]

    calls = agents.take_calls()
    assert [c.role for c in calls] == ["hint_giver", "hint_giver", "coach"]
    assert calls[0].recall == Recall("recalled", (fact(1),)) and calls[1].recall is None and calls[2].recall is None
    assert calls[0].cites_dropped == ("attribute:invented0000000000000",)
    assert calls[2].cites_dropped == (fact(2).id,) and calls[2].cited == (fact(1),)
    assert agents.take_calls() == []  # each call is handed over once


@pytest.mark.parametrize("recall", [Recall("empty"), Recall("unavailable", reason="timed out"),
                                    Recall("off", reason="memory is off")])
def test_without_facts_the_hint_giver_and_coach_get_exactly_their_input(recall):
    provider = RecordingAgents()
    agents = MemoryAwareAgents(provider, recall=lambda: recall)
    hint, coach = HintInput(concept="jwt", part="coordinate", level=2, tap=1), coach_input()
    assert agents.hint(hint).cites == [] and agents.coach(coach).cites == []
    assert provider.given["hint"] == [hint] and provider.given["coach"] == [coach]
    assert [c.recall for c in agents.take_calls()] == [recall, None]


def test_memory_never_changes_a_score_or_level(tmp_path):
    """The same answers, played by a learner whose memory is full of earlier sessions and
    by one with memory off, give the same points, verdicts and levels, session by session."""
    from helpers import JWT_SOLID, lumente, script

    sessions = [
        script(3, "?", JWT_SOLID["supraordinate"], "no idea", "?", "?", "?", "idk", JWT_SOLID["subordinate"]),
        script(5, JWT_SOLID["supraordinate"], "?", JWT_SOLID["coordinate"], JWT_SOLID["attributes"], "pass"),
        script(6, *JWT_SOLID.values()),
    ]

    def outcomes(home: str, *flags: str) -> list[list[tuple]]:
        played = []
        for text in sessions:
            r = lumente("practice", "jwt", "--json", *flags, input=text, env={"LUMENTE_HOME": str(tmp_path / home)})
            assert r.exit_code == 0, r.stderr
            events = r.events()
            played.append([
                (e["event"], e.get("part"), e.get("verdict"), e.get("points"), e.get("level"), e.get("new_level"),
                 e.get("score"))
                for e in events if e["event"] in ("verdict", "part_finished", "session_finished")
            ])
            if "--no-memory" not in flags:
                assert events[0]["memory"] == "embedded"
        return played

    with_memory = outcomes("remembers")
    without = outcomes("forgets", "--no-memory")
    assert with_memory == without
    # ...and memory really was there to influence them: later sessions recalled facts.
    recalled = lumente("memory", "show", "--json", env={"LUMENTE_HOME": str(tmp_path / "remembers")})
    assert recalled.exit_code == 0 and len(json.loads(recalled.stdout)["facts"]) >= 9


# --- fact templates ------------------------------------------------------------------------------


@given(st.sampled_from(PARTS), st.integers(1, 5), st.integers(0, 8), st.integers(0, 8), st.integers(0, 99),
       st.sampled_from(["JWT", "Big-O notation", "async/await", "SQL injection"]))
def test_fact_sentences_parse_back_to_their_numbers(part, level, predicted, proved, taps, name):
    lv = F.parse_fact(F.level_key(part), F.level_sentence(name, part, level), id="i", at="t")
    gap = F.parse_fact(F.GAP_KEY, F.gap_sentence(name, predicted, proved), id="i", at="t")
    hp = F.parse_fact(F.help_key(part), F.help_sentence(name, part, taps), id="i", at="t")
    assert (lv.level, lv.part) == (level, part)
    assert (gap.predicted, gap.proved) == (predicted, proved)
    assert (hp.help_taps, hp.part) == (taps, part)


def test_session_facts_follow_the_templates_and_keys():
    state = advance(start("jwt", {p: 3 for p in PARTS}), Predicted(value=4))
    for verdict in ("solid", "partial", "missing", "partial"):
        state = advance(state, AnswerJudged(verdict=verdict))
    out = session_facts("JWT", state, first_level_write=lambda part: part == "coordinate")
    keys = [f.key for f in out]
    # supraordinate rose, coordinate first time, attributes fell, subordinate unchanged and known
    assert keys == ["level_supraordinate", "level_coordinate", "level_attributes", "gap",
                    *(f"help_{p}" for p in PARTS)]
    body = request_body(out[3], scope="learner/p_x", entity="p_x_jwt", session_id="s-1", turn=7,
                        observed_at="2026-11-30T00:00:00.000000Z")
    assert body["triples"][0]["value"] == "Last time on JWT you guessed 4 and proved 4."
    assert "predicted=4" in body["labels"] and "score=4" in body["labels"] and "writer=coach" in body["labels"]
    assert all(ch in "abcdefghijklmnopqrstuvwxyz0123456789_" for f in out for ch in f.key)


def test_a_corrupt_embedded_memory_file_does_not_stop_the_session():
    from lumente_cli import paths

    db = paths.current().memory_database
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_bytes(b"definitely not sqlite" * 50)
    r = lumente("practice", "jwt", "--json", input=HELPED)
    assert r.exit_code == 0, r.stderr
    (unavailable,) = events_of(r, "memory_unavailable")
    assert "cannot be opened" in unavailable["reason"]
    assert events_of(r, "memory_written")[0]["queued"] == 9
    assert db.read_bytes() == b"definitely not sqlite" * 50  # left alone


def test_a_sessions_facts_keep_their_idempotency_keys_across_reruns(tmp_path):
    """The promise 'stable across crashes and reruns': queueing the same finished session
    again (a rerun after a crash) gives the same keys, adds no row, and the service
    stores each fact once even when a delivery is repeated."""
    rig = Rig(tmp_path)
    try:
        assert rig.run(["4", *JWT_SOLID.values()], memory_on=True) == 0
        session_id = rig.events[0]["session_id"]
        keys_sent = [h for r in rig.recorder.requests if r.method == "POST" and r.url.endswith("/facts")
                     for k, h in r.headers if k.lower() == "idempotency-key"]
        assert len(keys_sent) == 9
        record = rig.store.session(session_id)
        from lumente_cli.memory.backend import MemoryBackend
        from lumente_cli.memory.service import LearnerMemory

        backend = MemoryBackend("embedded", "recorded embedded memory", rig.client, context="lumente")
        memory = LearnerMemory(backend, rig.store, rig.pseudonym, rig.concept_id)
        # The rerun: the same finished session queued again, as a process that crashed
        # after queueing would do on its next start.
        assert memory.queue_session(session_id, rig.concept.name, record.state, "2026-03-02T14:00:00Z") == 0
        with rig.store.con:
            rows = rig.store.con.execute("SELECT idempotency_key FROM memory_fact ORDER BY rowid").fetchall()
            assert sorted(r[0] for r in rows) == sorted(keys_sent)
            rig.store.con.execute("UPDATE memory_fact SET delivered_at = NULL")  # as if no reply came back
        redelivered = memory.deliver(budget_s=None)
        assert redelivered.written == 9 and redelivered.error is None
        again = [h for r in rig.recorder.requests[-9:] for k, h in r.headers if k.lower() == "idempotency-key"]
        assert sorted(again) == sorted(keys_sent)
        history = rig.client().history(
            "topic", rig.events[0].get("entity") or f"{rig.pseudonym}_jwt", "gap")
        assert len(history) == 1  # stored once, not twice
    finally:
        rig.close()


def test_recall_for_a_session_leaves_out_the_facts_that_session_wrote(tmp_path):
    """A session resumed after its facts were written (a crash before it was marked
    finished) must not be compared with itself: its own rows are left out of recall."""
    from lumente_cli.memory.backend import MemoryBackend
    from lumente_cli.memory.service import LearnerMemory

    rig = Rig(tmp_path)
    try:
        assert rig.run(["3", *JWT_SOLID.values()]) == 0
        first = rig.events[0]["session_id"]
        rig.events.clear()
        assert rig.run(["7", "?", *JWT_SOLID.values()]) == 0
        second = rig.events[0]["session_id"]
        backend = MemoryBackend("embedded", "recorded embedded memory", rig.client, context="lumente")
        memory = LearnerMemory(backend, rig.store, rig.pseudonym, rig.concept_id)
        own = rig.store.fact_ids_of_session(second)
        assert own
        as_itself = memory.recall(second)
        assert as_itself.status == "recalled"
        assert not {f.id for f in as_itself.facts} & own
        gap = next(f for f in as_itself.facts if f.kind == "gap")
        assert "guessed 3" in gap.sentence  # the first session's, not its own
        as_another = memory.recall("s-someone-else")
        assert {f.id for f in as_another.facts} & own
        assert "guessed 7" in next(f for f in as_another.facts if f.kind == "gap").sentence
        assert first != second
    finally:
        rig.close()


def test_fact_sentences_use_the_screen_names_and_older_sentences_still_read_back():
    from lumente_cli.parts import LABELS, MEMORY_LABELS

    new = F.help_sentence("JWT", "supraordinate", 2)
    assert new == "'Category' took 2 Help taps on JWT last time."
    old = "'Bigger group' took 2 Help taps on JWT last time."
    for sentence in (new, old):
        fact = F.parse_fact("help_supraordinate", sentence, id="i", at="t")
        assert fact is not None and fact.help_taps == 2
    level = F.level_sentence("JWT", "coordinate", 3)
    assert LABELS["coordinate"] in level and MEMORY_LABELS["coordinate"] + " is" not in level
    assert F.parse_fact("level_coordinate", level.replace(LABELS["coordinate"], MEMORY_LABELS["coordinate"]),
                        id="i", at="t").level == 3
