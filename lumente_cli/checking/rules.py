"""The rules of a check round, as plain functions: what each level shows, which
explanation comes next, how the student's flags are read, the score, and the
level after the round. Memory reaches none of them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from lumente_cli.concepts.explanations import Explanation
from lumente_cli.parts import MAX_LEVEL, MIN_LEVEL

START_LEVEL = 1
# Levels up to this one get a plain explanation and are told how many claims are wrong.
PLAIN_UP_TO = 2
PLAIN_DIFFICULTY = 2  # a plain explanation's difficulty is at most this
NONE_WORDS = frozenset({"none", "no", "nothing"})

ClaimVerdict = Literal["caught", "wrong_reason", "missed", "false_alarm", "sound"]


def shows_flaw_count(level: int) -> bool:
    return level <= PLAIN_UP_TO


def asks_questions(level: int) -> bool:
    """At the top level the student also writes the question that would expose each flaw."""
    return level == MAX_LEVEL


def fits(level: int, explanation: Explanation) -> bool:
    plain = explanation.difficulty <= PLAIN_DIFFICULTY
    return plain if level <= PLAIN_UP_TO else not plain


def pick(explanations: Sequence[Explanation], level: int, last_used: Mapping[str, str]) -> Explanation:
    """The explanation for this level the learner judged least recently (never first);
    any explanation when none fits the level."""
    if not explanations:
        raise ValueError("no explanations to pick from")
    fitting = [e for e in explanations if fits(level, e)] or list(explanations)
    return min(fitting, key=lambda e: last_used.get(e.id, ""))  # min keeps the file's order on ties


def parse_prediction(text: str, claims: int) -> int | None:
    try:
        value = int(text.strip())
    except ValueError:
        return None
    return value if 0 <= value <= claims else None


def parse_flags(text: str, claims: int) -> tuple[int, ...] | str:
    """The claim numbers flagged, ascending and each once, or what is wrong with the line."""
    words = [w for w in re.split(r"[\s,;]+", text.strip().lower()) if w]
    if len(words) == 1 and words[0] in NONE_WORDS:
        return ()
    numbers = []
    wanted = f"claim numbers from 1 to {claims}, or none"
    for word in words:
        if not word.isdigit() or not 1 <= int(word) <= claims:
            return f"{word[:20]!r}, not one of the {wanted}"
        numbers.append(int(word))
    if not numbers:
        return f"no claim numbers; give {wanted}"
    return tuple(sorted(set(numbers)))


@dataclass(frozen=True)
class ClaimOutcome:
    number: int
    flawed: bool
    flagged: bool
    reason_holds: bool = False  # for a flagged flaw: the reason given is a correct objection

    @property
    def verdict(self) -> ClaimVerdict:
        if self.flawed:
            return ("caught" if self.reason_holds else "wrong_reason") if self.flagged else "missed"
        return "false_alarm" if self.flagged else "sound"

    @property
    def right(self) -> bool:
        return self.verdict in ("caught", "sound")


@dataclass(frozen=True)
class RoundScore:
    claims: int
    flaws: int
    caught: int
    wrong_reasons: int  # flaws flagged with a reason that does not hold (counted in `missed`)
    false_alarms: int

    @property
    def missed(self) -> int:
        return self.flaws - self.caught

    @property
    def score(self) -> int:
        """Flaws caught with a reason that holds, plus sound claims left alone: flagging
        everything scores only the flaws it explains, and flagging nothing only the sound claims."""
        return self.caught + (self.claims - self.flaws - self.false_alarms)


def score(outcomes: Iterable[ClaimOutcome]) -> RoundScore:
    done = list(outcomes)
    verdicts = [o.verdict for o in done]
    return RoundScore(
        claims=len(done), flaws=sum(o.flawed for o in done), caught=verdicts.count("caught"),
        wrong_reasons=verdicts.count("wrong_reason"), false_alarms=verdicts.count("false_alarm"),
    )


def next_level(level: int, result: RoundScore) -> int:
    """Every claim right: up. Under half right, or two or more false alarms: down."""
    if result.score == result.claims:
        return min(MAX_LEVEL, level + 1)
    if 2 * result.score < result.claims or result.false_alarms >= 2:
        return max(MIN_LEVEL, level - 1)
    return level
