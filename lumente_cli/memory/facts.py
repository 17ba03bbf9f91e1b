"""The only sentences Lumente ever writes to memory, and how to read them back.

Each fact is built from numbers the session engine already worked out; no
student text can reach a template. Parsing is the inverse of rendering, so
recall keeps only rows this code could have written (a derived or foreign row
on the service is dropped, never shown or cited).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from lumente_cli.parts import LABELS, MAX_LEVEL, MEMORY_LABELS, PARTS, PartKey

FactKind = Literal["level", "gap", "help", "check", "check_level"]
# Every fact is an attribute of one entity of this type per learner and concept.
ENTITY_TYPE = "topic"

MEMORY_LEVEL_TEXT: dict[int, str] = {
    1: "a worked example to explain back",
    2: "leading questions with cues",
    3: "an open question, hints on request",
    4: "the part's name only, hints on request",
    5: "on their own, with a question of their own",
}


class MemoryFact(BaseModel):
    """One remembered fact as the hint giver and coach receive it."""

    # Validators are built on first use: a command that only shows memory never builds them.
    model_config = ConfigDict(frozen=True, defer_build=True)

    id: str
    key: str
    kind: FactKind
    part: PartKey | None = None
    sentence: str
    at: str
    reason: str = ""
    level: int | None = None
    predicted: int | None = None
    proved: int | None = None
    help_taps: int | None = None
    # A `lumente check` round: flaws caught of those planted, and sound claims flagged.
    caught: int | None = None
    flaws: int | None = None
    false_alarms: int | None = None

    def line(self) -> str:
        """The one-line form used in prompts: `- <id>: <sentence>`."""
        return f"- {self.id}: {self.sentence}"


def level_key(part: PartKey) -> str:
    return f"level_{part}"


def help_key(part: PartKey) -> str:
    return f"help_{part}"


GAP_KEY = "gap"
CHECK_KEY = "check_result"
CHECK_LEVEL_KEY = "check_level"
CHECK_KEYS: tuple[str, ...] = (CHECK_KEY, CHECK_LEVEL_KEY)
ALL_KEYS: tuple[str, ...] = (
    tuple(level_key(p) for p in PARTS) + (GAP_KEY,) + tuple(help_key(p) for p in PARTS) + CHECK_KEYS
)

CHECK_LEVEL_TEXT: dict[int, str] = {
    1: "plain explanations, with the number of flaws given",
    2: "plain explanations, with the number of flaws given",
    3: "subtler explanations, the number of flaws not given",
    4: "subtler explanations, the number of flaws not given",
    5: "subtler explanations, and a question that exposes each flaw",
}


# Sentences name a part as the screen does; facts written before that used the older
# short names (MEMORY_LABELS), and they are still read back as they were written.
def level_sentence(concept_name: str, part: PartKey, level: int, labels: dict[PartKey, str] = LABELS) -> str:
    return f"On {concept_name}, {labels[part]} is now at level {level} of {MAX_LEVEL}: {MEMORY_LEVEL_TEXT[level]}."


def gap_sentence(concept_name: str, predicted: int, proved: int) -> str:
    return f"Last time on {concept_name} you guessed {predicted} and proved {proved}."


def help_sentence(concept_name: str, part: PartKey, taps: int, labels: dict[PartKey, str] = LABELS) -> str:
    took = "no Help" if taps == 0 else ("1 Help tap" if taps == 1 else f"{taps} Help taps")
    return f"'{labels[part]}' took {took} on {concept_name} last time."


def check_sentence(concept_name: str, caught: int, flaws: int, false_alarms: int) -> str:
    sound = "no sound claim" if false_alarms == 0 else (
        "1 sound claim" if false_alarms == 1 else f"{false_alarms} sound claims")
    return (f"On {concept_name}, you caught {caught} of {flaws} flaw{'s' if flaws != 1 else ''} "
            f"in an AI's explanation and flagged {sound}.")


def check_level_sentence(concept_name: str, level: int) -> str:
    return f"On {concept_name}, your check level is now {level} of {MAX_LEVEL}: {CHECK_LEVEL_TEXT[level]}."


_LEVEL_RE = re.compile(r"^On (?P<name>.+), (?P<label>[A-Za-z ]+) is now at level (?P<n>[1-5]) of 5: (?P<text>.+)\.$")
_GAP_RE = re.compile(r"^Last time on (?P<name>.+) you guessed (?P<p>\d) and proved (?P<s>\d)\.$")
_HELP_RE = re.compile(r"^'(?P<label>[A-Za-z ]+)' took (?P<took>no Help|1 Help tap|(?P<n>\d+) Help taps) on (?P<name>.+) last time\.$")


_CHECK_RE = re.compile(r"^On (?P<name>.+), you caught (?P<c>\d+) of (?P<f>\d+) flaws? in an AI's explanation and "
                       r"flagged (?P<fa>no|\d+) sound claims?\.$")
_CHECK_LEVEL_RE = re.compile(r"^On (?P<name>.+), your check level is now (?P<n>[1-5]) of 5: .+\.$")


def _read_check(key: str, value: str) -> dict[str, Any] | None:
    if key == CHECK_KEY:
        m = _CHECK_RE.match(value)
        if not m:
            return None
        caught, flaws, false_alarms = int(m["c"]), int(m["f"]), 0 if m["fa"] == "no" else int(m["fa"])
        if value != check_sentence(m["name"], caught, flaws, false_alarms):
            return None
        return {"kind": "check", "caught": caught, "flaws": flaws, "false_alarms": false_alarms}
    m = _CHECK_LEVEL_RE.match(value)
    if not m or value != check_level_sentence(m["name"], int(m["n"])):
        return None
    return {"kind": "check_level", "level": int(m["n"])}


def read_fact(key: str, value: str) -> dict[str, Any] | None:
    """What a stored row says, as MemoryFact fields (its kind, part and numbers), or
    None if this code did not write it. For a reader that needs no MemoryFact."""
    if key in CHECK_KEYS:
        return _read_check(key, value)
    if key == GAP_KEY:
        m = _GAP_RE.match(value)
        if not m or value != gap_sentence(m["name"], int(m["p"]), int(m["s"])):
            return None
        return {"kind": "gap", "predicted": int(m["p"]), "proved": int(m["s"])}
    kind, _, part = key.partition("_")
    if part not in PARTS:
        return None
    if kind == "level":
        m = _LEVEL_RE.match(value)
        if not m or value not in (level_sentence(m["name"], part, int(m["n"]), labels)  # type: ignore[arg-type]
                                  for labels in (LABELS, MEMORY_LABELS)):
            return None
        return {"kind": "level", "part": part, "level": int(m["n"])}
    if kind == "help":
        m = _HELP_RE.match(value)
        if not m:
            return None
        taps = 0 if m["took"] == "no Help" else (1 if m["n"] is None else int(m["n"]))
        if value not in (help_sentence(m["name"], part, taps, labels)  # type: ignore[arg-type]
                         for labels in (LABELS, MEMORY_LABELS)):
            return None
        return {"kind": "help", "part": part, "help_taps": taps}
    return None


def parse_fact(key: str, value: str, *, id: str, at: str) -> MemoryFact | None:  # noqa: A002 - the row's field
    """Turn a stored row back into a fact, or None if this code did not write it."""
    fields = read_fact(key, value)
    return None if fields is None else MemoryFact(id=id, key=key, sentence=value, at=at, **fields)
