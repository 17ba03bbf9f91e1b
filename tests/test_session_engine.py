"""advance(): every rule, then the invariants as properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lumente_cli.parts import PARTS
from lumente_cli.session import (
    MAX_SCORE,
    AnswerJudged,
    HelpTapped,
    InvalidEvent,
    Predicted,
    QuestionJudged,
    advance,
    level_change,
    part_points,
    replay,
    start,
)


def levels(value: int = 2) -> dict:
    return {p: value for p in PARTS}


def predicted(level: int = 2, prediction: int = 4):
    return advance(start("jwt", levels(level)), Predicted(value=prediction))


# --- the start --------------------------------------------------------------------


def test_new_session_waits_for_a_prediction_with_every_part_pending():
    state = start("jwt", levels(2))
    assert state.stage == "predict"
    assert [p.part for p in state.parts] == list(PARTS)
    assert all(p.status == "pending" and p.level == 2 for p in state.parts)
    assert state.score == 0 and not state.finished


def test_start_clamps_levels_into_range():
    state = start("jwt", {"supraordinate": 0, "coordinate": 9, "attributes": 3, "subordinate": -4})
    assert [p.level for p in state.parts] == [1, 5, 3, 1]


@pytest.mark.parametrize("value", [0, 4, MAX_SCORE])
def test_prediction_activates_the_first_part(value):
    state = predicted(prediction=value)
    assert state.prediction == value
    assert state.stage == "answer" and state.current == 0
    assert state.parts[0].status == "active"


@pytest.mark.parametrize("value", [-1, MAX_SCORE + 1, 100])
def test_prediction_out_of_range_is_refused(value):
    with pytest.raises(InvalidEvent):
        advance(start("jwt", levels()), Predicted(value=value))


def test_second_prediction_is_refused():
    with pytest.raises(InvalidEvent):
        advance(predicted(), Predicted(value=3))


@pytest.mark.parametrize("event", [HelpTapped(), AnswerJudged(verdict="solid"), QuestionJudged(verdict="solid")])
def test_nothing_but_a_prediction_before_the_prediction(event):
    with pytest.raises(InvalidEvent):
        advance(start("jwt", levels()), event)


# --- points --------------------------------------------------------------------------


@pytest.mark.parametrize(("verdict", "points"), [("solid", 2), ("partial", 1), ("missing", 0)])
def test_points_per_verdict(verdict, points):
    state = advance(predicted(), AnswerJudged(verdict=verdict))
    assert state.parts[0].points == points
    assert state.score == points


@pytest.mark.parametrize(
    ("answer", "question", "points"),
    [
        ("solid", "solid", 2),
        ("solid", "partial", 2),
        ("solid", "missing", 1),
        ("partial", "missing", 1),
        ("missing", "solid", 0),
        ("missing", "missing", 0),
    ],
)
def test_level_five_needs_an_acceptable_question_for_full_points(answer, question, points):
    assert part_points(answer, question) == points
    state = advance(predicted(level=5), AnswerJudged(verdict=answer))
    assert state.stage == "question" and state.parts[0].status == "active"
    state = advance(state, QuestionJudged(verdict=question))
    assert state.parts[0].points == points


# --- levels ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("verdict", "taps", "change"),
    [
        ("solid", 0, +1),
        ("solid", 1, +1),
        ("solid", 2, 0),
        ("solid", 3, -1),
        ("partial", 0, 0),
        ("partial", 2, 0),
        ("partial", 3, -1),
        ("missing", 0, -1),
        ("missing", 5, -1),
    ],
)
def test_level_rule(verdict, taps, change):
    assert level_change(verdict, None, taps) == change
    state = predicted(level=3)
    for _ in range(taps):
        state = advance(state, HelpTapped())
    state = advance(state, AnswerJudged(verdict=verdict))
    assert state.parts[0].help_taps == taps
    assert state.parts[0].new_level == 3 + change


def test_a_missing_own_question_counts_a_solid_answer_as_partial_for_the_level():
    assert level_change("solid", "missing", 0) == 0
    assert level_change("solid", "partial", 0) == 1


def test_levels_never_leave_one_to_five():
    low = advance(predicted(level=1), AnswerJudged(verdict="missing"))
    assert low.parts[0].new_level == 1
    high = advance(advance(predicted(level=5), AnswerJudged(verdict="solid")), QuestionJudged(verdict="solid"))
    assert high.parts[0].new_level == 5


# --- flow -------------------------------------------------------------------------------


def test_parts_run_in_map_order_and_the_session_finishes():
    state = predicted()
    seen = []
    while not state.finished:
        seen.append(state.active.part)
        state = advance(state, AnswerJudged(verdict="solid"))
    assert seen == list(PARTS)
    assert state.score == MAX_SCORE
    assert state.active is None


def test_help_counts_on_the_active_part_only():
    state = advance(advance(predicted(), HelpTapped()), HelpTapped())
    state = advance(state, AnswerJudged(verdict="partial"))
    state = advance(state, HelpTapped())
    assert [p.help_taps for p in state.parts[:2]] == [2, 1]


def test_question_event_is_refused_below_level_five():
    with pytest.raises(InvalidEvent):
        advance(predicted(level=3), QuestionJudged(verdict="solid"))


def test_answer_event_is_refused_while_waiting_for_the_question():
    state = advance(predicted(level=5), AnswerJudged(verdict="solid"))
    with pytest.raises(InvalidEvent):
        advance(state, AnswerJudged(verdict="solid"))


def test_events_after_the_end_are_refused():
    state = predicted()
    for _ in PARTS:
        state = advance(state, AnswerJudged(verdict="partial"))
    for event in (HelpTapped(), AnswerJudged(verdict="solid")):
        with pytest.raises(InvalidEvent):
            advance(state, event)


def test_advance_never_mutates_its_input():
    before = predicted()
    snapshot = before.model_dump()
    advance(before, HelpTapped())
    assert before.model_dump() == snapshot


# --- properties -----------------------------------------------------------------------------

verdicts = st.sampled_from(["solid", "partial", "missing"])
event_strategy = st.one_of(
    st.builds(Predicted, value=st.integers(-2, 10)),
    st.just(HelpTapped()),
    st.builds(AnswerJudged, verdict=verdicts),
    st.builds(QuestionJudged, verdict=verdicts),
)
start_levels = st.fixed_dictionaries({p: st.integers(1, 5) for p in PARTS})


def apply_valid(initial, events):
    """Apply the events the engine accepts, skipping refused ones (as the runner never sends them)."""
    state = initial
    accepted = []
    for event in events:
        try:
            state = advance(state, event)
        except InvalidEvent:
            continue
        accepted.append(event)
    return state, accepted


@settings(max_examples=300, deadline=None)
@given(start_levels, st.lists(event_strategy, max_size=40))
def test_invariants_hold_for_any_event_sequence(lv, events):
    state, _ = apply_valid(start("jwt", lv), events)
    assert 0 <= state.score <= MAX_SCORE
    for p in state.parts:
        assert 1 <= p.level <= 5
        if p.new_level is not None:
            assert 1 <= p.new_level <= 5 and abs(p.new_level - p.level) <= 1
        if p.points is not None:
            assert 0 <= p.points <= 2
    if state.prediction is not None:
        assert 0 <= state.prediction <= MAX_SCORE
    done = [p.status == "done" for p in state.parts]
    assert done == sorted(done, reverse=True)  # parts finish in map order
    assert state.finished == all(done)


def oracle(lv: dict, events: list) -> dict:
    """docs/scoring.md's rules, written out again independently of the engine: each
    finished part's points and new level from its verdicts and Help taps."""
    results: dict = {}
    order = list(PARTS)
    i, taps, answer = 0, 0, None
    for event in events:
        if isinstance(event, Predicted) or i >= len(order):
            continue
        part = order[i]
        if isinstance(event, HelpTapped):
            taps += 1
            continue
        if isinstance(event, AnswerJudged) and lv[part] == 5:
            answer = event.verdict  # a question follows at level 5
            continue
        question = event.verdict if isinstance(event, QuestionJudged) else None
        verdict = answer if question is not None else event.verdict
        points = {"solid": 2, "partial": 1, "missing": 0}[verdict]
        if question == "missing":
            points = min(points, 1)
            verdict = "partial" if verdict == "solid" else verdict
        change = -1 if verdict == "missing" or taps >= 3 else (1 if verdict == "solid" and taps <= 1 else 0)
        results[part] = (points, max(1, min(5, lv[part] + change)))
        i, taps, answer = i + 1, 0, None
    return results


@settings(max_examples=300, deadline=None)
@given(start_levels, st.lists(event_strategy, max_size=40))
def test_replaying_stored_events_gives_what_the_scoring_rules_say(lv, events):
    """Events go through JSON as the local store keeps them, are replayed on resume, and
    the points and levels agree with an independent reading of the scoring rules."""
    from pydantic import TypeAdapter

    from lumente_cli.session import Event

    initial = start("jwt", lv)
    state, accepted = apply_valid(initial, events)
    adapter = TypeAdapter(Event)
    stored = [adapter.validate_json(adapter.dump_json(e)) for e in accepted]
    resumed = replay(initial, stored)
    assert resumed == state
    done = {p.part: (p.points, p.new_level) for p in resumed.parts if p.status == "done"}
    assert done == oracle(lv, accepted)
    assert resumed.score == sum(points for points, _ in done.values())


@settings(max_examples=200, deadline=None)
@given(start_levels, st.lists(event_strategy, max_size=40))
def test_state_survives_a_json_round_trip(lv, events):
    from lumente_cli.session import SessionState

    state, _ = apply_valid(start("jwt", lv), events)
    assert SessionState.model_validate_json(state.model_dump_json()) == state
