"""The four parts of the concept map and the five help levels.

These names are shared vocabulary: the session engine, the agents, memory keys
and the views all use them, so they live here and nowhere else.
"""

from __future__ import annotations

from typing import Literal, get_args

PartKey = Literal["supraordinate", "coordinate", "attributes", "subordinate"]
PARTS: tuple[PartKey, ...] = get_args(PartKey)

LABELS: dict[PartKey, str] = {
    "supraordinate": "Category",
    "coordinate": "Similar concepts and differences",
    "attributes": "Defining features",
    "subordinate": "Classification",
}
# The short names facts written before the screen names were used carry ("'Bigger group'
# took no Help ..."); read back only, never written any more.
MEMORY_LABELS: dict[PartKey, str] = {
    "supraordinate": "Bigger group",
    "coordinate": "Similar concepts",
    "attributes": "Defining features",
    "subordinate": "Classification",
}
ASKS: dict[PartKey, str] = {
    "supraordinate": "the larger class the concept belongs to",
    "coordinate": "neighbours it is confused with, and how it differs from each",
    "attributes": "the properties that make it this concept and not a neighbour",
    "subordinate": "its kinds, variants or examples",
}

MIN_LEVEL = 1
MAX_LEVEL = 5
START_LEVEL = 2  # a part the student has never done

LEVEL_NAMES: dict[int, str] = {
    1: "worked example",
    2: "guided",
    3: "open question",
    4: "prompt only",
    5: "on your own",
}
LEVEL_DESCRIPTIONS: dict[int, str] = {
    1: "a worked example, then you explain it back",
    2: "leading questions with cues",
    3: "an open question, hints on request",
    4: "just the part's name, hints on request",
    5: "on your own, and you ask your own question",
}


def parse_part(text: str) -> PartKey | None:
    """Accept a screen name ('Classification', 'similar concepts'), a word of one
    ('similar', 'features'), a key ('coordinate'), or a unique prefix of any of them."""
    want = text.strip().lower().replace("-", "_").replace(" ", "_")
    if not want:
        return None
    names = {key: {key, *(label.lower().replace(" ", "_") for label in (LABELS[key], MEMORY_LABELS[key]))}
             for key in PARTS}
    for key in PARTS:
        if want in names[key]:
            return key
    words = {key: {w for name in names[key] for w in name.split("_") if len(w) > 3} for key in PARTS}
    matches = [key for key in PARTS
               if any(name.startswith(want) for name in names[key]) or any(w.startswith(want) for w in words[key])]
    return matches[0] if len(matches) == 1 else None
