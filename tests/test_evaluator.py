"""The offline evaluator against a corpus of hand-written student answers, and the
small pieces of English it relies on."""

from __future__ import annotations

import tomllib
from collections import defaultdict
from pathlib import Path

import pytest

from lumente_cli.agents.contracts import EvaluateInput
from lumente_cli.agents.offline import OfflineAgents, evaluator
from lumente_cli.agents.offline import language as lang
from lumente_cli.concepts.library import load_library
from lumente_cli.parts import PARTS

LIBRARY = load_library()
CORPUS = tomllib.loads((Path(__file__).parent / "data" / "answers.toml").read_text(encoding="utf-8"))["answer"]
VERDICTS = ("solid", "partial", "missing")


def _id(case: dict) -> str:
    return f"{case['expected']}-{case['concept']}.{case['part']}-{case['answer'][:30]}"


# --- the corpus ----------------------------------------------------------------------------


def test_corpus_is_large_and_spread_out() -> None:
    by_verdict: dict[str, list[dict]] = defaultdict(list)
    for case in CORPUS:
        assert set(case) <= {"concept", "part", "answer", "expected", "note", "level"}, case
        assert case["expected"] in VERDICTS and case["part"] in PARTS and case["note"].strip()
        assert case["concept"] in LIBRARY.concepts
        by_verdict[case["expected"]].append(case)
    for verdict in VERDICTS:
        cases = by_verdict[verdict]
        assert len(cases) >= 20, verdict
        assert len({c["concept"] for c in cases}) >= 8, verdict
        assert {c["part"] for c in cases} == set(PARTS), verdict
    answers = [c["answer"] for c in CORPUS]
    assert len(answers) == len(set(answers)), "each answer is written once"


@pytest.mark.parametrize("case", CORPUS, ids=[_id(c) for c in CORPUS])
def test_corpus_answer_gets_its_verdict(case: dict) -> None:
    concept = LIBRARY.resolve(case["concept"])
    result = OfflineAgents(concept).evaluate(
        EvaluateInput(concept=concept.id, part=case["part"], level=case.get("level", 3), answer=case["answer"])
    )
    assert result.verdict == case["expected"], f"{case['note']} | feedback: {result.feedback} | covered: {result.covered}"
    part = concept.part(case["part"])
    feedback = result.feedback.lower()
    for kp in part.key_points:
        assert kp.point.lower() not in feedback, "feedback must not state a key point"
    assert part.reference.strip().lower() not in feedback
    assert part.worked_example.strip().lower() not in feedback
    assert set(result.covered) <= {kp.id for kp in part.key_points}


# --- evaluator behaviour ---------------------------------------------------------------------


def _verdict(cid: str, key: str, answer: str, level: int = 3) -> str:
    concept = LIBRARY.resolve(cid)
    return OfflineAgents(concept).evaluate(EvaluateInput(concept=cid, part=key, level=level, answer=answer)).verdict


@pytest.mark.parametrize("answer", ["", "   ", "I don't know.", "i dont know", "idk", "not sure", "no idea!", "skip"])
def test_dont_know_is_missing_with_a_question_to_start_from(answer: str) -> None:
    concept = LIBRARY.resolve("jwt")
    result = OfflineAgents(concept).evaluate(EvaluateInput(concept="jwt", part="supraordinate", level=3, answer=answer))
    assert result.verdict == "missing"
    assert result.feedback.rstrip().endswith("?")


def test_a_denied_confusion_does_not_count_against_the_answer() -> None:
    good = "hashing is one way and encryption is reversible with the key, hashing is not a kind of encryption"
    bad = "hashing is one way and encryption is reversible with the key, hashing is a kind of encryption"
    assert _verdict("hashing_vs_encryption", "supraordinate", good) == "solid"
    assert _verdict("hashing_vs_encryption", "supraordinate", bad) == "partial"


def test_a_negative_confusion_is_caught_and_its_denial_is_not() -> None:
    part = LIBRARY.resolve("idempotency").coordinate
    assert evaluator.analyse(part, "idempotent means no side effects").confusions
    assert not evaluator.analyse(part, "idempotent does not mean no side effects").confusions


def test_a_comparison_label_is_not_a_claim() -> None:
    part = LIBRARY.resolve("async_await").coordinate
    assert not evaluator.analyse(part, "parallelism vs async: async is concurrency on one thread").confusions
    assert evaluator.analyse(part, "async runs your code in parallel").confusions


def test_confusion_words_far_apart_in_a_long_clause_are_not_the_confusion() -> None:
    part = LIBRARY.resolve("rest").supraordinate
    assert not evaluator.analyse(part, "rest is an architectural style that works on top of the http protocol").confusions
    assert evaluator.analyse(part, "rest is a protocol for apis").confusions


def test_copying_the_worked_example_back_is_partial_at_level_1() -> None:
    part = LIBRARY.resolve("closures").attributes
    copied = " ".join(part.worked_example.split()[-60:])
    assert _verdict("closures", "attributes", copied, level=1) == "partial"


@pytest.mark.parametrize("cid", sorted(LIBRARY.concepts))
def test_every_key_point_alone_is_never_solid_when_more_are_needed(cid: str) -> None:
    concept = LIBRARY.resolve(cid)
    for key, part in concept.parts():
        if part.needed_for_solid < 2:
            continue
        for kp in part.key_points:
            judged = evaluator.analyse(part, kp.nudge)
            assert len(judged.covered) < part.needed_for_solid, f"{cid}.{key}.{kp.id}: a nudge alone reaches solid"


# --- language helpers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "forms",
    [
        ("sign", "signs", "signing", "signed"),
        ("encrypt", "encrypts", "encrypted", "encryption", "encrypting"),
        ("request", "requests", "requested", "requesting"),
        ("digest", "digests"),
        ("class", "classes"),
        ("access", "accessing", "accessed"),
        ("pass", "passed", "passes", "passing"),
        ("order", "orders", "ordered", "ordering"),
        ("layer", "layers"),
        ("tamper", "tampers", "tampered", "tampering"),
        ("filter", "filtered", "filtering"),
        ("cookie", "cookies"),
        ("query", "queries"),
        ("apply", "applies", "applied", "applying"),
        ("retry", "retries", "retried", "retrying"),
        ("cache", "caches", "caching", "cached"),
        ("hash", "hashes", "hashed", "hashing"),
        ("server", "servers"),
        ("closure", "closures"),
        ("thread", "threads", "threading"),
        ("process", "processes"),
    ],
)
def test_inflections_share_a_stem(forms: tuple[str, ...]) -> None:
    assert len({lang.stem(f) for f in forms}) == 1, {f: lang.stem(f) for f in forms}


def test_long_stems_match_as_prefixes_and_short_ones_do_not() -> None:
    assert lang.word_matches(lang.stem("tamper"), lang.stem("tampering"))
    assert lang.word_matches(lang.stem("recursion"), lang.stem("recursive"))
    assert not lang.word_matches(lang.stem("key"), lang.stem("keyboard"))


def test_phrasing_terms_appear_in_any_order_with_synonyms() -> None:
    phrasing = lang.compile_phrasing("sign|hmac verify|tamper")
    assert phrasing.matches(frozenset(lang.stems("tampering is detected because it is signed")))
    assert phrasing.matches(frozenset(lang.stems("an HMAC lets the server verify it")))
    assert not phrasing.matches(frozenset(lang.stems("it is signed")))
    assert lang.compile_phrasing("self-contained").matches(frozenset(lang.stems("contained in itself, self made")))


@pytest.mark.parametrize(
    "text,negated",
    [
        ("a jwt is not encrypted", True),
        ("it isn't encrypted", True),
        ("it isnt encrypted", True),
        ("async doesnt run in parallel", True),
        ("you cant reverse it", True),
        ("a hash cannot be reversed", True),
        ("reversing a hash is impossible", True),
        ("without a key", True),
        ("big o ignores constants", True),
        ("the same hash no matter how often", False),
        ("not only fast but correct", False),
        ("a jwt is encrypted", False),
    ],
)
def test_negation(text: str, negated: bool) -> None:
    assert lang.is_negated(text) is negated


def test_phrasing_negations_are_counted() -> None:
    assert lang.phrasing_negations("idempot mean no|not side-effect") == 1
    assert lang.phrasing_negations("jwt encrypted") == 0


def test_abbreviations_do_not_end_a_sentence() -> None:
    assert len(lang.sentences("session vs. jwt: a session id, e.g. in a cookie, is looked up")) == 1
    assert len(lang.sentences("it is signed. it is not encrypted")) == 2


def test_and_splits_only_between_full_clauses() -> None:
    assert len(lang.clauses("hashing is one way and encryption is reversible")) == 2
    assert len(lang.clauses("hashing and encryption are the same")) == 1
    assert len(lang.clauses("header, payload and signature")) == 2  # the comma splits, 'and' does not


def test_nearby_matching_needs_the_words_close_together() -> None:
    phrasing = lang.compile_phrasing("rest is|are protocol")
    assert phrasing.matches_nearby(lang.stems("honestly rest is basically a protocol"))
    assert not phrasing.matches_nearby(lang.stems("rest is an architectural style that sits on top of the http protocol"))


def test_keyword_lists_have_few_function_words() -> None:
    assert lang.function_word_ratio("header payload signature base64 exp") < evaluator.STUFFING_RATIO
    assert lang.function_word_ratio("it has a header and a payload, and the signature is over both") > evaluator.STUFFING_RATIO
