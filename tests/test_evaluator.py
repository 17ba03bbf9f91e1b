"""The offline evaluator's mechanisms, on a rubric written for these tests (so the
rules are checked apart from any shipped concept), and the small pieces of English
it relies on. How well it agrees with independent labels is measured by
bench/evaluator.py on tests/data/corpus; tests/test_concept_content.py holds every
concept's own checks."""

from __future__ import annotations

import pytest

from lumente_cli.agents.contracts import EvaluateInput, Shown
from lumente_cli.agents.offline import OfflineAgents, evaluator
from lumente_cli.agents.offline import language as lang
from lumente_cli.concepts.schema import Concept, KeyPoint

PART = {
    "question": "What kind of thing is hashing, and what is it for?",
    "guided": ["Can you get the input back from a hash?", "What happens when you hash the same text twice?"],
    "cues": ["Think about which way the data can travel.", "Think about repeating the operation."],
    "worked_example": "Hashing is a one-way function: you cannot get the input back from the digest. "
                      "The same input always gives the same digest, which is how a server checks a password "
                      "without storing it.",
    "reference": "A one-way function from cryptography: the input cannot be recovered, the same input "
                 "always gives the same digest, and it is used to check integrity.",
    "hints": ["Think about direction.", "Can the operation be undone?",
              "It is one-way, and the same input always gives the same output, which lets you compare digests."],
    "key_points": [
        {"id": "family", "point": "It is a cryptographic primitive.", "accept": ["cryptograph", "crypto primitive"],
         "nudge": "Which field of computing does it come from?", "required": True},
        {"id": "one_way", "point": "It is one-way: the input cannot be recovered.",
         "accept": ["one-way", "not|never|cannot|no reverse|undo|recover"], "nudge": "Can you go back from the output?"},
        {"id": "same_output", "point": "The same input always gives the same digest.",
         "accept": ["same input output|digest|hash", "deterministic"], "nudge": "What if you do it twice?"},
    ],
    "solid_needs": 2,
    "confusions": [
        {"match": ["hash is|are encrypt|encryption", "hash revers|reversible|decrypt"],
         "nudge": "Is there a key that turns a digest back into the text?"},
        {"match": ["hash always 256"], "nudge": "Does every hash have the same size?", "core": False},
    ],
}
OTHER = {k: PART[k] for k in ("question", "guided", "cues", "worked_example", "reference", "hints")} | {
    "key_points": [
        {"id": "a", "point": "Idea a.", "accept": ["alpha"], "nudge": "What about alpha?", "required": True},
        {"id": "b", "point": "Idea b.", "accept": ["beta"], "nudge": "What about beta?", "names": ["gamma"]},
    ],
}
CONCEPT = Concept.model_validate({
    "id": "hashing", "name": "Hashing", "summary": "A one-way function for fingerprints.",
    "supraordinate": PART, "coordinate": OTHER, "attributes": OTHER, "subordinate": OTHER,
})


def judge(answer: str, shown: Shown | None = None, key: str = "supraordinate"):
    inp = EvaluateInput(concept="hashing", part=key, level=3, answer=answer, shown=shown or Shown())
    return OfflineAgents(CONCEPT).evaluate(inp)


def verdict(answer: str, shown: Shown | None = None) -> str:
    return judge(answer, shown).verdict


def asserted(phrasing: str, text: str) -> bool:
    """Does some sentence of the text assert the phrasing, as a key point is matched?"""
    return any(lang.asserts(lang.compile_phrasing(phrasing), s) for s in lang.read(text))


# --- what counts ----------------------------------------------------------------------------


def test_a_correct_answer_in_own_words_is_solid_and_says_what_was_credited() -> None:
    result = judge("hashing comes from cryptography, and it is one-way: you can't undo it to get the text back")
    assert result.verdict == "solid"
    assert result.covered == ["family", "one_way"]
    assert "one way" in result.feedback and "Credited" in result.feedback


def test_feedback_never_states_a_missing_idea() -> None:
    result = judge("it is a cryptographic thing")
    assert result.verdict == "partial"
    for kp in CONCEPT.supraordinate.key_points:
        if kp.id not in result.covered:
            assert kp.point.lower() not in result.feedback.lower()
    assert result.feedback.rstrip().endswith("?")


@pytest.mark.parametrize(
    "answer",
    [
        "hashing is cryptography but it is not one-way",
        "hashing is from cryptography. it isn't one-way at all",
        "cryptography-wise, the same input does not give the same digest",
    ],
)
def test_a_denied_key_idea_is_missing_not_credit(answer: str) -> None:
    assert verdict(answer) == "missing"


@pytest.mark.parametrize(
    "answer",
    [
        # the denial belongs to 'need to know', not to what the 'how' clause says
        "it's from cryptography and one-way, and you do not need to know how the same input gives the same digest",
        # 'bc' opens a clause of its own, as 'because' does
        "it's from cryptography and one-way, and it's not random bc the same input gives the same digest",
    ],
)
def test_a_denial_does_not_reach_into_a_clause_of_its_own(answer: str) -> None:
    assert verdict(answer) == "solid"


@pytest.mark.parametrize(
    "answer",
    [
        # The one-word phrasing 'cryptograph', at the end of a long noun phrase.
        "hashing is not a tool of modern applied cryptography; it is one-way and the same input gives the same digest",
        "hashing is not part of cryptography at all. it is one-way and the same input gives the same digest",
        "hashing is not really a tool of applied cryptography; it is one-way and the same input gives the same digest",
    ],
)
def test_saying_what_kind_of_thing_it_is_not_denies_the_category(answer: str) -> None:
    result = judge(answer)
    assert result.verdict == "missing"
    assert "opposite of a key idea" in result.feedback


@pytest.mark.parametrize(
    "answer",
    [
        # 'Does not belong to' says what kind of thing it is not, as 'is not a' does.
        "hashing does not belong to cryptography. it is one-way and the same input gives the same digest",
        "hashing doesn't fall under applied cryptography; it is one-way and the same input gives the same digest",
        # An aside without a verb names what stands before it: the denial reaches it too.
        "hashing is not a kind of (crypto primitive) tool. it is one-way and the same input gives the same digest",
    ],
)
def test_a_category_denied_with_a_verb_of_belonging_or_through_an_aside_is_denied(answer: str) -> None:
    assert "family" in [kp.id for kp in evaluator.analyse(CONCEPT.supraordinate, answer).denied]
    assert verdict(answer) == "missing"


@pytest.mark.parametrize(
    "answer",
    [
        # The aside belongs to 'primitive', before the relative clause that carries the 'never'.
        "hashing is a crypto primitive nobody ever undoes (a one-way thing): the same input gives the same digest",
        # An aside that is a clause of its own keeps its own polarity.
        "it does not keep the input (hashing is cryptography): the same input gives the same digest",
        # An aside at the end of its clause names what the whole statement says.
        "you cannot get the input back (crypto primitive): the same input gives the same digest",
    ],
)
def test_a_denial_does_not_reach_an_aside_it_does_not_stand_right_before(answer: str) -> None:
    assert "family" not in [kp.id for kp in evaluator.analyse(CONCEPT.supraordinate, answer).denied]


@pytest.mark.parametrize(
    "answer",
    [
        # A comma between the adjectives of a denied noun phrase does not end the denial.
        "hashing is not a modern, applied cryptography tool; it is one-way and the same input gives the same digest",
        "hashing is not the fancy, applied cryptography kind; it is one-way and the same input gives the same digest",
    ],
)
def test_a_comma_between_adjectives_does_not_cut_a_denial_short(answer: str) -> None:
    assert "family" in [kp.id for kp in evaluator.analyse(CONCEPT.supraordinate, answer).denied]
    assert verdict(answer) == "missing"


@pytest.mark.parametrize(
    "sentence",
    [
        "it is not a cipher, a cryptography primitive",  # a second noun phrase: a correction
        "it is not encryption, just cryptography",  # a word that corrects
        "it is not a cipher, it is cryptography",  # a clause of its own
    ],
)
def test_a_comma_before_a_correction_still_ends_the_denial(sentence: str) -> None:
    assert len(lang.read(sentence)[0]) == 2


@pytest.mark.parametrize(
    ("sentence", "joined"),
    [
        ("the app gets a token, not your password", True),
        ("instead of your password, the app gets a token", True),
        ("the app keeps a token but not the password", True),
        ("the app gets a token in place of your password", True),
        # a clause with a verb of its own is a claim of its own, not a contrast to join
        ("the app does not get a token, it is given your password", False),
    ],
)
def test_a_contrast_without_a_verb_belongs_to_the_clause_beside_it(sentence: str, joined: bool) -> None:
    assert asserted("token instead|not password", sentence) is joined


@pytest.mark.parametrize(
    ("sentence", "fires"),
    [
        ("github calls your url when a push happens", True),
        ("your app calls github every minute", False),
        ("your server calls the github api for new data", False),
    ],
)
def test_an_ordered_phrasing_needs_its_terms_in_that_order(sentence: str, fires: bool) -> None:
    assert asserted("github > calls > your|url", sentence) is fires
    ordered = lang.compile_phrasing("github > calls > your|url")
    assert any(lang.asserts_nearby(ordered, c) for s in lang.read(sentence) for c in s) is fires
    assert asserted("github calls your|url", sentence)  # in any order: all three


@pytest.mark.parametrize("phrasing", ["github > calls your", "> github calls", "github calls >", "github >> calls"])
def test_a_phrasing_is_ordered_throughout_or_not_at_all(phrasing: str) -> None:
    with pytest.raises(ValueError, match="in order"):
        KeyPoint(id="x", point="X.", accept=[phrasing], nudge="Why?")


def test_a_fronted_without_belongs_to_the_clause_after_it() -> None:
    assert asserted("without|no transaction|transactions crash half", "Without transactions, a crash can leave it half done")


def test_a_terse_sentence_with_a_negation_is_prose_not_a_run_of_keywords() -> None:
    assert not evaluator.analyse(CONCEPT.supraordinate, "cryptography digests never reverse").listed
    assert evaluator.analyse(CONCEPT.supraordinate, "cryptography digests reverse keys").listed


def test_an_en_dash_between_words_joins_them_and_a_spaced_one_splits() -> None:
    assert len(lang.read("the Bachmann–Landau notations")[0]) == 1
    assert len(lang.read("it is one-way – you cannot undo it")[0]) == 2


@pytest.mark.parametrize("answer", ["hashing is cryptography and one-way, but it is not deterministic",
                                    "hashing is cryptography and one-way, but it can not really be deterministic"])
def test_is_not_before_a_one_word_idea_denies_it(answer: str) -> None:
    assert [kp.id for kp in evaluator.analyse(CONCEPT.supraordinate, answer).denied] == ["same_output"]


def test_what_something_is_not_for_is_no_denial_of_a_one_word_idea() -> None:
    j = evaluator.analyse(CONCEPT.supraordinate, "it is one-way and the same input gives the same digest; "
                                                 "a password hash is not about cryptography homework")
    assert not j.denied


def test_a_one_word_idea_after_a_plain_not_is_no_denial() -> None:
    # 'not' without 'is not a' is too thin for a one-word phrasing: what is denied is unclear.
    j = evaluator.analyse(CONCEPT.supraordinate, "cryptographers do not reverse it: hashing is one-way")
    assert not j.denied


def test_a_denied_predicate_in_a_relative_clause_does_not_reach_back_past_it() -> None:
    [[clause]] = lang.read("names in code that do not exist")
    assert not any(clause.denied_after[: clause.words.index("that")])
    [[clause]] = lang.read("a base case is not needed")
    assert all(clause.denied_after[: clause.words.index("not")])


def test_what_a_key_idea_denies_is_matched_as_loosely_as_its_phrasings() -> None:
    agreeing = lang.denied_in("The cookie has no Expires attribute.")
    [clause] = lang.read("a session cookie has no expiry date")[0]
    assert not lang.denies(lang.compile_phrasing("cookie expiry"), [clause], agreeing)
    assert lang.denies(lang.compile_phrasing("cookie expiry"), [clause])


@pytest.mark.parametrize("answer", ["hashing is cryptography: it does not keep the text and gives the same digest for the "
                                    "same input", "hashing is cryptography: it does not keep the text and it gives the "
                                    "same digest for the same input"])
def test_a_denial_stops_where_and_starts_a_predicate_of_its_own(answer: str) -> None:
    j = evaluator.analyse(CONCEPT.supraordinate, answer)
    assert not j.denied
    assert [kp.id for kp in j.covered] == ["family", "same_output"]


def test_making_no_attempt_to_do_something_denies_it() -> None:
    j = evaluator.analyse(CONCEPT.supraordinate, "hashing makes no attempt to give the same digest for the same input")
    assert [kp.id for kp in j.denied] == ["same_output"]


def test_having_nothing_to_do_with_a_key_idea_denies_it() -> None:
    assert verdict("hashing is from cryptography and one-way, but it has nothing to do with the same input "
                   "giving the same digest") == "missing"


@pytest.mark.parametrize("answer", [
    "hashing is from cryptography and one-way; it has no bearing on the same input giving the same digest",
    "hashing is from cryptography and one-way, and it is unrelated to the same input giving the same digest",
    "hashing is from cryptography and one-way; it gives neither the same digest for the same input nor a key",
])
def test_saying_a_key_idea_is_irrelevant_or_neither_nor_denies_it(answer: str) -> None:
    assert [kp.id for kp in evaluator.analyse(CONCEPT.supraordinate, answer).denied] == ["same_output"]


@pytest.mark.parametrize("answer", ["hashing comes from cryptography, and there is no need for it to be deterministic",
                                    "hashing is cryptography, so you do not need deterministic output"])
def test_no_need_for_a_one_word_idea_denies_it(answer: str) -> None:
    assert [kp.id for kp in evaluator.analyse(CONCEPT.supraordinate, answer).denied] == ["same_output"]


def test_an_inverted_neither_repeats_the_last_denial_and_denies_nothing_after_it() -> None:
    j = evaluator.analyse(CONCEPT.supraordinate, "hashing is cryptography and one-way: no key changes the output, "
                                                 "and neither does the same input give a different digest")
    assert not j.denied


@pytest.mark.parametrize("answer", [
    "alpha. Hashing and gamma are basically the same thing.",
    "alpha; hashing vs gamma: no difference, both do alpha",
    "alpha, and hashing and gamma are not really different",
    "alpha. gamma and hashing: same meaning, they both alpha",
    "alpha. Gamma works exactly the same way as hashing.",
    "alpha. Hashing and gamma aren't really separate, so if you have one you have the other.",
    "alpha. Between hashing and gamma there's no real difference in what travels over the wire.",
])
def test_calling_a_neighbour_the_same_denies_the_difference(answer: str) -> None:
    j = evaluator.analyse(CONCEPT.coordinate, answer, own=["hashing"])
    assert [kp.id for kp in j.denied] == ["b"]
    assert judge(answer, key="coordinate").verdict == "missing"


@pytest.mark.parametrize("answer", [
    "alpha. Hashing and gamma are the same, except that only hashing has beta.",
    "alpha; gamma uses the same key as hashing does",
    "alpha: hashing and gamma are not the same thing",
    "alpha. People think hashing and gamma are the same thing, but beta.",
    "alpha. Gamma is the same-origin trick that hashing relies on.",
    "alpha: gamma and hashing are the same thing underneath, hashing is beta on top of gamma",
    "alpha: hashing and gamma are the same thing, hashing is nicer syntax over gamma",
    "alpha. If hashing and gamma were the same, beta would be gamma.",
    "alpha, and the same thing happens to gamma",
])
def test_a_sameness_that_goes_on_to_a_difference_or_is_a_phrase_denies_nothing(answer: str) -> None:
    assert not evaluator.analyse(CONCEPT.coordinate, answer, own=["hashing"]).denied


@pytest.mark.parametrize("answer", ["alpha. Gamma is not a real kind.", "alpha; gamma isn't a separate type at all",
                                    "alpha, and gamma does not exist"])
def test_saying_a_kind_is_no_kind_denies_it(answer: str) -> None:
    assert [kp.id for kp in evaluator.analyse(CONCEPT.subordinate, answer, kinds=True).denied] == ["b"]


@pytest.mark.parametrize("answer", ["alpha; gamma covers things that do not exist", "alpha. Is gamma not a real kind?",
                                    "alpha. People say gamma is not a real kind, but it is beta."])
def test_a_kind_described_asked_about_or_defended_is_not_denied(answer: str) -> None:
    assert not evaluator.analyse(CONCEPT.subordinate, answer, kinds=True).denied


@pytest.mark.parametrize("answer", ["hashing is from cryptography and one-way; the same digest for the same input is "
                                    "not needed", "hashing is cryptography and one-way; that the same input gives the "
                                    "same digest is far from true", "hashing is cryptography, one-way, and it is far from "
                                    "deterministic"])
def test_a_key_idea_before_a_denied_predicate_or_called_far_from_true_is_denied(answer: str) -> None:
    assert [kp.id for kp in evaluator.analyse(CONCEPT.supraordinate, answer).denied] == ["same_output"]


def test_no_before_a_predicate_denies_its_own_noun_not_the_claim_before_it() -> None:
    j = evaluator.analyse(CONCEPT.supraordinate, "hashing is cryptography: the same input gives the same digest with no "
                                                 "key involved")
    assert not j.denied


@pytest.mark.parametrize("answer", ["hashing is cryptography: one-way, and the same input gives the same digest, which is "
                                    "not really the fix for weak passwords",
                                    "hashing is cryptography; it never alters existing input and gives the same digest "
                                    "for the same input"])
def test_a_hedge_or_a_word_that_shares_a_stem_is_no_denied_predicate(answer: str) -> None:
    assert not evaluator.analyse(CONCEPT.supraordinate, answer).denied


def test_hardly_any_denies_like_no() -> None:
    [[clause]] = lang.read("hardly any caches keep data forever")
    assert clause.words[0] == "no"


def test_a_kind_said_not_to_be_the_concept_is_denied_unless_it_is_defined_by_a_lack() -> None:
    j = evaluator.analyse(CONCEPT.subordinate, "alpha. Gamma isn't really hashing at all.", own=["hashing"], kinds=True)
    assert [kp.id for kp in j.denied] == ["b"]
    j = evaluator.analyse(CONCEPT.subordinate, "alpha. gamma = no hashing at all", own=["hashing"], kinds=True)
    assert not j.denied


def test_saying_an_idea_is_not_enough_does_not_deny_it() -> None:
    j = evaluator.analyse(CONCEPT.supraordinate, "hashing is cryptography and one-way, and a digest alone is not enough "
                                                 "to show the same input gave the same digest")
    assert not j.denied


def test_a_phrasing_that_carries_a_negation_is_never_denied_by_one() -> None:
    # 'not|never|cannot reverse' is met by a negation; a second one does not turn it around.
    j = evaluator.analyse(CONCEPT.supraordinate, "hashing is cryptography, the same input gives the same digest, and a "
                                                 "digest that you did not keep can not be reversed")
    assert not j.denied


@pytest.mark.parametrize("answer", [
    "A common belief is that a hash is encryption. It is one-way cryptography.",
    "Another confusion is thinking a hash is reversible; it is one-way cryptography.",
    "Much confusion comes from thinking hashes are reversible. It is one-way cryptography.",
    "Some say a hash is basically encryption. It isn't: hashing is one-way cryptography.",
    "So a hash is encryption? Not true. Hashing is one-way cryptography.",
])
def test_a_belief_reported_or_answered_by_a_bare_denial_counts_for_nothing(answer: str) -> None:
    j = evaluator.analyse(CONCEPT.supraordinate, answer)
    assert not j.confusions
    assert verdict(answer) == "solid"


def test_a_bare_denial_refutes_only_the_sentence_before_it() -> None:
    [first, second, third] = lang.read("Hashing is cryptography. A hash is encryption. It isn't.")
    assert not any(c.refuted for c in first)
    assert all(c.refuted for c in second)
    assert not any(c.refuted for c in third)


def test_a_noun_and_a_verb_after_a_denial_open_a_clause_of_their_own() -> None:
    # Not a list of adjectives the denial runs on into ('not a fixed, model-specific size').
    parts = lang.clause_parts("hashing cant give the digest, encryption keeps the text")
    assert [text.strip() for _, text in parts] == ["hashing cant give the digest", "encryption keeps the text"]
    [[clause]] = lang.read("it is not reversible and the same input gives the same digest")
    assert clause.negations_before[clause.words.index("same")] == 0


def test_what_a_key_idea_says_without_is_agreement() -> None:
    assert lang.stem("name") in lang.denied_in("A lambda is a way to write a function without a name.")
    # ...and what it says nothing does: 'trigger no execution' agrees with 'nothing runs'.
    assert lang.stem("execution") in lang.denied_in("Structured outputs shape the answer and nothing runs.")


def test_a_key_idea_under_negation_is_not_credited() -> None:
    j = evaluator.analyse(CONCEPT.supraordinate, "the same input does not always give the same digest")
    assert not j.covered and j.denied


@pytest.mark.parametrize(
    "answer",
    [
        "people think a hash is encryption, but it is cryptography and one-way: you cannot reverse it",
        "a common mistake is thinking a hash is reversible; in fact it comes from cryptography and is one-way",
        "it's a myth that a hash is encryption. it is a cryptographic one-way function",
        "saying a hash is reversible is wrong. it is cryptography, one-way",
    ],
)
def test_a_refuted_misconception_costs_nothing(answer: str) -> None:
    result = judge(answer)
    assert result.verdict == "solid", result.feedback


def test_refuted_words_are_not_credited_either() -> None:
    j = evaluator.analyse(CONCEPT.supraordinate, "people think hashing is one-way and from cryptography, but i disagree")
    assert not j.covered


@pytest.mark.parametrize(
    "answer",
    [
        "hashing comes from cryptography and is one-way, but a hash is a kind of encryption",
        "it's cryptography: one way, same input same digest. also the hash is reversible with the right key",
        "hashes are basically encryption, from cryptography, one-way",
        # a condition and what it leads to are one claim
        "it is cryptography and one-way. if you hash a text then you can decrypt it later",
        "it is cryptography and one-way. if you hash a password, you can decrypt it later",
    ],
)
def test_a_core_misconception_makes_the_answer_missing(answer: str) -> None:
    result = judge(answer)
    assert result.verdict == "missing"
    assert "misconception" in result.feedback
    assert result.feedback.endswith("turns a digest back into the text?")


def test_a_side_misconception_caps_the_answer_at_partial() -> None:
    assert verdict("hashing comes from cryptography and is one-way, and a hash is always 256 bits") == "partial"


def test_the_required_point_is_needed_for_solid() -> None:
    result = judge("you can't undo it, and the same text twice gives an identical digest")
    assert result.verdict == "partial"
    assert "Which field of computing" in result.feedback


# --- copying, echoing, listing ------------------------------------------------------------------


def test_an_echoed_question_is_missing() -> None:
    assert verdict("what kind of thing is hashing and what is it for", Shown(prompt=PART["question"])) == "missing"
    assert verdict("hashing is a kind of thing, it is for something") == "missing"


def test_pasted_or_lightly_reworded_text_that_was_shown_covers_nothing() -> None:
    last = PART["hints"][-1]
    shown = Shown(prompt=PART["question"], hints=tuple(PART["hints"]))
    assert evaluator.analyse(CONCEPT.supraordinate, last).covered  # the words alone would count...
    assert verdict(last, shown) == "missing"  # ...but not as a copy of a hint
    assert verdict(last) == "missing"  # any hint may have been seen in an earlier session
    reworded = last.replace("always ", "").replace(", and", " and")
    assert verdict(reworded, shown) == "missing"
    assert verdict(PART["worked_example"], Shown(worked_example=PART["worked_example"])) == "missing"


def test_an_echo_padded_with_vague_words_is_still_an_echo() -> None:
    question = "Which bigger family does hashing belong to, and what is it used for?"
    part = CONCEPT.supraordinate.model_copy(update={"question": question})
    echo = "hashing belongs to a bigger family of things, and it is used for the stuff it is used for"
    assert evaluator.analyse(part, echo, shown=Shown(prompt=question), own=["hashing"]).copied


def test_one_shared_word_is_not_a_copy() -> None:
    shown = Shown(cues=("Think about the main branch.",))
    j = evaluator.analyse(CONCEPT.supraordinate, "the main thing: it is cryptography and one-way", shown=shown)
    assert not j.copied and [kp.id for kp in j.covered] == ["family", "one_way"]


def test_a_shown_cue_with_its_words_shuffled_is_still_a_copy() -> None:
    shown = Shown(cues=("The same input always gives the same digest.",))
    answer = "hashing comes from cryptography and you can never undo it, and for the same input: always the same digest, it gives"
    assert "same_output" in {kp.id for kp in evaluator.analyse(CONCEPT.supraordinate, answer).covered}
    judged = evaluator.analyse(CONCEPT.supraordinate, answer, shown=shown)
    assert {kp.id for kp in judged.covered} == {"family", "one_way"}  # the cue's words, reordered, count for nothing


def test_own_words_next_to_a_copied_cue_still_count() -> None:
    shown = Shown(prompt="\n".join(PART["guided"]), cues=tuple(PART["cues"]))
    answer = "think about which way the data can travel. it comes from cryptography and you can never undo it"
    assert verdict(answer, shown) == "solid"


def test_each_guided_question_is_its_own_text_to_copy_from() -> None:
    """Words gathered from two different questions are an answer in the questions' terms."""
    shown = Shown(prompt="\n".join(PART["guided"]), cues=tuple(PART["cues"]))
    answer = "it comes from cryptography. the same input twice: same hash"
    assert {kp.id for kp in evaluator.analyse(CONCEPT.supraordinate, answer, shown=shown).covered} == {
        "family", "same_output"}


def _judged_after(question: str, answer: str):
    part = CONCEPT.supraordinate.model_copy(update={"guided": [question]})
    concept = CONCEPT.model_copy(update={"supraordinate": part})
    inp = EvaluateInput(concept="hashing", part="supraordinate", level=2, answer=answer, shown=Shown(prompt=question))
    return OfflineAgents(concept).evaluate(inp)


@pytest.mark.parametrize(
    ("question", "claim", "feedback"),
    [
        ("Is a hash reversible, like encryption?", "a hash is reversible like encryption", "misconception"),
        ("Why does the same input always give the same digest?", "the same input does not always give the same digest",
         "opposite of a key idea"),
    ],
)
def test_a_wrong_claim_in_a_questions_words_still_counts_against_the_answer(question: str, claim: str,
                                                                            feedback: str) -> None:
    result = _judged_after(question, f"{claim}. it comes from cryptography, and it is one-way")
    assert result.verdict == "missing"
    assert feedback in result.feedback


def test_an_answer_in_a_questions_words_earns_what_its_own_words_add() -> None:
    question = "Can the original input be recovered from the digest after hashing?"
    answer = "no, the original input can never be recovered from the digest. it comes from cryptography"
    assert _judged_after(question, answer).covered == ["family", "one_way"]
    # The question's own words alone earn nothing, and an answer made of them is an echo.
    assert _judged_after(question, "the original input can be recovered from the digest after hashing").verdict == "missing"


@pytest.mark.parametrize(
    "answer",
    [
        "cryptography, one-way, deterministic, collision-resistant, fixed-size",
        "- cryptographic primitive\n- one-way\n- deterministic",
        "in-band, error-based, UNION-based, blind, time-based, out-of-band, second-order",
        "cryptography one-way deterministic digest",
        "the kinds are: in-band, error-based, union-based, blind, time-based, out-of-band",  # a verb, still a list
    ],
)
def test_a_bare_list_of_terms_is_missing(answer: str) -> None:
    result = judge(answer)
    assert result.verdict == "missing"
    assert "list of terms" in result.feedback


def test_a_list_whose_items_are_explained_is_an_answer() -> None:
    answer = "- it comes from cryptography\n- it is one-way, so you can't undo it\n- the same input gives the same digest"
    assert verdict(answer) == "solid"


def test_an_answer_about_something_else_is_missing_despite_a_shared_phrase() -> None:
    # 'cryptographic' would cover the required point, but the rest is about TLS handshakes.
    answer = ("It is the cryptographic handshake a browser performs with a server: they negotiate cipher suites, "
              "exchange certificates and agree on session keys before any traffic flows.")
    result = judge(answer)
    assert result.verdict == "missing"
    assert "something other than Hashing" in result.feedback
    assert result.feedback.rstrip().endswith("?")


def test_an_answer_in_the_parts_own_words_is_not_off_topic() -> None:
    on_topic = "hashing is cryptography: one-way, you cannot undo it, the same input gives the same digest"
    assert not evaluator.analyse(CONCEPT.supraordinate, on_topic).off_topic


def test_naming_only_covers_nothing_and_the_feedback_says_so() -> None:
    result = judge("it is like gamma", key="coordinate")
    assert result.verdict == "missing"
    assert "Naming it is a start" in result.feedback


@pytest.mark.parametrize("answer", ["", "   ", "I don't know.", "i dont know", "idk", "not sure", "no idea!", "skip", "dunno"])
def test_dont_know_is_missing_with_a_question_to_start_from(answer: str) -> None:
    result = judge(answer)
    assert result.verdict == "missing"
    assert result.feedback.rstrip().endswith("?")


# --- fair to paraphrase --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "its a cryptograhpic function thats one way, u cant undo it",  # typos
        "Cryptography gives us hashing. Once hashed, there's no way to recover the original, whether or not you try hard.",
        "so basically, and I had to think about this a bit, hashing is one of those cryptography things, and the "
        "important bit is you can never reverse it, and also if you hash the same input you get the same digest",
    ],
)
def test_informal_long_or_misspelt_correct_answers_stay_solid(answer: str) -> None:
    assert verdict(answer) == "solid"


def test_a_conditional_negation_is_not_a_denial() -> None:
    j = evaluator.analyse(CONCEPT.supraordinate, "if the same input did not give the same digest, comparing would fail")
    assert not j.denied


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
        # a noun made from a verb meets the verb
        ("migrate", "migrates", "migrated", "migrating", "migration", "migrations"),
        ("iterate", "iterating", "iteration", "iterations"),
        ("serialize", "serialized", "serialization"),
        ("serialise", "serialised", "serialisation"),
    ],
)
def test_inflections_share_a_stem(forms: tuple[str, ...]) -> None:
    assert len({lang.stem(f) for f in forms}) == 1, {f: lang.stem(f) for f in forms}


def test_https_is_no_plural_of_http() -> None:
    assert not lang.word_matches(lang.stem("http"), lang.stem("https"))
    assert not asserted("http encrypt data", "HTTPS encrypts data by default")
    assert asserted("http encrypt data", "plain HTTP encrypts data by default")


def test_notation_is_no_negation() -> None:
    assert lang.stem("notation") not in lang.NEGATIONS
    assert not lang.word_matches(lang.stem("notation"), lang.stem("not"))


def test_long_stems_match_as_prefixes_and_short_ones_do_not() -> None:
    assert lang.word_matches(lang.stem("tamper"), lang.stem("tampering"))
    assert lang.word_matches(lang.stem("recursion"), lang.stem("recursive"))
    assert not lang.word_matches(lang.stem("key"), lang.stem("keyboard"))


@pytest.mark.parametrize(("a", "b"), [("comment", "comes"), ("comments", "come"), ("payment", "pay")])
def test_a_suffix_is_not_cut_down_to_a_different_short_word(a: str, b: str) -> None:
    assert not lang.word_matches(lang.stem(a), lang.stem(b)) and not lang.word_matches(lang.stem(b), lang.stem(a))
    assert lang.stem(a.rstrip("s")) == lang.stem(a)  # the plural still meets the singular


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
        ("python lacks tail call optimisation", True),
        ("the same hash no matter how often", False),
        ("not only fast but correct", False),
        ("containers are not as isolated as vms", False),  # a comparison: less isolated
        ("the isolation isn't as strong, and you need a compatible kernel", False),
        ("a jwt is encrypted", False),
        ("letting the model say 'I don't know' reduces them", False),  # quoted words, not a denial
        ("it should admit it does not know", False),
        ("no more 'works on my machine'", False),  # a problem gone, not a denial
        ("no more than ten requests", True),
        ("you can't just trust the client", True),  # after a modal, 'not just' denies
        ("it doesn't just answer, it also stores", False),
    ],
)
def test_negation(text: str, negated: bool) -> None:
    """A negation is left once the reader has read the idioms ('no matter', 'not only',
    'not as strong') for what they mean."""
    assert any(w in lang.NEGATIONS for s in lang.read(text) for c in s for w in c.words) is negated


def test_a_phrasings_cannot_matches_cant_and_can_not() -> None:
    phrasing = lang.compile_phrasing("attacker cannot|never read response")
    for text in ("the attacker can't read the response", "the attacker can not read the response",
                 "the attacker cannot read the response"):
        assert lang.asserts(phrasing, lang.read(text)[0]), text


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


def test_which_after_a_verb_of_choosing_is_a_question_word_not_a_new_clause() -> None:
    assert [len(s) for s in lang.read("the server checks which user sent it")] == [1]
    assert [len(s) for s in lang.read("the model decides which parts to forget")] == [1]
    assert [len(s) for s in lang.read("it keeps a copy, which is faster")] == [2]


def test_instead_of_y_denies_y_inside_its_clause() -> None:
    [[clause]] = lang.read("set the balance to 100 instead of adding 10")
    assert clause.negations_before[clause.words.index("adding")] and not clause.negations_before[0]
    # 'instead' on its own still turns to a new claim, and ends the refuted belief
    [[belief], [claim]] = lang.read("people think it is slow; instead it is fast")
    assert belief.refuted and claim.separator == "instead" and not claim.refuted


def test_while_splits_clauses_but_a_while_loop_is_a_loop() -> None:
    assert len(lang.clauses("recursion is exactly the same as a while loop")) == 1
    assert len(lang.clauses("it runs while true holds")) == 1
    assert len(lang.clauses("threads share memory while processes do not")) == 2


def test_denying_a_word_that_carries_its_own_negation_is_still_a_denial() -> None:
    # The key idea says the token 'cannot be tampered with', so 'not tampered' agrees with it;
    # 'not tamper-proof' says the opposite.
    agreeing = lang.denied_in("It is signed: the payload can not be tampered with without breaking the signature.")
    phrasing = lang.compile_phrasing("signature tamper")
    denial = lang.read("The signature isn't what makes it tamper-proof.")[0]
    agreement = lang.read("With the signature the payload is not tampered with unnoticed.")[0]
    assert lang.denies(phrasing, denial, agreeing)
    assert not lang.denies(phrasing, agreement, agreeing)


def test_a_pronoun_after_a_comma_goes_on_about_the_last_subject() -> None:
    # 'a hash is ..., it is reversible': the misconception is about the hash.
    assert verdict("a hash is from cryptography, it is reversible with the right key") == "missing"
    # Without a subject before the verb there is nothing to carry over.
    clauses = lang.read("from cryptography, it is one-way")[0]
    assert len(lang.with_consequences(clauses)) == len(clauses)


def test_its_is_it_is_and_other_apostrophe_s_is_a_possessive() -> None:
    assert lang.words("it's one-way and the server's key") == ["it", "is", "one", "way", "and", "the", "server", "key"]


def test_calling_a_claim_wrong_refutes_it() -> None:
    assert verdict("It is also wrong that a hash is reversible. It is cryptography and one-way.") == "solid"


@pytest.mark.parametrize(
    ("text", "refuted"),
    [
        ("many think a hash is reversible", True),
        ("most people assume a hash is reversible", True),
        ("no matter how many times you call it, the same input gives the same digest", False),
        ("some of the time you call it twice", False),
    ],
)
def test_many_reports_a_belief_only_before_a_verb_of_believing(text: str, refuted: bool) -> None:
    assert any(c.refuted for s in lang.read(text) for c in s) is refuted


def test_a_denial_of_a_default_is_not_a_denial_of_the_idea() -> None:
    phrasing = lang.compile_phrasing("memory limit")
    assert lang.denies(phrasing, lang.read("docker sets no memory limit")[0])
    assert not lang.denies(phrasing, lang.read("docker sets no memory limit by default")[0])
    assert not lang.denies(phrasing, lang.read("docker sets no memory limit unless you pass --memory")[0])


def test_a_denied_list_of_adjectives_keeps_its_denial_to_the_noun() -> None:
    assert len(lang.read("a lockfile is not an exact, pinned, reproducible record of the tree")[0]) == 1


def test_saying_something_does_not_count_denies_it() -> None:
    clause = lang.read("instructions hidden in documents do not count")[0][0]
    assert clause.denied_after[clause.words.index("documents")]


def test_w_slash_o_is_without() -> None:
    assert lang.normalise("decoded w/o the schema, w/ a key") == "decoded without the schema, with a key"


def test_cannot_without_is_a_need_for_what_follows_without() -> None:
    schema = lang.compile_phrasing("schema decode|read")
    assert not lang.denies(schema, lang.read("it can't be decoded without the schema")[0])
    # ...but what comes before 'without' is still denied: local work, here.
    local = lang.compile_phrasing("git local|locally")
    assert lang.denies(local, lang.read("git can't do anything locally without a github account")[0])


def test_a_compound_is_denied_only_as_a_whole() -> None:
    phrasing = lang.compile_phrasing("csrf|xsrf token|samesite|anti-csrf")
    clauses = lang.read("cors is not anti-csrf")[0]
    assert not lang.denies(phrasing, clauses, frozenset({"csrf"}))
    assert lang.denies(phrasing, clauses)


def test_agreement_reaches_the_synonyms_of_a_short_term_only() -> None:
    agreeing = frozenset({"referenc", "column", "index"})
    clauses = lang.read("declaring it does not index the child column")[0]
    assert not lang.denies(lang.compile_phrasing("referencing|child column"), clauses, agreeing)
    # A long run of alternatives lists related words: 'child' among them is no synonym.
    assert lang.denies(lang.compile_phrasing("referencing|child|parent|table|row column"), clauses, agreeing)


def test_keeps_no_denies_the_keeping_too() -> None:
    assert {lang.stem("keeps"), lang.stem("session")} <= lang.denied_in("the server keeps no session")


def test_no_before_a_subject_and_its_verb_denies_the_whole_clause() -> None:
    clause = lang.read("and no provider signs with a key pair")[0][0]
    assert clause.negations_before[clause.words.index("pair")] == 1
    # As a determiner of an object, or before 'and', it denies its noun only.
    short = lang.read("no key and anybody can decode it")[0][0]
    assert short.negations_before[short.words.index("decode")] == 0


def test_in_a_classification_a_clause_about_another_kind_denies_nothing() -> None:
    # 'one way' is denied in a clause labelled with another key point: a contrast of kinds.
    answer = "crypto primitive: it is not one-way. the same input gives the same digest"
    assert [kp.id for kp in evaluator.analyse(CONCEPT.supraordinate, answer).denied] == ["one_way"]
    assert evaluator.analyse(CONCEPT.supraordinate, answer, kinds=True).denied == []


def test_notes_style_equals_and_not_equals_read_as_is_and_is_not() -> None:
    assert lang.normalise("await = give up control, 429 ≠ 403, x=1, a == b") == \
        "await is give up control, 429 is not 403, x=1, a == b"


def test_a_denial_about_it_is_a_denial_about_the_last_subject() -> None:
    phrasing = lang.compile_phrasing("hashing one-way")
    clauses = lang.read("hashing maps input to a digest, and it is not one-way at all")[0]
    assert not lang.denies(phrasing, clauses)
    assert lang.denies(phrasing, lang.with_subjects(clauses))


def test_a_prohibition_denies_no_fact() -> None:
    phrasing = lang.compile_phrasing("md5 broken|collision|collisions")
    assert not lang.denies(phrasing, lang.read("md5 must not be used where collisions matter")[0])
    assert lang.denies(phrasing, lang.read("md5 does not have collisions")[0])


def test_what_a_mechanism_prevents_denies_nothing() -> None:
    newer = lang.compile_phrasing("retry|write newer|version")
    # 'so' after a phrase with no verb says what the phrase is for...
    assert not lang.denies(newer, lang.read("and an etag with if-match, so a retry can't clobber a newer version")[0])
    assert not lang.denies(newer, lang.read("it uses an etag so that a retry can not clobber a newer version")[0])
    # ...after a whole clause it is a consequence, which asserts ('..., like X, so' skips the example).
    assert lang.denies(newer, lang.read("the etag is ignored, so a retry can not reach a newer version")[0])
    server = lang.compile_phrasing("central server")
    assert lang.denies(server, lang.read("every node serves data, like bittorrent, so there is no central server")[0])


def test_not_before_a_verb_in_ing_names_a_thing_to_do() -> None:
    sharing = lang.compile_phrasing("sharing state")
    assert not lang.denies(sharing, lang.read("fixes: locks, or just not sharing mutable state")[0])
    assert not lang.denies(sharing, lang.read("you avoid it by not sharing state")[0])
    assert lang.denies(sharing, lang.read("a race is not sharing state")[0])
    assert lang.denies(sharing, lang.read("threads are not sharing state")[0])


def test_a_pronoun_after_a_comma_starts_a_clause_after_a_denied_noun_phrase() -> None:
    # 'not ... the result,' would take a run without a verb into its denial; 'u get' is a clause.
    assert len(lang.read("calling it does not give u the result, u get a coroutine object")[0]) == 2
    assert len(lang.read("a lockfile is not an exact, pinned record")[0]) == 1



def test_a_phrasings_own_negation_stays_with_its_words_across_a_consequence() -> None:
    def fires(phrasing: str, text: str) -> bool:
        ph = lang.compile_phrasing(phrasing)
        return any(lang.asserts_nearby(ph, c) for s in lang.read(text) for c in lang.with_consequences(s))

    # The 'not' of the consequence denies nothing the phrasing is about...
    assert not fires("put|delete not|never idempotent", "put and delete are idempotent, so sending twice is not a problem")
    # ...but where it stands with one of the phrasing's words, the claim is one.
    assert fires("gil safe no|not lock|locks", "the gil makes threads safe, so no locks are needed")
    assert fires("put|delete not|never idempotent", "put is not idempotent")


def test_a_predicate_handed_on_to_another_subject_denies_nothing() -> None:
    lower = lang.compile_phrasing("lower bound")
    assert not lang.denies(lower, lang.read("big-o is not a lower bound, omega is")[0])
    assert lang.denies(lower, lang.read("big-o is not a lower bound, and omega is not one either")[0])
    assert lang.denies(lower, lang.read("omega is not a lower bound")[0])


def test_denying_a_loss_affirms_what_is_kept() -> None:
    remembers = lang.compile_phrasing("callback|callbacks variables|context")
    assert not lang.denies(remembers, lang.read("callbacks don't forget the variables around them")[0])
    assert lang.denies(remembers, lang.read("callbacks do not keep the variables around them")[0])
    # Where the loss is the idea itself, denying it is still a denial.
    evicts = lang.compile_phrasing("cache drop|drops|evict entries")
    assert lang.denies(evicts, lang.read("a full cache does not drop entries")[0])


def test_a_kind_is_denied_by_is_not_a_not_by_a_verb_of_the_same_spelling() -> None:
    device = lang.compile_phrasing("device-flow|device")
    assert not lang.denies_existence(device, lang.read("with the device flow you don't type your password on the tv")[0][0])
    assert lang.denies_existence(device, lang.read("the device flow is not a real type of grant")[0][0])
    # 'not always real' says some are not: the kind exists.
    cites = lang.compile_phrasing("citation|citations")
    assert not lang.denies_existence(cites, lang.read("citations are not always real")[0][0])
    assert lang.denies_existence(cites, lang.read("fake citations are not a real thing")[0][0])
    # Only 'is not' denies being the concept itself ('merge' is a name of git here).
    own = frozenset({"merg"})
    ff = lang.compile_phrasing("fast-forward")
    assert not lang.denies_existence(ff, lang.read("a fast-forward doesn't create a merge commit")[0][0], own)
    assert lang.denies_existence(ff, lang.read("a fast-forward is not a merge")[0][0], own)


def test_no_separate_thing_says_there_is_none_not_that_two_are_one() -> None:
    assert not lang.says_same(lang.read("sqlite has no separate server process")[0])
    assert lang.says_same(lang.read("git and github are not different things")[0])
    assert lang.says_same(lang.read("a race and a deadlock are no different")[0])


def test_a_clause_that_condemns_a_practice_does_not_recommend_it() -> None:
    echo = lang.compile_phrasing("just|simply echo|reflect origin")
    said = lang.read("and just echoing back whatever origin comes in is a misconfig")[0][0]
    assert lang.asserts_nearby(echo, said) and lang.condemns(said, echo)
    fine = lang.read("you can just echo back whatever origin comes in, that is fine")[0][0]
    assert not lang.condemns(fine, echo)
    # 'is not a mistake' approves, and a misconception that is itself a verdict still counts.
    assert not lang.condemns(lang.read("just echoing the origin is not a mistake")[0][0], echo)
    insecure = lang.compile_phrasing("https insecure|unsafe")
    assert not lang.condemns(lang.read("https is insecure")[0][0], insecure)


def test_a_denied_degree_is_no_denial_of_the_predicate() -> None:
    weakest = lang.compile_phrasing("serializable weakest|level")
    assert not lang.denies(weakest, lang.read("serializable is not the weakest level")[0])
    undo = lang.compile_phrasing("savepoint undo|rollback transaction")
    assert not lang.denies(undo, lang.read("rolling back to a savepoint doesn't undo the whole transaction")[0])
    assert lang.denies(undo, lang.read("rolling back to a savepoint doesn't undo anything in the transaction")[0])


def test_a_denied_comparison_or_sameness_is_no_denial_of_the_idea() -> None:
    manual = lang.compile_phrasing("manual|hand repeat|repeated|again")
    assert not lang.denies(manual, lang.read("manual testing can't be repeated as cheaply as automated tests")[0])
    assert lang.denies(manual, lang.read("manual testing can not be repeated")[0])
    risk = lang.compile_phrasing("read|reading write|writing risk")
    assert not lang.denies(risk, lang.read("reading and writing are not the same risk")[0])


def test_denying_what_denies_existence_requires_it() -> None:
    fk = lang.compile_phrasing("foreign > key > point|reference")
    assert not lang.denies(fk, lang.read("a foreign key can't point to anything that doesn't exist")[0])
    assert lang.denies(fk, lang.read("a foreign key does not point to another row")[0])
