"""The offline evaluator: judges an answer by the part's rubric key points.

A key idea counts only where the student asserts it, in words of their own:
- under a negation ('hashing is not one-way') or inside a refutation ('people think
  X, but...') the words assert nothing, for the key points and for the confusions;
- a clause copied or lightly reworded from what was shown (the question, the cues,
  the worked example, the hints, the reference) earns none of the key points its
  source holds, though a wrong claim in it still counts, and an answer that is all
  copy is missing;
- a bare list of terms is missing, and naming a neighbour or a kind covers nothing;
- a core misconception makes the answer missing, a side one caps it at partial;
- a solid answer covers `solid_needs` points including every required one;
- an answer mostly in words this part never uses is about something else (a
  neighbouring concept, another topic): a phrase it shares by chance covers nothing.

Robust to case, punctuation, word order, inflections, everyday synonyms and single
typos. Feedback says what was credited and asks about what was not with the key
point's nudge (a question), never with the idea itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from lumente_cli.agents.contracts import Evaluation, Shown
from lumente_cli.agents.offline import language as lang
from lumente_cli.concepts.schema import Concept, Confusion, KeyPoint, Part
from lumente_cli.parts import PartKey
from lumente_cli.session import Verdict

# Below this share of function words, with no verb, text is a run of keywords.
STUFFING_RATIO = 0.1
STUFFING_MIN_WORDS = 4
# A list is at least this many items, nearly all of them bare terms.
LIST_MIN_ITEMS = 3
LIST_BARE_SHARE = 0.75
LIST_ITEM_MAX_WORDS = 4
# One item this long is a sentence, and the answer is prose with commas, not a list.
LIST_LONG_ITEM = 5
# A clause is a copy of a short text shown (a question, a cue) when this share of its
# content words come from it, in any order.
BAG_COPY_SHARE = 0.8
BAG_COPY_MIN_WORDS = 2
# ...and of a long text (worked example, reference, hint) when this share of its pairs
# of consecutive content words appear there in the same order.
ORDERED_COPY_SHARE = 0.6
# Shorter clauses ('a function calls itself') are how anyone would say it, not a copy.
ORDERED_COPY_MIN_PAIRS = 3
# The same test over the whole answer, for a text pasted with a few words dropped.
WHOLE_COPY_SHARE = 0.7
WHOLE_COPY_MIN_PAIRS = 6
SHOWN_COPY_SHARE = 0.5
SHOWN_COPY_MIN_PAIRS = 4
# Share of the whole answer's 4-word runs found in the shipped text that marks a copy.
COPY_RATIO = 0.6
COPY_MIN_WORDS = 10
# An answer with this many content words, less than this share of them words the part
# uses anywhere (its texts, key points, phrasings, misconceptions), is about something else.
OFF_TOPIC_MIN_WORDS = 6
OFF_TOPIC_SHARE = 0.4

_DONT_KNOW = re.compile(
    r"^(?:i )?(?:do not know|dont know|dunno|no idea|not sure|no clue|have no clue|have no idea|idk|pass|skip"
    r"|forgot|can not remember|no clue tbh|not sure tbh|\?+)\b"
)
# Words that turn a term into a phrase with a structure ('for web apps', 'is signed').
_EXPLAINING = lang.FUNCTION_WORDS - {"a", "an", "the", "and", "or", "of"}
_LIST_SPLIT = re.compile(r"[,;/\n•·|&]+|\s+-\s+|\band\b|\bor\b|^\s*[-*]\s+|\n\s*[-*\d.]+\s+")


@dataclass(frozen=True)
class Judgement:
    covered: list[KeyPoint]
    confusions: list[Confusion]
    listed: bool
    copied: bool
    named: list[KeyPoint] = field(default_factory=list)
    refuted: list[Confusion] = field(default_factory=list)
    # Key points the answer states the opposite of ('a recursive function does not need
    # a base case'): as wrong as a listed misconception.
    denied: list[KeyPoint] = field(default_factory=list)
    off_topic: bool = False

    @property
    def core_confusions(self) -> list[Confusion]:
        return [c for c in self.confusions if c.core]


def verdict_for(part: Part, j: Judgement) -> Verdict:
    if j.listed or j.copied or j.off_topic or j.core_confusions or j.denied or not j.covered:
        return "missing"
    supported = part.supported(kp.id for kp in j.covered)
    return "partial" if j.confusions else supported


@dataclass(frozen=True)
class _Sources:
    """What the student may have copied from. What this session showed is compared
    clause by clause: short texts (question, cues) as word bags, long ones (worked
    example, hints) as ordered word pairs. Everything the concept holds, including
    the reference and hints shown in earlier sessions, is compared over the whole
    answer only, where a shared everyday phrase cannot make a copy."""

    bags: tuple[tuple[str, frozenset[str]], ...]  # (text, its content words)
    shown_pairs: tuple[tuple[str, frozenset[tuple[str, str]]], ...]
    all_pairs: tuple[frozenset[tuple[str, str]], ...]
    shingles: frozenset[tuple[str, ...]]
    own: frozenset[str]  # the concept's own name: saying it is not copying


def _sources(part: Part, shown: Shown, own_stems: frozenset[str]) -> _Sources:
    # Each guided question is a text of its own: joined, their words would make one bag
    # that any on-topic clause falls into.
    short = [part.question, *shown.prompt.splitlines(), *shown.cues]
    shown_long = [shown.worked_example, *shown.hints]
    everything = [part.reference, part.worked_example, *part.hints, *part.cues, *part.guided, *shown_long, *short]

    def pairs_of(texts: list[str]) -> tuple[frozenset[tuple[str, str]], ...]:
        out = []
        for text in texts:
            if text.strip():
                content = _content(lang.words(text), own_stems)
                out.append(frozenset(zip(content, content[1:], strict=False)))
        return tuple(out)

    shingles: set[tuple[str, ...]] = set()
    for text in everything:
        shingles |= lang.shingles(lang.words(text))
    bags = tuple((t, frozenset(_content(lang.words(t), own_stems))) for t in short if t.strip())
    shown_long = [t for t in shown_long if t.strip()]
    shown_pairs = tuple(zip(shown_long, pairs_of(shown_long), strict=True))
    return _Sources(bags, shown_pairs, pairs_of(everything), frozenset(shingles), own_stems)


def _ordered_copy(content: list[str], sources: Iterable[frozenset[tuple[str, str]]], min_pairs: int,
                  share: float) -> bool:
    """Most of these words' consecutive pairs appear, in order, in one of the texts."""
    pairs = list(zip(content, content[1:], strict=False))
    if len(pairs) < min_pairs:
        return False
    return any(sum(p in source for p in pairs) / len(pairs) >= share for source in sources)


# Words that stand in for an idea without saying it: an echo padded with them is still an echo
# ('it belongs to a bigger group of things, and it is used for the things it is used for').
_VAGUE = frozenset("thing things stuff something anything everything whatever kind kinds sort sorts way ways".split())


def _content(ws: Iterable[str], own: frozenset[str]) -> list[str]:
    return [s for w in ws if w not in lang.FUNCTION_WORDS and w not in _VAGUE and (s := lang.stem(w)) not in own]


def _copied(clause: lang.Clause, src: _Sources, *, beside_a_copy: bool = False) -> tuple[str, ...]:
    """The texts shown that this clause copies; none when the words are the student's own."""
    content = _content(clause.words, src.own)
    if not content:
        return ()
    bag = set(content)
    out: list[str] = []
    # One word ('the main thing is') is anyone's wording, not a copy, unless it is a piece
    # of a copied text that punctuation cut off ('for the same input: always the same digest').
    if len(bag) >= BAG_COPY_MIN_WORDS or beside_a_copy:
        out += [text for text, b in src.bags if len(bag & b) / len(bag) >= BAG_COPY_SHARE]
    out += [text for text, pairs in src.shown_pairs
            if _ordered_copy(content, [pairs], ORDERED_COPY_MIN_PAIRS, ORDERED_COPY_SHARE)]
    return tuple(out)


def gives(part: Part, text: str) -> frozenset[str]:
    """The key points a text shown covers by itself, its questions read as statements:
    a clause copied from it earns none of them. A clause that borrows a question's words
    to answer it ('it still has that variable after the outer function returned') earns
    what its own words add."""
    def read() -> frozenset[str]:
        sentences = lang.read(text.replace("?", "."))
        return frozenset(kp.id for kp in part.key_points if _asserted(kp.accept, sentences))

    return _kept_for(part, ("gives", text), read)


_PER_PART: dict[tuple[int, object], tuple[Part, frozenset[str]]] = {}
_PER_PART_KEPT = 4096


def _kept_for(part: Part, key: object, make: Callable[[], frozenset[str]]) -> frozenset[str]:
    """What `make` reads from this part, kept while the part lives: rubrics are read again for
    every answer, and the ones built on the fly (check rounds) come and go."""
    kept = _PER_PART.get((id(part), key))
    if kept is not None and kept[0] is part:
        return kept[1]
    if len(_PER_PART) >= _PER_PART_KEPT:
        _PER_PART.clear()
    value = make()
    _PER_PART[(id(part), key)] = (part, value)
    return value


def analyse(part: Part, answer: str, *, shown: Shown | None = None, own: Iterable[str] = (),
            kinds: bool = False) -> Judgement:
    """What the answer asserts, in its own words. Without `shown`, only the answer's
    own words are read (no copy check): that is how content tests judge a cue or a
    reference as if a student had written it. `kinds`: the part classifies, and its key
    points are kinds, which an answer tells apart by what one has and another lacks."""
    sentences = lang.read(answer)
    own_stems = frozenset(lang.stem(w) for text in own for w in lang.words(text))
    src = _sources(part, shown, own_stems) if shown is not None else None
    copied_any = False
    own_clauses: list[list[lang.Clause]] = []
    # Per sentence, per clause: the key points the texts it copies give away.
    given: list[list[frozenset[str] | None]] = []
    for clauses in sentences:
        copied = [_copied(clause, src) if src is not None else () for clause in clauses]
        if src is not None and any(copied):
            # A second look only beside a copy, where a one-word clause may be a piece of it.
            copied = [c or (_copied(clause, src, beside_a_copy=True) if any(copied[max(0, i - 1) : i + 2]) else ())
                      for i, (clause, c) in enumerate(zip(clauses, copied, strict=True))]
        copied_any = copied_any or any(copied)
        own_clauses.append([clause for clause, c in zip(clauses, copied, strict=True) if not c])
        given.append([frozenset().union(*(gives(part, t) for t in c)) if c else None for c in copied])

    def earning(kp: KeyPoint) -> list[list[lang.Clause]]:
        """The clauses that may earn this key point: the student's own, and copied ones
        whose source does not hold it."""
        return [[c for c, g in zip(s, gs, strict=True) if g is None or kp.id not in g]
                for s, gs in zip(sentences, given, strict=True)]

    covered = [kp for kp in part.key_points if _asserted(kp.accept, earning(kp))]
    named = [kp for kp in part.key_points if kp not in covered and kp.names and _asserted(kp.names, own_clauses)]
    # Copying earns no credit, but it excuses nothing either: words borrowed from a
    # question ('Big-Omega and Big-Theta are not different bounds at all') still say
    # what the student claims, so denials and misconceptions are read in every clause.
    with_subjects = [lang.with_subjects(s) for s in sentences]
    denied = [
        kp for kp in part.key_points
        if any(_denied(part, kp, lang.compile_phrasing(p), s, kinds) for p in kp.accept for s in with_subjects)
    ]
    denied += [kp for kp in _called_the_same(part, with_subjects, own_stems) if kp not in denied]
    if kinds:
        denied += [kp for kp in part.key_points if kp not in denied and any(
            lang.denies_existence(lang.compile_phrasing(p), c, own_stems)
            for p in kp.names for s in with_subjects for c in s)]
    confusions: list[Confusion] = []
    refuted: list[Confusion] = []
    for confusion in part.confusions:
        phrasings = [lang.compile_phrasing(m) for m in confusion.match]
        clauses = [c for s in sentences for c in lang.with_consequences(s) if not c.asked]
        if any(lang.asserts_nearby(p, c) and not lang.condemns(c, p) for p in phrasings for c in clauses):
            confusions.append(confusion)
        elif any(lang.mentions_nearby(p, c) for p in phrasings for c in clauses):
            refuted.append(confusion)

    whole_copy = False
    if src is not None:
        tokens = lang.words(answer)
        if len(tokens) >= COPY_MIN_WORDS:
            runs = lang.shingles(tokens)
            whole_copy = bool(runs) and len(runs & src.shingles) / len(runs) >= COPY_RATIO
        content = _content(tokens, src.own)
        if _ordered_copy(content, src.all_pairs, WHOLE_COPY_MIN_PAIRS, WHOLE_COPY_SHARE):
            whole_copy = True
        # What this session showed moments ago: half of its word pairs, in order, is a copy.
        if _ordered_copy(content, (p for _, p in src.shown_pairs), SHOWN_COPY_MIN_PAIRS, SHOWN_COPY_SHARE):
            whole_copy = True
        # Everything the answer says came from the screen: an echo, not an answer.
        if copied_any and not any(_content(c.words, src.own) for s in own_clauses for c in s):
            whole_copy = True
    off_topic = _off_topic(part, answer, own_stems)
    return Judgement(covered, confusions, _listed(answer, len(covered)), whole_copy, named, refuted, denied, off_topic)


def _vocabulary(part: Part) -> frozenset[str]:
    """Every content stem the part uses anywhere, its phrasing syntax undone."""
    def read() -> frozenset[str]:
        texts = [part.question, part.reference, part.worked_example, *part.cues, *part.hints, *part.guided]
        for kp in part.key_points:
            texts += [kp.point, kp.nudge, *kp.accept, *kp.names]
        for confusion in part.confusions:
            texts += [confusion.nudge, *confusion.match]
        return frozenset(
            lang.stem(w) for text in texts for w in lang.words(text.replace("|", " ")) if w not in lang.FUNCTION_WORDS
        )

    return _kept_for(part, "vocabulary", read)


def _off_topic(part: Part, answer: str, own_stems: frozenset[str]) -> bool:
    """Most of the answer's content words are words this part never uses (the concept's
    own names count as its words)."""
    content = [lang.stem(w) for w in lang.words(answer) if w not in lang.FUNCTION_WORDS]
    if len(content) < OFF_TOPIC_MIN_WORDS:
        return False
    vocabulary = _vocabulary(part)
    return sum(s in vocabulary or s in own_stems for s in content) / len(content) < OFF_TOPIC_SHARE


def _denied(part: Part, kp: KeyPoint, phrasing: lang.Phrasing, sentence: list[lang.Clause], kinds: bool) -> bool:
    agreeing = _agreeing(kp)
    if not lang.denies(phrasing, sentence, agreeing):
        return False
    if not kinds:
        return True
    # A clause about another kind says what that kind lacks ('blind: the page shows no data',
    # 'the blind type, where the page never shows data'): no denial of the kind that has it.
    for n, clause in enumerate(sentence):
        if not lang.denies(phrasing, sentence[n : n + 2], agreeing) or lang.denies(phrasing, sentence[n + 1 : n + 2], agreeing):
            continue
        about = [sentence[n - 1], clause] if n and clause.separator == ":" else [clause]
        if not any(other is not kp and _asserted([*other.accept, *other.names], [about]) for other in part.key_points):
            return True
    return False


def _called_the_same(part: Part, sentences: list[list[lang.Clause]], own_stems: frozenset[str]) -> list[KeyPoint]:
    """The neighbours or kinds a sentence calls the same as the concept or as each other
    ('threads and async tasks work exactly the same way'): each denies the point that
    tells them apart."""
    out: list[KeyPoint] = []
    if not any(kp.names for kp in part.key_points):
        return out
    for sentence in sentences:
        if not lang.says_same(sentence):
            continue
        # The part's author called this mix-up a side point: it caps, it does not deny.
        if any(lang.asserts_nearby(lang.compile_phrasing(m), c)
               for confusion in part.confusions if not confusion.core for m in confusion.match for c in sentence):
            continue
        named = [kp for kp in part.key_points
                 if any(lang.mentions(lang.compile_phrasing(p), c) for p in kp.names for c in sentence)]
        pair = any(w in lang.PAIR_WORDS for c in sentence for w in c.words)
        if named and (pair or len(named) > 1 or any(st in own_stems for c in sentence for st in c.stems)):
            out += named
    return out


def _agreeing(kp: KeyPoint) -> frozenset[str]:
    """What the key idea itself denies ('CORS is not a CSRF defence'): an answer that
    says 'not' before those words agrees with it."""
    return lang.denied_in(kp.point)


def _asserted(phrasings: list[str], sentences: list[list[lang.Clause]]) -> bool:
    return any(lang.asserts(lang.compile_phrasing(p), clauses) for p in phrasings for clauses in sentences if clauses)


def _listed(answer: str, covered: int) -> bool:
    """A bare list of terms, however long the terms, or a run of keywords."""
    text = lang.normalise(answer)
    items = [i.strip(" .:-*()") for i in _LIST_SPLIT.split(text) if i and i.strip(" .:-*()")]
    if len(items) >= LIST_MIN_ITEMS:
        bare = [i for i in items if _bare(i)]
        long_items = [i for i in items if len(i.split()) > LIST_LONG_ITEM]
        if len(bare) / len(items) >= LIST_BARE_SHARE and not long_items:
            return True
    tokens = [t.strip(".,:;!?()") for t in text.split()]
    if len(tokens) >= STUFFING_MIN_WORDS:
        # A run of keywords has no little words at all ('jwt header payload signature'); terse
        # prose has some ('the browser blocks requests unless the headers allow it'), and a
        # negation structures it too ('user input reaches innerHTML without escaping').
        little = sum(t in lang.FUNCTION_WORDS or t in lang.NEGATIONS for t in tokens)
        has_verb = any(w in lang.CLAUSE_VERBS for w in lang.words(text))
        return little == 0 or (len(tokens) >= 8 and little / len(tokens) < STUFFING_RATIO and not has_verb)
    return covered >= 2  # two ideas in one or two words is a list, not an explanation


def _bare(item: str) -> bool:
    tokens = item.split()
    return len(tokens) <= LIST_ITEM_MAX_WORDS and not any(t.strip(".,:;!?()") in _EXPLAINING for t in tokens)


def _label(kp: KeyPoint) -> str:
    return kp.id.replace("_", " ")


def evaluate(
    concept: Concept, key: PartKey, level: int, answer: str, shown: Shown | None = None
) -> Evaluation:
    part = concept.part(key)
    text = answer.strip()
    first = next(iter(part.required), part.key_points[0])
    if not text or _DONT_KNOW.match(lang.normalise(text).strip(" .!")):
        return Evaluation(verdict="missing", feedback=f"Nothing to judge yet. A place to start: {first.nudge}", covered=[])
    own = [concept.id, concept.name, concept.full_name or "", *concept.aliases]
    j = analyse(part, text, shown=shown or Shown(), own=own, kinds=key == "subordinate")
    verdict = verdict_for(part, j)
    need = part.needed_for_solid
    n = len(j.covered)
    missing = [kp for kp in part.key_points if kp not in j.covered]
    required_missing = [kp for kp in part.required if kp not in j.covered]
    credited = f" Credited: {', '.join(_label(kp) for kp in j.covered)}." if j.covered else ""

    if j.listed:
        feedback = (
            "That reads like a list of terms. Say in a sentence or two what each one means and how they fit together."
        )
    elif j.copied:
        feedback = f"That repeats what was shown to you, so it cannot count yet. In your own words: {first.nudge}"
    elif j.denied:
        feedback = f"One statement here says the opposite of a key idea, so this cannot count yet. {j.denied[0].nudge}"
    elif j.off_topic:
        feedback = f"This seems to be about something other than {concept.name}. Ask yourself: {first.nudge}"
    elif j.core_confusions:
        feedback = f"One statement here is a common misconception, so this cannot count yet. {j.core_confusions[0].nudge}"
    elif verdict == "missing" and j.named:
        feedback = f"Naming it is a start, but say what the difference is. {j.named[0].nudge}"
    elif verdict == "missing":
        feedback = f"This does not reach the key ideas yet. Ask yourself: {first.nudge}"
    elif j.confusions:
        feedback = f"Careful, one statement here is a common mix-up.{credited} {j.confusions[0].nudge}"
    elif verdict == "partial" and required_missing:
        feedback = f"On the right track, but one idea a solid answer must have is not there yet.{credited} {required_missing[0].nudge}"
    elif verdict == "partial":
        feedback = f"On the right track: {n} of the {need} ideas a solid answer needs here.{credited} {missing[0].nudge}"
    elif missing:
        feedback = f"Solid: this has the {need} ideas this part needs.{credited} To go further: {missing[0].nudge}"
    else:
        feedback = f"Solid: every idea of this part, in your own words.{credited}"
    return Evaluation(verdict=verdict, feedback=feedback, covered=[kp.id for kp in j.covered])
