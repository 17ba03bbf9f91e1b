"""Just enough English for rubric matching: normalising, word stems, clauses,
and the phrasing syntax of concept files ('word word|synonym hyphen-word')."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache

from lumente_cli.concepts.schema import ORDER_MARK

_CONTRACTIONS = [
    (re.compile(r"\bcan['’]t\b"), "can not"),
    (re.compile(r"\bwon['’]t\b"), "will not"),
    (re.compile(r"\bshan['’]t\b"), "shall not"),
    (re.compile(r"n['’]t\b"), " not"),
    (re.compile(r"['’](re|ve|ll|d|m)\b"), ""),
    # 'it's' is 'it is'; any other 's is a possessive ("the server's key").
    (re.compile(r"\b(it|that|there|what|here|this)['’]s\b"), r"\1 is"),
    (re.compile(r"['’]s\b"), ""),
    # Typed without the apostrophe, as students in a hurry do: "doesnt", "isnt", "cant".
    (re.compile(r"\bcant\b"), "can not"),
    (re.compile(r"\bwont\b"), "will not"),
    (re.compile(r"\b(do|does|did|is|are|was|were|has|have|had|could|should|would|must|need)nt\b"), r"\1 not"),
    # Shorthand: 'w/o the schema' is 'without the schema', 'w/ a token' is 'with a token'.
    (re.compile(r"\bw/o\b"), "without"),
    (re.compile(r"\bw/(?=\s|$)"), "with"),
    # Notes-style equations: 'await = give up control', '429 ≠ 403'. Not 'a==b' or 'x=1' in code.
    (re.compile(r"\s≠\s?|\s?≠\s"), " is not "),
    (re.compile(r"(?<![=!<>])\s=\s(?![=>])"), " is "),
]
# A full stop after these abbreviations does not end a sentence ("hashing vs. encryption").
_ABBREVIATIONS = re.compile(r"\b(e\.g|i\.e|vs|cf)\.")
_WORD = re.compile(r"[a-z0-9+#]+")
_SENTENCE_SPLIT = re.compile(r"[.!?;\n]+(?:\s|$)|[!?;\n]+")
_SENTENCE_ENDS = re.compile(r"([.!?;\n]+(?:\s|$)|[!?;\n]+)")
# 'a while loop' is a loop, not a second clause; 'while' splits otherwise. 'Instead of Y'
# stays in its clause, where 'instead' denies Y ('set it to 100 instead of adding 10');
# 'instead' on its own turns to a new claim.
# An en dash between words joins them ('Bachmann–Landau', '2–3'); with a space it splits.
_CLAUSE_SPLIT = re.compile(
    r",|:|\(|\)|—|\s–|–\s|\s-\s|\b(?:but|whereas|although|though|however|unlike|vs|versus|so|because|bc|cuz|coz|since"
    r"|therefore|thus|hence|which|otherwise|then|yet|whereby)\b"
    r"|(?<!\ba )(?<!\bthe )(?<!\bany )(?<!\bone )\bwhile\b(?!\s+(?:loop|loops|true|statement|block)\b)"
    r"|\binstead\b(?!\s+of\b)"
)
_AND = re.compile(r"\band\b")
# A finite verb on both sides of "and" marks two clauses ("hashing is one way and
# encryption is reversible"); without one it joins words ("hashing and encryption are").
CLAUSE_VERBS = frozenset(
    "is are was were can cannot could does do did will would has have had should must may might means mean"
    # typed without the apostrophe, which is how a hurried 'it's' usually arrives
    " its theres thats whats".split()
)

NEGATIONS = frozenset(
    {"not", "no", "never", "neither", "nor", "without", "unlike", "nothing", "none", "instead", "rather", "cannot",
     "impossible", "infeasible", "unable", "ignore", "ignores", "ignoring", "ignored", "lack", "lacks", "lacking"}
)
FUNCTION_WORDS = frozenset(
    """a an the and or but so because if then than as of to in on at by for from with about into onto
    over under between through is are was were be been being am it its this that these those there here
    which who whom whose what when where why how not no can could will would shall should may might must
    do does did done has have had having i you we they he she them us our your their my me his her
    also only just very more most less least same other another each every any some all both either
    such one own up out via per like lets let get gets make makes made use uses used mean means""".split()
)

# No "-est": it cut "request" to "requ" and "digest" to "dig", while "requests" kept
# its stem, so the singular and the plural no longer matched.
_SUFFIXES = (
    "izations", "isations", "ization", "isation", "ations", "ation", "ings", "ing", "ments", "ment",
    "ness", "ions", "ion", "ies", "ied", "ers", "er", "ed", "es", "ly", "s",
)
# Words whose final 's' is no plural: 'https' is not many 'http's, and a claim about plain
# HTTP must not be read in a sentence about HTTPS.
_NOT_PLURALS = frozenset({"https"})
# A noun made from a verb in -ate/-ize/-ise keeps the verb's stem, so that "migration",
# "migrate" and "migrating" meet (and "notation" is no longer "not").
_NOUN_OF_VERB = {"ations": "at", "ation": "at", "izations": "iz", "ization": "iz", "isations": "is", "isation": "is"}
# These need a longer stem, or "order"/"ordered" and "apply"/"applies" part ways, and
# "comment" would meet "come".
_LONG_STEM_SUFFIXES = frozenset({"ers", "er", "ly", "ments", "ment"})
# After these, a stem ending in "-er" is cut again, so that "tamper", "tampered" and
# "tampering" (and "filter", "answer", "register"...) all meet.
_VERB_SUFFIXES = frozenset({"ings", "ing", "ed", "es", "s"})


def normalise(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).lower()
    for pattern, replacement in _CONTRACTIONS:
        folded = pattern.sub(replacement, folded)
    return folded


def words(text: str) -> list[str]:
    return list(_words(text))


@lru_cache(maxsize=8192)  # the texts a part shows are read again for every answer to it
def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(normalise(text)))


# Words students use for the same idea, folded to the first of each group on both
# sides, so a rubric phrasing need not list every everyday synonym.
_SYNONYM_GROUPS = (
    "change modify alter edit mutate",
    "store save persist remember",
    "check verify validate confirm",
    "fast quick rapid speedy",
    "small tiny little",
    "same identical",
    "many multiple several numerous lots",
    "allow permit",
    "block deny refuse reject disallow",
    "copy duplicate clone",
    "pause suspend",
    "stop halt terminate",
    "fetch retrieve obtain",
    "run execute",
    "show display",
    "website site webpage",
    "database db",
    "app application",
    "attacker hacker adversary intruder",
    "password passwd",
    "asynchronous async",
    "synchronous sync",
    "cryptography crypto",
    "decrypt decipher",
    "encrypt encipher",
    "configuration config",
    "environment env",
    "information info",
    "function func",
    "response reply",
    "parameter param",
    "argument arg",
    "message msg",
    "people ppl",
    "through thru",
    "including incl",
)


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """A light suffix stripper (plurals, -ing, -ed, -ation, -ly...), then everyday
    synonyms folded together. Same rules both sides."""
    base = _stem(word)
    return _SYNONYMS.get(base, base)


def _stem(word: str) -> str:
    w = word.lower()
    if len(w) <= 3 or not w.isalpha() or w in _NOT_PLURALS:
        return w
    for suffix in _SUFFIXES:
        if suffix == "s" and w.endswith("ss"):
            break  # "class", "access", "process": not a plural
        minimum = 4 if suffix in _LONG_STEM_SUFFIXES else 3
        if w.endswith(suffix) and len(w) - len(suffix) >= minimum:
            w = w[: -len(suffix)]
            if suffix in ("ies", "ied"):
                w += "y"
            elif suffix in _NOUN_OF_VERB:
                w += _NOUN_OF_VERB[suffix]  # "migration" -> "migrat", as "migrate" and "migrating"
            elif suffix in _VERB_SUFFIXES and w.endswith("er") and len(w) - 2 >= 4:
                w = w[:-2]  # "tampered" -> "tamper" -> "tamp", as "tamper" itself
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]
    if len(w) > 3 and w.endswith("y"):
        w = w[:-1] + "i"  # "query"/"queries", "cookie"/"cookies" meet at "queri", "cooki"
    return w


_SYNONYMS: dict[str, str] = {
    _stem(w): _stem(group.split()[0]) for group in _SYNONYM_GROUPS for w in group.split()[1:]
}


def stems(text: str) -> list[str]:
    return [stem(w) for w in words(text)]


# A line break inside a sentence is wrapping, not an end: it ends one only after
# closing punctuation or before a bullet or a numbered item.
_WRAPPED = re.compile(r"(?<![.!?:;\n])[ \t]*\n[ \t]*(?![-*•]|\d+[.)]|\n)")


# Parentheses that hold notation ('O(1)', 'O(n log n)', 'f(x)') are read in place; any
# other parenthesis is an aside, read as a sentence of its own, so that 'safe methods
# (GET, HEAD) must not change state' keeps its subject and its verb together.
_NOTATION = re.compile(r"\(((?:[a-z]{1,2}|\d[\w^*+/. -]{0,10}|[a-z]\s*\^\s*\d|log n|n log n|[a-z]\s*[*+/-]\s*\w{1,3}))\)")
_ASIDE = re.compile(r"\(([^()]*)\)")


def _mark_aside(m: re.Match[str]) -> str:
    """Mark an aside to be moved to the end of its sentence; an aside that is a whole
    sentence ('(This is X.)') ends the sentence it stands in."""
    content = m.group(1).strip()
    whole = content.endswith((".", "!", "?"))
    content = re.sub(r"[.;!?]", " ", content)
    if _inside_a_denial(content, m.string[: m.start()], m.string[m.end() :]):
        content = "not " + content
    return " \x00" + content + "\x01" + (". " if whole else " ")


def _inside_a_denial(aside: str, before: str, after: str) -> bool:
    """An aside in the middle of a denied noun phrase names part of what is denied: 'it
    does not belong to the asymptotic (Bachmann–Landau) notations'. Not an aside with a
    verb or a denial of its own (it has its own polarity), and not one at the end of its
    clause, which names what the whole statement says: 'a stolen key does not unlock
    recorded traffic (forward secrecy)'."""
    if _has_verb(aside) or any(w in NEGATIONS for w in words(aside)):
        return False
    return bool(re.match(r"\s*[\w'\"]", after)) and _denied_so_far(before)


def _denied_so_far(before: str) -> bool:
    """The clause that the text `before` ends in is denied where it ends: its verb is
    negated ('is not', 'does not belong to') and nothing opens a clause of its own
    after that ('stuff it never saw in training' denies the seeing, not the stuff)."""
    start = max((x.end() for x in _SENTENCE_ENDS.finditer(before)), default=0)
    start = max([start, *(x.end() for x in _CLAUSE_SPLIT.finditer(before, start))])
    ws = words(before[start:])
    at = max((i for i, w in enumerate(ws) if w in DENYING), default=None)
    return at is not None and at > 0 and ws[at - 1] in CLAUSE_VERBS and not any(w in _EMBEDDED for w in ws[at:])


def sentences(text: str) -> list[str]:
    folded = _ABBREVIATIONS.sub(lambda m: m.group(1).replace(".", ""), normalise(text))
    folded = _NOTATION.sub(lambda m: " " + m.group(1) + " ", _WRAPPED.sub(" ", folded))
    # An aside ends up at the end of its own sentence: still in the sentence, as a clause of its own.
    folded = _ASIDE.sub(_mark_aside, folded)
    out = []
    pieces = _SENTENCE_ENDS.split(folded)
    for sentence, end in zip(pieces[::2], [*pieces[1::2], ""], strict=True):
        asides = re.findall(r"\x00([^\x00\x01]*)\x01", sentence)
        main = re.sub(r"\x00[^\x00\x01]*\x01", " ", sentence).replace("\x00", " ").replace("\x01", " ")
        text = " — ".join([main, *asides])
        if text.strip(" —"):
            out.append(text + ("?" if "?" in end else ""))
    return out


def clauses(sentence: str) -> list[str]:
    return [text for _, text in clause_parts(sentence)]


def clause_parts(sentence: str) -> list[tuple[str, str]]:
    """The clauses of a sentence, each with the separator that opened it ('' for the
    first, ',' or a connective such as 'but')."""
    result: list[tuple[str, str]] = []
    pos = 0
    separator = ""
    for m in _CLAUSE_SPLIT.finditer(sentence):
        result.extend(_with_sep(separator, sentence[pos : m.start()]))
        separator = m.group(0).strip()
        pos = m.end()
    result.extend(_with_sep(separator, sentence[pos:]))
    return _rejoin_denied_lists(result)


# A denial that has reached into a noun phrase and stops at a comma after its first word:
# 'not a fixed,' 'does not use the opt-in,' 'no fixed,'. The comma is between the noun's
# adjectives. After two words ('not the only option,') the noun phrase may be complete.
_DENIED_OPEN_PHRASE = re.compile(
    r"\b(?:not|never)\b(?:\s+[\w-]+){0,2}?\s+(?:a|an|the)\s+[\w-]+\s*$|\bno\s+[\w-]+\s*$"
)
_LIST_CONTINUATION_WORDS = 10


def _rejoin_denied_lists(parts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """'It does not have a fixed, model-specific size': the comma between adjectives is
    not a clause break, and the denial reaches the whole noun phrase. Only where what
    follows is a short run with no verb and no word of its own that turns or corrects
    ('not a hash, a MAC', 'not encryption, just encoding' stay split)."""
    out: list[tuple[str, str]] = []
    in_list = False  # the last part ends in a denied list of adjectives ('not an exact, pinned,')
    for separator, text in parts:
        ws = words(text)
        if (out and separator == "," and (in_list or _DENIED_OPEN_PHRASE.search(out[-1][1]))
                and 0 < len(ws) <= _LIST_CONTINUATION_WORDS and ws[0] not in FUNCTION_WORDS
                and ws[0] not in NEGATIONS and ws[0] not in _SUBJECTS and not _has_verb(text)
                and not _subject_and_verb(ws)):
            out[-1] = (out[-1][0], out[-1][1] + " " + text)
            in_list = len(ws) == 1
            continue
        in_list = False
        out.append((separator, text))
    return out


def _with_sep(separator: str, text: str) -> list[tuple[str, str]]:
    if not text.strip():
        return []
    pieces = _split_and(text)
    return [(separator if i == 0 else "and", piece) for i, piece in enumerate(pieces)]


def _split_and(clause: str) -> list[str]:
    """Split at an 'and' that joins two full clauses, each with its own verb."""
    pieces = _AND.split(clause)
    out = [pieces[0]]
    for piece in pieces[1:]:
        if _has_verb(out[-1]) and _has_verb(piece):
            out.append(piece)
        else:
            out[-1] = out[-1] + " and " + piece
    return [p for p in out if p.strip()]


def _subject_and_verb(ws: list[str] | tuple[str, ...]) -> bool:
    """'xss runs inside the site', 'the same input gives...': a noun (of one or two words, an
    article may come first) and a verb in -s open a clause of their own."""
    k = 1 if ws[:1] and ws[0] in ("a", "an", "the") else 0
    return len(ws) >= k + 3 and ws[k] not in NEGATIONS and ws[k] not in ("and", "or") \
        and any(_third_person(w) for w in ws[k + 1 : k + 3])


def _third_person(w: str) -> bool:
    return len(w) > 3 and w.endswith("s") and not w.endswith("ss") and w not in FUNCTION_WORDS


def _has_verb(text: str) -> bool:
    return any(w in CLAUSE_VERBS for w in words(text))


@lru_cache(maxsize=65536)
def word_matches(term: str, candidate: str) -> bool:
    """A term stem matches an answer stem exactly, as a prefix when it is long enough
    to be specific ('chang' matches 'changed', 'tamper' matches 'tampering'), or with
    one typo when both are long ('seperat' for 'separat')."""
    if candidate == term or (len(term) >= 5 and candidate.startswith(term)):
        return True
    if len(term) < 6 or len(candidate) < 6 or term[0] != candidate[0]:
        return False
    # One typo in the word, or in the part of a longer word the term stands for.
    return _one_edit(term, candidate) or any(_one_edit(term, candidate[:n]) for n in (len(term), len(term) + 1))


def _one_edit(a: str, b: str) -> bool:
    """At most one insertion, deletion, substitution or swap of neighbours apart."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        if a[i + 1 :] == b[i + 1 :]:
            return True
        return i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]
    return a[i:] == b[i + 1 :]


@dataclass(frozen=True)
class Phrasing:
    """All terms must appear; each term lists alternatives; an alternative may need several words."""

    source: str
    terms: tuple[tuple[tuple[str, ...], ...], ...]
    # 'provider > calls > you': the terms in this order, for ideas where who does what to
    # whom is the idea ('the provider calls you' is a webhook, 'you call the provider' is not).
    ordered: bool = False

    def matches(self, stems: Iterable[str]) -> bool:
        """Every term's words are among these stems, asserted or not."""
        bag = _bag(tuple(stems))
        return all(any(all(bag.has(w) for w in alt) for alt in term) for term in self.terms)


@lru_cache(maxsize=16384)
def compile_phrasing(source: str) -> Phrasing:
    terms = []
    for term in source.split():
        alts = [tuple(stem(w) for w in words(alt)) for alt in term.split("|")]
        # A word folded into its synonym ('persist' into 'store') also keeps its own stem, so it
        # still matches longer words it begins ('persistence', 'retrieval').
        alts += [raw for alt in term.split("|") if (raw := tuple(_stem(w) for w in words(alt))) not in alts]
        # "can't" and "can not" reach the reader as 'can not': a phrasing's 'cannot' is that 'not'.
        if ("cannot",) in alts and ("not",) not in alts:
            alts.append(("not",))
        terms.append(tuple(a for a in alts if a))
    return Phrasing(source, tuple(t for t in terms if t), ordered=ORDER_MARK in source.split())


def phrasing_negations(source: str) -> int:
    """How many terms of a phrasing are themselves negations ('idempotent no side-effects': 1)."""
    return sum(_negation_terms(source))


@lru_cache(maxsize=16384)
def _negation_terms(source: str) -> tuple[bool, ...]:
    """For each term of a phrasing, whether it is a negation."""
    return tuple(any(w in NEGATIONS for alt in term.split("|") for w in words(alt))
                 for term in source.split() if term != ORDER_MARK)


def shingles(tokens: list[str], n: int = 4) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


# --- what an answer asserts -------------------------------------------------------------
#
# A key idea counts only where the student asserts it. A word after a negation in its
# clause ('hashing is not one-way'), or before a denied predicate ('a base case is not
# needed'), is denied; a clause that reports a belief in order to reject it ('people
# think X, but...', 'X is a myth') is refuted. Phrasings may carry their own negation
# ('not|never reverse'); such a phrasing allows that many negations in front of its words.

# Idioms with a negation word, rewritten before reading to what they say: most deny
# nothing ('no matter', 'not as strong as'); 'has nothing to do with' denies.
_IDIOMS = (
    (re.compile(r"\bwhether or not\b"), "whether"),
    (re.compile(r"\b(may|might|can|could|does|do) or \1 not\b"), r"\1"),
    (re.compile(r"\bor not\b"), ""),
    (re.compile(r"\bno matter\b"), "regardless"),
    # ...but after a modal 'not just' denies: "you can't just trust the client" does not say
    # "also" ("it doesn't just answer, it also..." and "shouldn't only X, but..." do).
    (re.compile(r"\bnot only\b"), "also"),
    (re.compile(r"(?<!\bcan )(?<!\bcould )(?<!\bshould )(?<!\bmust )(?<!\bwill )(?<!\bwould )\bnot just\b"), "also"),
    (re.compile(r"\bnothing but\b"), "only"),
    (re.compile(r"\b(?:has|have|had) nothing to do with\b"), "is not related to"),
    (re.compile(r"\b(?:has|have|had) no (?:bearing|relation|connection|relevance) (?:on|to|with)\b"), "is not related to"),
    (re.compile(r"\b(?:is|are|was|were) (?:unrelated|irrelevant) (?:to|for)\b"), "is not related to"),
    # 'there is no need for eviction': what follows is said to be unneeded, not only the need.
    (re.compile(r"\bno need (?:for|of|to)\b"), "do not need"),
    (re.compile(r"\b(?:is|are|was|were) far from\b"), "is not"),
    (re.compile(r"\b(?:hardly|barely|scarcely) any\b"), "no"),
    (re.compile(r"\b(?:hardly|barely|scarcely) ever\b"), "never"),
    (re.compile(r"\bno doubt\b"), "surely"),
    # 'a token in place of your password': the password is what the token replaces.
    (re.compile(r"\bin (?:place|lieu) of\b"), "instead of"),
    # A denial of the verb that follows: 'makes no attempt to give...' does not give.
    (re.compile(r"\b(?:makes?|made|making) no (?:attempt|effort) to\b"), "does not"),
    (re.compile(r"\b(?:has|have|had) no way (?:to|of)\b"), "can not"),
    # 'No more "works on my machine"' says a problem is gone; 'no more than' is a bound.
    (re.compile(r"\bno more\b(?!\s+than\b)"), "an end to"),
    # A question word, not a relative clause: 'the model decides which parts to forget'.
    (re.compile(r"\b(decide|decides|choose|chooses|pick|picks|know|knows|check|checks|see|sees|tell|tells|determine"
                r"|determines|show|shows|ask|asks|select|selects|control|controls|find|finds|matter|matters) which\b"),
     r"\1 what"),
    # Quoted words, not a denial of the sentence: "letting it say 'I don't know' reduces them".
    (re.compile(r"\b(say|says|saying|said|admit|admits|admitting|answer|answers|reply|replies)\s+(?:that\s+)?"
                r"[\"'“‘]?\s*(?:i|it|they|we|you)\s+(?:do|does|did)\s+not\s+know\b[\"'”’]?"), r"\1 unsure"),
    # A comparison, not a denial: 'not as strong as a VM' says weaker.
    (re.compile(r"\bnot (?:as|so) (?!a\b|an\b|the\b)(\w+) as\b"), r"less \1 than"),
    (re.compile(r"\bnot (?:as|so) (?!a\b|an\b|the\b)(\w+)\b"), r"less \1"),
)
# After a negation, these make the denial point back at what came before it. Whole words,
# not stems: 'never alters existing tables' says nothing about existence.
_DENIED_PREDICATES = frozenset(
    ("need needs needed require requires required necessary true possible exist exists involved correct right how"
     " what real accurate count counts matter matters apply applies happen happens important essential relevant"
     " point").split()
)
# Of those, the ones that deny a claim and not a manner ('say what you want, not how to find it').
_DENIED_CLAIMS = _DENIED_PREDICATES - {"how", "what"}
_NOT = frozenset({"not", "never"})
_TURNS = frozenset({"but", "however", "yet", "instead", "although", "though"})
_TURN_STARTS = re.compile(r"^\s*(?:actually|in fact|in reality|really|the truth is|truth is|in truth)\b")
_BELIEF = re.compile(
    r"\b(?:i used to|i once|i thought|i first thought|used to be taught|we used to)\b"
    r"|\b(?:people|ppl|students|beginners|folks|devs|developers|others|everyone|newcomers|juniors"
    r"|you might|you may|one might|one may|it is tempting to|lots of people|a lot of people)\b"
    r"(?:\s+[a-z]+){0,3}?\s+(?:think|thinks|thought|believe|believes|assume|assumes|say|says|claim|claims"
    r"|imagine|expect|confuse|confuses|confusing|confused|mix up|mixing up|mixes up|mixed up|treat|call|get wrong)\b"
    # 'Many think' reports a belief; 'no matter how many times you call it' does not.
    r"|\b(?:many|most|some)\s+(?:think|believe|assume|say|claim|imagine|expect|confuse|mix up|get wrong)\b"
    r"|\bcontrary to\b|\bnot true that\b|\bdo not (?:think|assume|believe)\b"
    r"|\b(?:is|it) (?:wrong|false|incorrect|untrue|not true|a mistake) to (?:say|think|believe|assume|claim)\b"
    r"|\b(?:it|this|that) is (?:also )?(?:wrong|false|incorrect|untrue|not true) that\b"
    r"|\b(?:common|typical|classic|frequent|big|popular) (?:mistake|error|mix up|confusion|misunderstanding|trap)\b"
    r"|\bmistake (?:is|was) (?:thinking|to think|believing|assuming|that)\b|\bmistake to (?:think|believe|assume|say)\b"
    # 'a common belief is that...', 'another confusion is thinking...', 'comes from thinking...'
    r"|\b(?:belief|assumption|confusion|misreading|misunderstanding) (?:is|was) (?:that|thinking|believing|assuming)\b"
    r"|\b(?:comes|come|came|stems|stem) from (?:thinking|believing|assuming)\b"
)
_MYTH = re.compile(r"\b(?:myth|misconception|fallacy|misbelief|misunderstanding)\b")
_CLAIM_IS_WRONG = re.compile(
    r"^\s*(?:saying|thinking|believing|claiming|assuming|the idea that|the claim that|the belief that|the notion that)\b"
    r".*\b(?:is|are)\s+(?:wrong|false|incorrect|untrue|not true|a mistake)\b"
)
_MARKER_FILLER = frozenset({"a", "an", "the", "is", "are", "that", "common", "popular", "big", "classic", "one", "here"})


@dataclass(frozen=True)
class Clause:
    separator: str
    words: tuple[str, ...]
    stems: tuple[str, ...]
    negations_before: tuple[int, ...]  # per word: negation words earlier in the clause
    denied_after: tuple[bool, ...]  # per word: a denied predicate follows ('... is not needed')
    refuted: bool = False
    conditional: bool = False  # 'if it does not match...': a hypothesis, not a denial
    asked: bool = False  # in a question: 'is it encrypted?' claims nothing wrong
    # Where the consequence begins in a clause joined to it ('put is idempotent, so sending
    # twice is not a problem'); 0 for any other clause.
    consequence_at: int = 0


_CONDITIONAL = frozenset({"if", "unless", "when", "whenever", "otherwise", "until"})
# Negations that deny a statement, as opposed to 'without', 'instead', 'impossible'...
DENYING = frozenset({"not", "never", "no", "neither", "nor"})
# A denial stands right before what it denies: 'not one-way', "doesn't need a base case".
DENIAL_REACH = 4
SHORT_DENIAL_REACH = 2
SYNONYM_ALTERNATIVES = 3


def read(text: str) -> list[list[Clause]]:
    """The answer as sentences of clauses, each word marked with what denies it. A sentence
    that opens with a bare denial ('It doesn't:', 'Not true.') refutes the one before it
    ('...thinking CORS protects the server. It doesn't: curl ignores it')."""
    out = [_read_sentence(s) for s in sentences(text)]
    for k in range(1, len(out)):
        if out[k] and out[k][0].words in _BARE_DENIALS:
            out[k - 1] = [replace(c, refuted=True) for c in out[k - 1]]
        # '...the model does not decide when to search; your code does': the next sentence
        # hands the denied predicate on, as a clause after a comma would.
        elif len(out[k]) == 1 and _handed_on(out[k]) and out[k - 1]:
            out[k - 1] = [*out[k - 1], replace(out[k][0], separator=",")]
    return out


_BARE_DENIALS = frozenset(
    tuple(words(t)) for t in (
        "it does not", "it is not", "they do not", "they are not", "it can not", "it will not", "that is wrong",
        "that is not true", "that is false", "not true", "not really", "nope", "wrong", "false", "it does not work",
        "that is a myth", "it is a myth", "it is wrong", "they are wrong", "not so", "not at all")
)


def _read_sentence(sentence: str) -> list[Clause]:
    asked = sentence.endswith("?")
    sentence = sentence.rstrip("?")
    for pattern, replacement in _IDIOMS:
        sentence = pattern.sub(replacement, sentence)
    parts = clause_parts(sentence)
    refuted = _refuted(sentence, parts)
    return [_clause(sep, text, r, asked, purpose=_purpose(parts, n)) for n, ((sep, text), r)
            in enumerate(zip(parts, refuted, strict=True))]


def _purpose(parts: list[tuple[str, str]], n: int) -> bool:
    """'plus jitter so everyone isn't retrying at once', 'updates with an ETag so that a retry
    can't clobber a newer version': what a mechanism is for. What it prevents is no denial of
    anything; 'so' after a whole clause ('it is one-way, so it can't be reversed') is a
    consequence, which asserts."""
    separator, text = parts[n]
    if separator != "so":
        return False
    if words(text)[:1] == ["that"]:
        return True
    # An example in between ('..., like BitTorrent, so there is no server') is an aside:
    # the clause before it is what 'so' follows.
    k = n - 1
    while k > 0 and words(parts[k][1])[:1] in (["like"], ["such"], ["eg"], ["including"]):
        k -= 1
    # ('conditional updates with an etag, so...' reads as a noun and its verb: a consequence,
    # the safer reading where a wrong claim might follow.)
    return k >= 0 and not _has_verb(parts[k][1]) and not _subject_and_verb(words(parts[k][1]))


# These deny the few words of their own phrase ('without a base case', 'no lookup'),
# not the rest of the clause ('without a base case Python raises RecursionError').
_SHORT_SCOPE = frozenset({"without", "no", "instead", "rather", "none", "nothing", "lack", "lacks", "lacking"})
# Words that open a clause inside a clause: a denial before them does not reach past them.
# (Words that split clauses, such as 'because', 'which' and 'while', never reach here.)
_EMBEDDED = frozenset(
    {"that", "who", "whom", "whose", "how", "what", "where", "why", "whether", "until", "till", "cause",
     "unless", "if", "when", "whenever"}
)
_SUBJECTS = frozenset({"i", "you", "u", "we", "they", "he", "she", "it"})
SHORT_SCOPE_WORDS = 3


def _clause(separator: str, text: str, refuted: bool, asked: bool = False, *, purpose: bool = False) -> Clause:
    ws = tuple(words(text))
    reach = [
        (j, j + 1 + SHORT_SCOPE_WORDS if w in _SHORT_SCOPE and not _denies_the_subject(ws, j) else _predicate_end(ws, j))
        for j, w in enumerate(ws)
        if w in NEGATIONS and not _names_an_activity(ws, j)
    ]
    before = [sum(j < i < end for j, end in reach) for i in range(len(ws))]
    denied = _before_a_denied_predicate(ws, _DENIED_PREDICATES)
    # 'Without a base case, it never stops' is a hypothesis too.
    # A hypothesis ('if it does not match...') still reads its negations, so 'if you edit it the
    # server won't accept it' asserts no acceptance; it only never counts as denying a key idea.
    conditional = (separator in _CONDITIONAL or any(w in _CONDITIONAL for w in ws[:4]) or ws[:1] == ("without",)
                   or purpose)
    return Clause(separator, ws, tuple(stem(w) for w in ws), tuple(before), denied, refuted, conditional,
                  asked)


_AUXILIARY_BEFORE_ING = frozenset({"is", "are", "was", "were", "be", "been", "am", "its"})


def _names_an_activity(ws: tuple[str, ...], j: int) -> bool:
    """'fix it by not sharing state', 'or just not sharing mutable state': 'not' before a
    verb in -ing with no 'is' before it names a thing to do, and denies nothing
    ('it is not sharing state' still does)."""
    if ws[j] != "not" or j + 1 >= len(ws) or not ws[j + 1].endswith("ing") or len(ws[j + 1]) < 5:
        return False
    before = [w for w in ws[max(0, j - 2) : j] if w not in ("just", "simply", "also", "even")]
    return not before or before[-1] not in _AUXILIARY_BEFORE_ING | CLAUSE_VERBS


@lru_cache(maxsize=4096)  # asked once per phrasing of every key idea, for the same clause
def _before_a_denied_predicate(ws: tuple[str, ...], predicates: frozenset[str],
                               denials: frozenset[str] = DENYING) -> tuple[bool, ...]:
    return tuple(
        any(
            ws[j] in denials and any(x in predicates for x in ws[j + 1 : j + 4] if x not in _HEDGES)
            # 'names in code that do not exist': the denied predicate is the relative clause's own.
            and not any(x in _EMBEDDED for x in ws[i + 1 : j])
            for j in range(i + 1, len(ws))
        )
        for i in range(len(ws))
    )


_SUBJECT_OPENERS = frozenset({"and", "but", "so", "because", "since", "where", "there"})


def _denies_the_subject(ws: tuple[str, ...], j: int) -> bool:
    """'No provider signs with a key pair', 'no user is logged in': a 'no' that opens the
    clause's subject denies the whole clause, not only its noun ('no key, and anyone...')."""
    opens = j == 0 or ws[j - 1] in _SUBJECT_OPENERS or ws[max(0, j - 2) : j] in (("there", "is"), ("there", "are"))
    if ws[j] != "no" or not opens:
        return False
    return any(x in CLAUSE_VERBS or (len(x) > 3 and x.endswith("s") and not x.endswith("ss"))
               for x in ws[j + 2 : j + 4]) and ws[j + 1 : j + 2] != ("more",)


def _refuted(sentence: str, parts: list[tuple[str, str]]) -> list[bool]:
    n = len(parts)
    flags = [False] * n
    if _CLAIM_IS_WRONG.search(sentence):
        return _until_turn(parts, 0, flags)
    for m, (_, text) in enumerate(parts):
        belief = _BELIEF.search(text)
        myth = _MYTH.search(text)
        if belief:
            _until_turn(parts, m, flags)
        elif myth:
            before = [w for w in words(text[: myth.start()]) if w not in _MARKER_FILLER]
            after = [w for w in words(text[myth.end() :]) if w not in _MARKER_FILLER]
            if before and not after:
                for i in range(m + 1):  # 'X is a myth': what came before is refuted
                    flags[i] = True
            else:
                _until_turn(parts, m, flags)
    return flags


def _until_turn(parts: list[tuple[str, str]], start: int, flags: list[bool]) -> list[bool]:
    for i in range(start, len(parts)):
        separator, text = parts[i]
        if i > start and (separator in _TURNS or _TURN_STARTS.match(text)):
            break
        flags[i] = True
    return flags


def usable(clause: Clause, i: int, allowed_negations: int) -> bool:
    """Is word i asserted, for a phrasing that itself carries this many negations?"""
    if clause.refuted:
        return False
    if clause.words[i] in NEGATIONS:
        return True
    if clause.negations_before[i] > allowed_negations:
        return False
    return not (allowed_negations == 0 and clause.denied_after[i])


def phrasing_negations_of(phrasing: Phrasing) -> int:
    """Terms that are negations, read from the phrasing's words, not their stems
    ('notation' stems to 'not' and is no negation)."""
    return phrasing_negations(phrasing.source)


def asserts(phrasing: Phrasing, clauses: list[Clause]) -> bool:
    """Every term asserted somewhere in these clauses (one sentence, for key points).
    A phrasing that carries a negation must find it in the clause it negates."""
    if not present(phrasing, tuple(s for c in clauses for s in c.stems)):
        return False
    return _asserts(phrasing, clauses)


class _Bag:
    """The stems of some clauses, asked many times whether a term word matches one of them
    (the same test as `word_matches`, answered from sets instead of by pairs)."""

    def __init__(self, stems: tuple[str, ...]) -> None:
        self.exact = frozenset(stems)
        self.prefixes = frozenset(s[:n] for s in self.exact for n in range(5, len(s)))
        self.long = tuple(s for s in self.exact if len(s) >= 6)
        self.known: dict[str, bool] = {}

    def has(self, w: str) -> bool:
        found = self.known.get(w)
        if found is None:
            found = w in self.exact or (len(w) >= 5 and w in self.prefixes) or (
                len(w) >= 6 and any(s[0] == w[0] and word_matches(w, s) for s in self.long))
            self.known[w] = found
        return found


@lru_cache(maxsize=4096)
def _bag(stems: tuple[str, ...]) -> _Bag:
    return _Bag(stems)


@lru_cache(maxsize=131072)
def _present_in(source: str, stems: tuple[str, ...]) -> bool:
    return compile_phrasing(source).matches(stems)


def forget_answers() -> None:
    """Drop what was cached about texts already read, keeping the compiled rubric: for a
    benchmark that must see every answer as if for the first time."""
    for cached in (_words, _bag, _present_in, _before_a_denied_predicate):
        cached.cache_clear()


def present(phrasing: Phrasing, stems: tuple[str, ...]) -> bool:
    """Every term's words are among these stems, asserted or not: the cheap test that
    rules out nearly every phrasing before its words are read one by one."""
    return _present_in(phrasing.source, stems)


def _asserts(phrasing: Phrasing, clauses: list[Clause]) -> bool:
    k = phrasing_negations_of(phrasing)
    if k and len(clauses) > 1:
        return any(_asserts(phrasing, [c]) for c in [*clauses, *_with_contrasts(clauses)])
    if phrasing.ordered:
        return _asserts_in_order(phrasing, clauses, k)
    return all(
        any(
            all(
                any(word_matches(w, c.stems[i]) and usable(c, i, k) for c in clauses for i in range(len(c.stems)))
                for w in alt
            )
            for alt in term
        )
        for term in phrasing.terms
    )


def _asserts_in_order(phrasing: Phrasing, clauses: list[Clause], k: int) -> bool:
    """Each term asserted after the one before it, in the order the sentence reads; a term of
    several words is placed where its first word stands, the rest in the same clause."""
    asserted = [[s for j, s in enumerate(c.stems) if usable(c, j, k)] for c in clauses]

    def places(n: int, i: int, alt: tuple[str, ...]) -> bool:
        return usable(clauses[n], i, k) and word_matches(alt[0], clauses[n].stems[i]) and all(
            any(word_matches(w, s) for s in asserted[n]) for w in alt[1:])

    positions = iter([(n, i) for n, c in enumerate(clauses) for i in range(len(c.stems))])
    # One pass over the words: each term takes the first place after the term before it.
    return all(any(any(places(n, i, alt) for alt in term) for n, i in positions) for term in phrasing.terms)


def asserts_nearby(phrasing: Phrasing, clause: Clause) -> bool:
    """Every term asserted within a short run of words of one clause: for short claims
    such as 'REST is a protocol', which words scattered over a long clause do not make."""
    if not present(phrasing, clause.stems):
        return False
    if clause.consequence_at and phrasing_negations_of(phrasing) and not _negation_beside_its_words(phrasing, clause):
        return False
    width = 2 * len(phrasing.terms) + 2
    n = len(clause.stems)
    for start in range(max(1, n - width + 1)):
        if asserts(phrasing, [_span(clause, start, start + width)]):
            return True
    return False


def _negation_beside_its_words(phrasing: Phrasing, c: Clause) -> bool:
    """A phrasing's own negation, across a clause and its consequence, must stand with one of
    the words it negates: 'the GIL makes threads safe, so no locks are needed' meets 'gil safe
    no lock need'; in 'PUT is idempotent, so sending twice is not a problem' the 'not' denies
    nothing of 'put not idempotent'. (A condition and what it leads to, 'if a thread crashes,
    the process is not affected', is one claim: its negation counts wherever it stands.)"""
    negation = _negation_terms(phrasing.source)
    if len(negation) != len(phrasing.terms):  # a term with no words was dropped: no telling which
        return True
    plain = [term for term, negates in zip(phrasing.terms, negation, strict=True) if not negates]
    for lo, hi in ((0, c.consequence_at), (c.consequence_at, len(c.words))):
        if any(w in NEGATIONS for w in c.words[lo:hi]) and any(
                all(any(word_matches(t, st) for st in c.stems[lo:hi]) for t in alt) for term in plain for alt in term):
            return True
    return False


def mentions_nearby(phrasing: Phrasing, clause: Clause) -> bool:
    """The same words, ignoring refutation: the claim is stated, if only to be rejected."""
    if not clause.refuted:
        return asserts_nearby(phrasing, clause)
    return asserts_nearby(phrasing, replace(clause, refuted=False))


def _content_ahead(c: Clause, i: int, *, own_clause_only: bool = True, noun_phrase: bool = False) -> list[str]:
    """The content words a denial at word i reaches: a few for 'not' and 'never', the
    noun phrase for 'no' ('no key and anybody can decode it' denies only the key)."""
    short = c.words[i] in _SHORT_SCOPE
    ahead: list[str] = []
    rest = c.words[i + 1 :]
    for k, (x, s) in enumerate(zip(rest, c.stems[i + 1 :], strict=True)):
        if short and x in ("and", "or"):
            break
        # A clause of its own inside this one ('not need to know how the server is built',
        # 'no data that breaks the rules', ', and you update the docs') has its own polarity;
        # right after the denial it is what is denied ('is not what makes it safe').
        opens_clause = x in _EMBEDDED or (x in ("and", "or") and _starts_predicate(rest[k + 1 :]))
        if own_clause_only and ahead and opens_clause:
            break
        if x not in FUNCTION_WORDS:
            ahead.append(s)
    if noun_phrase:
        return ahead
    return ahead[: SHORT_DENIAL_REACH if short else DENIAL_REACH]


_OBJECT_OPENERS = frozenset({"the", "a", "an", "every", "each", "its", "their", "your", "it", "them", "that", "this"})


def _predicate_end(ws: tuple[str, ...], j: int) -> int:
    """Where a denial at j stops: the clause's end, or an 'and' that starts a predicate of its own."""
    return next((k for k in range(j + 2, len(ws)) if ws[k] in ("and", "or") and _starts_predicate(ws[k + 1 :])), len(ws))


def _starts_predicate(ws: tuple[str, ...]) -> bool:
    """After 'and': a subject of its own ('and you update the docs') or a verb with its
    object ('and checks the token'), so a denial before 'and' does not reach past it."""
    if not ws:
        return False
    return ws[0] in _SUBJECTS or ws[0] in CLAUSE_VERBS or _subject_and_verb(ws) or (
        len(ws) > 1 and len(ws[0]) > 3 and ws[0].endswith("s") and ws[1] in _OBJECT_OPENERS)


@lru_cache(maxsize=4096)
def denied_in(text: str) -> frozenset[str]:
    """The stems a text itself denies ('CORS is not a CSRF defence': csrf, defenc;
    'a function without a name': name; 'nothing runs': run; 'keeps no session': keep, session)."""
    out: set[str] = set()
    for sentence in read(text):
        for c in sentence:
            for i, w in enumerate(c.words):
                if w in DENYING or w in ("without", "nothing"):
                    # A key idea's own denial reaches into its relative clauses ('does not
                    # stand for a user who agreed'): agreement is read generously.
                    out.update(_content_ahead(c, i, own_clause_only=False))
                    # 'the server keeps no session' denies the keeping as well.
                    if w == "no" and i > 0 and c.words[i - 1] not in FUNCTION_WORDS:
                        out.add(c.stems[i - 1])
    return frozenset(out)


def denies(phrasing: Phrasing, clauses: list[Clause], agreeing: frozenset[str] = frozenset()) -> bool:
    """One clause holds every word of the phrasing, and a denial ('not', 'never', 'no')
    stands within a few content words before one of them: the clause says the opposite
    ('hashing is not one-way', 'a recursive function does not need a base case').
    A one-word phrasing is too thin to tell what is denied ('a hash is not for secrecy'),
    unless it is what 'is not a' calls the subject ('it is not an architecture').
    Words the key idea itself denies (`agreeing`) are agreement, not denial."""
    agreeing, terms = _denial_terms(phrasing, agreeing)
    one_word = sum(len(term[0]) for term in phrasing.terms) < 2
    for n, c in enumerate(clauses):
        if c.refuted or c.conditional or _qualified(c, clauses[n + 1 : n + 2]):
            continue
        # A phrasing that carries its own negation ('not|never sent ... exist') is met by
        # negations, never denied by one ('a doc you did not send does not exist for it').
        if phrasing_negations_of(phrasing) or not mentions(phrasing, c) or asserts(phrasing, [c]):
            continue
        if _denial_reaches(c, terms, agreeing, one_word, not phrasing_negations_of(phrasing)):
            return True
        # 'a base case is not needed', 'a new session id at login is not necessary': the
        # words before a denied predicate.
        # ('you say what you want, not how to find it' denies nothing it said.)
        if not one_word and not phrasing_negations_of(phrasing) and any(c.denied_after) and \
                not any(w in DENYING and _denies_what_is_missing(c.words[k + 1 :]) for k, w in enumerate(c.words)):
            # ('parses JSON with no JavaScript involved': 'no' denies its own noun, not the parsing.)
            before = _before_a_denied_predicate(c.words, _DENIED_CLAIMS, _NOT)
            if any(all(any(before[i] and word_matches(t, s) and not _agrees(s, agreeing) for i, s in enumerate(c.stems))
                       for t in alt) for alt in terms):
                return True
    return False


# '...and just echoing back whatever origin comes in is a misconfig': a clause that names a
# practice to condemn it does not recommend it.
_CONDEMNING = frozenset({"misconfig", "misconfigured", "misconfiguration", "mistake", "mistakes", "bug", "bugs",
                         "vulnerability", "vulnerable", "insecure", "unsafe", "dangerous", "risky", "wrong",
                         "antipattern", "flaw", "flawed", "hole", "exploitable"})


def condemns(c: Clause, phrasing: Phrasing) -> bool:
    """The clause calls what it names a mistake ('X is a misconfiguration', 'X is dangerous'),
    and the phrasing is not itself that verdict (a misconception may be 'X is insecure')."""
    for i, w in enumerate(c.words):
        if w not in _CONDEMNING or any(word_matches(t, c.stems[i]) for term in phrasing.terms for alt in term for t in alt):
            continue
        before = c.words[max(0, i - 4) : i]
        if any(x in _COPULAS for x in before) and not any(x in DENYING for x in before):
            return True
    return False


def mentions(phrasing: Phrasing, c: Clause) -> bool:
    """Every term of the phrasing is in the clause, asserted or not."""
    return asserts(phrasing, [Clause(c.separator, c.words, c.stems, (0,) * len(c.words), (False,) * len(c.words))])


# 'Login CSRF is not a real category', "DOM-based XSS isn't a separate kind", "rerankers don't
# exist": a kind said not to be one.
_EXISTENCE = frozenset({"kind", "kinds", "type", "types", "category", "categories", "form", "forms", "variant",
                        "variants", "class", "thing", "things", "real", "possible", "exist", "exists", "separate",
                        "distinct", "actual", "genuine", "valid"})
_EXISTENCE_SUBJECT_WORDS = 8
_NOT_ALWAYS = frozenset({"always", "necessarily", "all"})
_EXISTENCE_NOUNS = frozenset({"kind", "kinds", "type", "types", "category", "categories", "form", "forms", "variant",
                              "variants", "class", "thing", "things"})


def denies_existence(phrasing: Phrasing, c: Clause, own: frozenset[str] = frozenset()) -> bool:
    """The clause's subject is what the phrasing names, and the clause says it is no kind,
    not real, not possible, or not the concept itself (`own`: its names' stems)."""
    for i, w in enumerate(c.words):
        if w not in DENYING or not 0 < i <= _EXISTENCE_SUBJECT_WORDS or c.refuted or c.asked:
            continue
        # 'packages that don't exist' describes the packages; it does not deny them.
        if any(x in _EMBEDDED for x in c.words[:i]) or c.words[i - 1] not in _AUXILIARIES:
            continue
        # 'none = no tools' defines a kind by what it lacks; 'L1 is not really a cache' denies.
        # 'citations are not always real' says some are fake: the kind exists.
        if c.words[i + 1 : i + 2] and c.words[i + 1] in _NOT_ALWAYS:
            continue
        said = zip(c.words[i + 1 : i + 4], c.stems[i + 1 : i + 4], strict=True)
        # Only 'is not' denies being the concept: 'a fast-forward does not create a merge
        # commit' says what it does, not that it is no merge.
        is_not = c.words[i - 1] in _COPULAS
        # A kind, type or form is denied by 'is not a'; 'you do not type your password' types.
        if any((x in _EXISTENCE and (is_not or x not in _EXISTENCE_NOUNS)) or (st in own and w != "no" and is_not)
               for x, st in said) \
                and mentions(phrasing, _span(c, 0, i)):
            return True
    return False


# --- two things called one ------------------------------------------------------------
#
# 'Threads and async tasks work exactly the same way', '429 vs 403: same meaning', 'a race
# and a deadlock are not different failures': a comparison that says there is nothing to
# compare. A sentence that goes on to a difference ('the same, but...', 'except') is a
# comparison, and 'the same' after any verb but a linking one ('share the same memory')
# says nothing about the two.
_SAME = frozenset({"same", "identical", "equivalent", "interchangeable", "synonym", "synonyms", "synonymous"})
_DIFFERENT = frozenset({"different", "difference", "differences", "differ", "differs", "distinct", "distinction",
                        "separate"})
_DIFFERENT_ADJECTIVES = frozenset({"different", "distinct", "separate"})
_SAME_VERBS = frozenset({"is", "are", "was", "were", "be", "work", "works", "behave", "behaves", "act", "acts", "mean",
                         "means"})
_SAME_HEDGES = frozenset({"basically", "essentially", "exactly", "just", "really", "practically", "all", "both",
                          "totally", "completely", "entirely", "literally", "effectively", "functionally", "pretty",
                          "much", "kind", "of", "sort", "the"})
# A clause may open with the claim: '429 vs 403: same meaning'.
_SAME_OPENING = frozenset({"meaning", "thing", "things"})
# ...and one that says what is the same underneath ('the same thing underneath: nicer syntax
# over promises') compares layers.
_DIFFERENCE_FOLLOWS = frozenset({"but", "except", "apart", "besides", "however", "whereas", "while", "though",
                                 "although", "unlike", "only", "yet", "instead", "rather", "underneath", "internally",
                                 "hood"})
# 'Over' and 'on top' compare layers only after what is layered ('syntax over promises', 'a layer
# on top of TCP'); 'no difference in what travels over the wire' is no layering.
_LAYERING = frozenset({"over", "top"})
_LAYERED = frozenset({"syntax", "sugar", "layer", "layers", "wrapper", "wrappers", "abstraction", "built", "builds",
                      "sits", "runs", "api", "interface"})
_DIFFERENCE_HEDGES = frozenset({"real", "any", "actual", "big", "really", "much", "that", "very", "so"})
_SAME_ENDS = frozenset({"thing", "things", "way", "concept", "idea", "meaning", "as", "stuff"})
# Words that make a sentence about two things at once.
PAIR_WORDS = frozenset({"both", "they", "them", "vs", "versus", "either"})


def says_same(sentence: list[Clause]) -> bool:
    """The sentence calls two things the same (in a clause that asserts: not in a refuted
    belief, a question or a hypothesis)."""
    if any(w in _DIFFERENCE_FOLLOWS for c in sentence for w in c.words):
        return False
    if any(w in _LAYERING and any(x in _LAYERED for x in c.words[max(0, i - 3) : i])
           for c in sentence for i, w in enumerate(c.words)):
        return False
    for c in sentence:
        if c.refuted or c.asked or c.conditional:
            continue
        ws = c.words
        for i, w in enumerate(ws):
            if w in _DIFFERENT:
                # 'no difference', 'not really different', "isn't any different" ('yes/no page
                # differences' is no such claim).
                k = i - 2 if i > 1 and ws[i - 1] in _DIFFERENCE_HEDGES else i - 1
                # 'SQLite has no separate server' says there is none, not that two are one.
                if ws[k : k + 1] == ("no",) and w in _DIFFERENT_ADJECTIVES and ws[i + 1 : i + 2] and \
                        ws[i + 1] not in FUNCTION_WORDS and ws[i + 1] not in _SAME_ENDS:
                    continue
                if k >= 0 and ws[k] in DENYING and not any(x in DENYING for x in ws[:k]):
                    return True
                continue
            if w not in _SAME or not usable(c, i, 0):
                continue
            j = i - 1 if i and ws[i - 1] == "the" else i
            after = ws[i + 1 : i + 2]
            # The sameness is what is said, not a word of a longer phrase ('same-origin',
            # 'the same build', 'the same key encrypts').
            if after and after[0] not in _SAME_ENDS:
                continue
            k = j - 1
            while k >= 0 and ws[k] in _SAME_HEDGES:  # 'are basically the same'
                k -= 1
            if (j == 0 and after and after[0] in _SAME_OPENING) or (k >= 0 and ws[k] in _SAME_VERBS):
                return True
    return False


@lru_cache(maxsize=4096)
def _denial_terms(phrasing: Phrasing, agreeing: frozenset[str]) -> tuple[frozenset[str], tuple[tuple[str, ...], ...]]:
    """What agrees with the key idea, and the alternatives a denial must reach.
    The few alternatives of a term are synonyms: a word the key idea denies agrees in each
    ('does not index the child column' agrees with 'does not index the referencing column').
    A long run of alternatives lists related words, not synonyms ('two|combine|different').
    An alternative's little words ('one' in 'one-way') are never counted in a denial's reach."""
    widened = agreeing | frozenset(
        w for term in phrasing.terms
        if len(term) <= SYNONYM_ALTERNATIVES and any(_agrees(w, agreeing) for alt in term for w in alt)
        for alt in term for w in alt)
    terms = tuple(tuple(w for w in alt if w not in FUNCTION_WORDS) or alt for term in phrasing.terms for alt in term)
    return widened, terms


# After 'is not a' (or 'is not part of'), the denial reaches the whole noun phrase: the
# kind of thing the subject is said not to be, however long ('not a web request-forgery
# attack of the confused-deputy type').
_COPULAS = frozenset({"is", "are", "was", "were", "be", "being"})
_BEFORE_A_CLAIM = _COPULAS | frozenset({"can", "could", "will", "would", "may", "might"})
_LINKING = frozenset({"be", "become", "get", "stay", "remain", "really", "actually", "always", "necessarily", "fully",
                      "truly", "entirely", "completely", "even", "quite", "just"})
_NOUN_PHRASE_OPENERS = frozenset({"a", "an", "the", "part", "one"})
_BELONGING = frozenset({"belong", "fall", "count", "fit", "qualify", "sit"})
_BELONGING_TO = frozenset({("to",), ("under",), ("as",), ("into",), ("within",), ("among",)})
# Hedges between 'not' and what is denied: 'is not basically one of the injection flaws'.
_HEDGES = frozenset({"really", "actually", "basically", "simply", "merely", "exactly", "necessarily", "even", "quite"})


def _agrees(stem_: str, agreeing: frozenset[str]) -> bool:
    """A word the key idea itself denies, matched as loosely as phrasings are ('no expiry'
    agrees with a point that says 'no Expires')."""
    return stem_ in agreeing or any(word_matches(a, stem_) or word_matches(stem_, a) for a in agreeing)


def _denial_reaches(c: Clause, terms: tuple[tuple[str, ...], ...], agreeing: frozenset[str], one_word: bool,
                    double_negative_is_a_need: bool) -> bool:
    # 'tamper-proof' and 'error-free' carry a negation of their own: the key idea's
    # 'cannot be tampered with' agrees with 'tamper-proof', so 'not tamper-proof' denies it.
    flipped = {s for s, nxt in zip(c.stems, c.words[1:]) if nxt in _NEGATING_SUFFIX_WORDS}
    for i, w in enumerate(c.words):
        # '...create it only if it does not exist': the 'not' is inside a condition.
        if w not in DENYING or any(x in _CONDITIONAL for x in c.words[:i]):
            continue
        # 'constants don't matter, and neither do smaller terms': the inverted 'also not'
        # repeats the last denial of its own predicate; it says nothing about what follows.
        if w in ("neither", "nor") and c.words[i + 1 : i + 2] and c.words[i + 1] in _AUXILIARIES:
            continue
        # 'MD5 must not be used where collisions matter' forbids; it denies no fact about MD5.
        if i > 0 and c.words[i - 1] in _OBLIGATION:
            continue
        # 'cannot be decoded without the schema', 'never works without a base case': a need
        # for what follows 'without', where the key idea names it. Not where the idea is about
        # what comes before it ('git cannot work locally without an account' denies local work),
        # nor where the idea itself is a 'without'.
        if double_negative_is_a_need and "without" in c.words[i + 1 :]:
            needed = c.stems[c.words.index("without", i + 1) + 1 :]
            if any(word_matches(t, s) for alt in terms for t in alt for s in needed):
                continue
        at = next((k for k in range(i + 1, min(i + 4, len(c.words))) if c.words[k] not in _HEDGES), None)
        opener = c.words[at] if at is not None else None
        # 'callbacks do not forget the variables around them' affirms that they keep them;
        # where the idea is the loss itself ('a full cache drops entries'), it denies it.
        lost = at if opener in _LOSING else at + 1 if opener in _AUXILIARIES and c.words[at + 1 : at + 2] and \
            c.words[at + 1] in _LOSING else None
        if lost is not None and not any(word_matches(t, c.stems[lost]) for alt in terms for t in alt):
            continue
        # 'Serializable is not the weakest level', 'does not undo the whole transaction', 'not only
        # reads': what is denied is the degree, not the predicate.
        if any(x in _DEGREE for x in c.words[i + 1 : i + 5]):
            continue
        ahead = c.words[i + 1 : i + 7]
        # 'can not be repeated as cheaply as automated tests': a comparison of degree;
        # 'are not the same risk': a difference, said as a denial of sameness.
        same = i > 0 and c.words[i - 1] in _COPULAS and (ahead[:1] == ("same",) or ahead[:2] == ("the", "same"))
        if same or any(a == "as" and ahead[k + 2 : k + 3] == ("as",) for k, a in enumerate(ahead)):
            continue
        # 'can not point to anything that does not exist': two denials, one claim that it must.
        if _denies_what_is_missing(c.words[i + 1 :]):
            continue
        # 'calling itself is not enough', 'escaping is not sufficient': what is denied is that it
        # suffices, which says it is needed. ('Not always' can be the wrong claim itself.)
        if opener in _NOT_ALL_WAYS or (opener in _COPULAS and c.words[at + 1 : at + 2] and c.words[at + 1] in _NOT_ALL_WAYS):
            continue
        is_not_a = i > 0 and c.words[i - 1] in _COPULAS and opener in _NOUN_PHRASE_OPENERS
        # 'does not belong to the asymptotic notations', 'does not fall under access control'.
        is_not_a = is_not_a or (opener in _BELONGING and c.words[at + 1 : at + 2] in _BELONGING_TO)
        after = [(x, st) for x, st in zip(c.words[i + 1 :], c.stems[i + 1 :], strict=True) if x not in _LINKING]
        if one_word and not is_not_a and after and after[0][0] in _NEEDING:
            # 'you do not need eviction', 'it is not related to retries': what follows the
            # need is what is denied, even as a consequence ('..., so there is no need for it').
            nxt = next((st for x, st in after[1:] if x not in FUNCTION_WORDS), None)
            reached = [nxt] if nxt else []
        elif one_word and not is_not_a:
            # 'HTTP is not stateless', 'entries cannot become stale': the word right after is the
            # claim. Not in a purpose ('...so it is not flaky', 'so one client cannot hog it') and
            # not after 'must' or 'should' ('the steps must not be interleaved'): they say what a
            # thing prevents or forbids. Only that next word, past an adverb or a linking verb;
            # 'a hash is not for secrecy' says what a hash is not for, not that secrecy is wrong.
            if not (0 < i < len(c.words) - 1 and c.words[i - 1] in _BEFORE_A_CLAIM and c.separator not in _CONSEQUENCE):
                continue
            reached = [after[0][1]] if after and after[0][0] not in FUNCTION_WORDS else []
        else:
            # Count the reach in content words: 'does not leave the server in the same state'.
            reached = _content_ahead(c, i, noun_phrase=is_not_a)
        ahead = [s for s in reached if not _agrees(s, agreeing) or s in flipped]
        # A compound is one idea: 'not anti-CSRF' reaches 'anti' but agrees on 'csrf'.
        if any(all(any(word_matches(t, s) for s in ahead) for t in alt) for alt in terms):
            return True
    return False


_NEGATING_SUFFIX_WORDS = frozenset({"proof", "free"})
_DEGREE = frozenset({"whole", "entire", "only", "weakest", "strongest", "best", "worst", "most", "least",
                     "fastest", "slowest", "safest", "highest", "lowest", "biggest", "smallest"})
_MISSING = frozenset({"exist", "exists", "there", "real", "valid"})


def _denies_what_is_missing(rest: tuple[str, ...]) -> bool:
    """'...anything that does not exist', '...a row that isn't there': what the first denial
    reaches is itself denied, so together they require it."""
    for k, w in enumerate(rest):
        if w in _EMBEDDED and k + 1 < len(rest):
            tail = rest[k + 1 : k + 5]
            return any(x in DENYING for x in tail) and any(x in _MISSING for x in tail)
    return False


# Verbs that are themselves a loss: denying one is a double negative.
_LOSING = frozenset({"forget", "forgets", "forgot", "lose", "loses", "lost", "drop", "drops", "discard", "discards",
                     "throw", "throws"})
_NOT_ALL_WAYS = frozenset({"enough", "sufficient", "sufficiently"})
_AUXILIARIES = frozenset({"do", "does", "did", "is", "are", "was", "were", "can", "could", "will", "would", "has",
                          "have", "had", "should", "must", "may", "might"})
_NEEDING = frozenset({"need", "needs", "needed", "require", "requires", "required", "related"})
_OBLIGATION = frozenset({"must", "should", "shall"})


def _qualified(c: Clause, after: list[Clause]) -> bool:
    """'Docker sets no memory limit by default' and '...no limit unless you pass --memory'
    say what happens when nobody asks, not that it cannot happen."""
    return any(a == "by" and b == "default" for a, b in zip(c.words, c.words[1:], strict=False)) or \
        "unless" in c.words or bool(after and after[0].words[:1] == ("unless",)) or _handed_on(after) or _compared(c)


def _handed_on(after: list[Clause]) -> bool:
    """'Big-O is not a lower bound, Omega is': the denied predicate is handed on to another
    subject, which has it; the sentence sorts two things, it denies no idea."""
    if not after:
        return False
    ws = after[0].words
    return 2 <= len(ws) <= 5 and ws[-1] in _AUXILIARIES and not any(w in NEGATIONS for w in ws) \
        and after[0].separator in (",", "")


def _compared(c: Clause) -> bool:
    """'RAG does not change the weights the way fine-tuning does', '...forever': what is denied
    is the likeness or the manner, not the predicate ('a recursive function does not call
    itself forever' says that it stops)."""
    ws = c.words
    tail = ws[-6:]
    if ws and ws[-1] in _AUXILIARIES and ("like" in tail or any(a == "the" and b == "way" for a, b in zip(tail, tail[1:]))):
        return True
    return any(w in _UNENDING for w in ws)


# What a denial may be about instead of the predicate: 'not forever' says it ends.
_UNENDING = frozenset({"forever", "endlessly", "indefinitely", "infinitely"})


# A clause and the consequence it draws ('asyncio is single-threaded, so races can't
# happen') make one claim, and a misconception may span them.
_CONSEQUENCE = frozenset({"so", "because", "bc", "cuz", "coz", "since", "therefore", "thus", "hence"})
# ...and a condition leads to the clause after its 'then' or its comma.
_CONDITION_OPENERS = (("if",), ("when",))


def with_consequences(clauses: list[Clause]) -> list[Clause]:
    """The clauses, plus each clause joined to the consequence that follows it, and each
    clause that goes on about the last one's subject with a pronoun ('the API is not for
    programs, it is the screen people click') read with that subject in its place."""
    out = list(clauses)
    for a, b in zip(clauses, clauses[1:], strict=False):
        if a.refuted or b.refuted:
            continue
        if b.separator in _CONSEQUENCE or (b.separator in ("then", ",") and a.words[:1] in _CONDITION_OPENERS):
            # Each part keeps its own negations: 'can't' in the consequence denies only it.
            # A condition and what it leads to ('if the prompt is strict, injection can't
            # happen') are one claim too.
            out.append(replace(_joined(a, b), consequence_at=len(a.words) if b.separator in _CONSEQUENCE else 0))
        elif b.separator in _SPLICES and b.words[:1] and b.words[0] in _PRONOUNS:
            subject = _subject(a)
            if subject is not None:
                out.append(_joined(subject, _span(b, 1)))
    return out


def with_subjects(clauses: list[Clause]) -> list[Clause]:
    """Each clause that goes on about the last one's subject with a pronoun ('hashing maps
    input to a digest, and it is not one-way') read with that subject in its place."""
    out = list(clauses)
    for n in range(1, len(clauses)):
        a, b = clauses[n - 1], clauses[n]
        k = 1 if b.words[:1] == ("and",) else 0  # ', and it is...'
        if (b.separator in _SPLICES or b.separator == "and") and b.words[k : k + 1] and b.words[k] in _PRONOUNS:
            subject = _subject(a) or _subject_before_a_verb(a)
            if subject is not None and not a.refuted and not b.refuted:
                out[n] = replace(_joined(subject, _span(b, k + 1)), separator=b.separator)
    return out


def _subject_before_a_verb(c: Clause) -> Clause | None:
    """'Hashing maps any input...': a one-word subject before a verb in -s."""
    if len(c.words) > 2 and c.words[0] not in FUNCTION_WORDS and c.words[1].endswith("s") \
            and not c.words[1].endswith("ss") and c.words[1] not in FUNCTION_WORDS:
        return _span(c, 0, 1)
    return None


# A comma or a colon that splices a second claim on: 'X is not A, it is B'.
_SPLICES = frozenset({",", ":", "—", "–", "-"})
_PRONOUNS = frozenset({"it", "they", "this"})
_SUBJECT_WORDS = 4


def _subject(c: Clause) -> Clause | None:
    """The words before a clause's first verb, when they are a short noun phrase."""
    verb = next((i for i, w in enumerate(c.words) if w in CLAUSE_VERBS), None)
    if verb is None or not 0 < verb <= _SUBJECT_WORDS or all(w in FUNCTION_WORDS for w in c.words[:verb]):
        return None
    return _span(c, 0, verb)


def _span(c: Clause, start: int, stop: int | None = None) -> Clause:
    """A run of the clause's words, with what each word carries."""
    return replace(c, words=c.words[start:stop], stems=c.stems[start:stop],
                   negations_before=c.negations_before[start:stop], denied_after=c.denied_after[start:stop])


# A contrast without a verb of its own belongs to the clause beside it: 'the app gets a token,
# not your password', 'signed but not encrypted', 'instead of your password, a token',
# 'without transactions, a crash could leave it half done'.
_CONTRAST_OPENERS = frozenset({("not",), ("never",), ("without",), ("instead", "of"), ("rather", "than")})
_CONTRAST_SEPARATORS = frozenset({",", "but", "—", "-", "–"})


def _elliptical_contrast(c: Clause) -> bool:
    opens = c.words[:1] in _CONTRAST_OPENERS or c.words[:2] in _CONTRAST_OPENERS
    return opens and not c.refuted and not any(w in CLAUSE_VERBS for w in c.words)


def _with_contrasts(clauses: list[Clause]) -> list[Clause]:
    """Each verbless contrast joined to the clause it contrasts with, for a phrasing that
    carries its own negation ('token instead|not password')."""
    out = []
    for a, b in zip(clauses, clauses[1:], strict=False):
        if a.refuted or b.refuted:
            continue
        if b.separator.strip() in _CONTRAST_SEPARATORS and _elliptical_contrast(b):
            out.append(_joined(a, b))
        elif a is clauses[0] and _elliptical_contrast(a):  # 'without transactions, a crash...'
            out.append(_joined(a, b))
    return out


def _joined(a: Clause, b: Clause) -> Clause:
    return Clause(
        a.separator, a.words + b.words, a.stems + b.stems, a.negations_before + b.negations_before,
        a.denied_after + b.denied_after, False, a.conditional or b.conditional, a.asked or b.asked,
    )
