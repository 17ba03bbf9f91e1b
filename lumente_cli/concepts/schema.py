"""The concept file format (docs/concept-format.md describes it for authors).

One TOML file per concept; the four parts appear as tables in map order. Every
model forbids unknown fields so a typo in a user's file is reported, not ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from lumente_cli.concepts.detection import Detection
from lumente_cli.parts import PARTS, PartKey

# A concept id names its file, is typed on the command line and goes into memory keys.
CONCEPT_ID = re.compile(r"^[a-z0-9_]+$")


def _identifier(value: str) -> str:
    if not CONCEPT_ID.match(value):
        raise ValueError("must use only lowercase letters, digits and _")
    return value


# A concept's, a key point's or an explanation's id: what memory keys and the command line use.
Identifier = Annotated[str, AfterValidator(_identifier)]

ORDER_MARK = ">"
_TERM = re.compile(r"^[\w'+#.-]+(\|[\w'+#.-]+)*$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


Area = Literal["web", "security", "data", "concurrency", "language", "tools", "ai"]


class KeyPoint(_Strict):
    """One idea the rubric looks for in an answer."""

    id: Identifier = Field(description="Short identifier, [a-z0-9_].")
    point: str = Field(min_length=3, description="The idea, as the reference map shows it.")
    accept: list[str] = Field(
        min_length=1,
        description=(
            "Accepted phrasings. Each is a set of words that must all appear, in any order "
            "and any inflection; 'a|b' inside a phrasing lists synonyms for one word."
        ),
    )
    nudge: str = Field(min_length=3, description="A question that points at the idea without stating it.")
    required: bool = Field(
        default=False, description="A solid answer must cover this point (Category's bigger class, for one)."
    )
    names: list[str] = Field(
        default_factory=list,
        description=(
            "Phrasings that only name the neighbour or kind this point is about. Naming never "
            "covers the point; the evaluator uses them to tell a student who only named it."
        ),
    )

    @field_validator("accept", "names")
    @classmethod
    def _phrasings(cls, value: list[str]) -> list[str]:
        for phrasing in value:
            words = phrasing.split()
            # 'a > b > c' asks for the terms in that order; a '>' stands between two terms.
            terms = words[::2] if ORDER_MARK in words else words
            marks = words[1::2] if ORDER_MARK in words else []
            if not terms or not all(_TERM.match(w) for w in terms) or any(m != ORDER_MARK for m in marks) \
                    or (marks and words[-1] == ORDER_MARK):
                raise ValueError(f"phrasing {phrasing!r} must be words separated by spaces, synonyms joined by '|' "
                                 "(or terms in order, separated by ' > ')")
        return value


class Confusion(_Strict):
    """A misconception students really hold. Asserting a core one makes the answer
    missing; a side one caps it at partial. Refuting one costs nothing."""

    match: list[str] = Field(min_length=1, description="Phrasings that state the confusion (same syntax as accept).")
    nudge: str = Field(min_length=3, description="A question that makes the student reconsider.")
    core: bool = Field(default=True, description="About the part's core idea (missing) or a side point (partial).")

    @field_validator("match")
    @classmethod
    def _phrasings(cls, value: list[str]) -> list[str]:
        return KeyPoint._phrasings(value)


class Check(_Strict):
    """An answer written for this part with the verdict it must get: the concept's own
    tests (every shipped file has misconceptions judged missing and paraphrases judged solid)."""

    kind: Literal["paraphrase", "misconception", "partial", "other"]
    answer: str = Field(min_length=3)
    expect: Literal["solid", "partial", "missing"]


class Part(_Strict):
    question: str = Field(min_length=5, description="The open question asked at level 3.")
    guided: list[str] = Field(min_length=2, description="Leading questions asked at level 2, in order.")
    cues: list[str] = Field(min_length=2, description="Guiding cues shown with the leading questions.")
    worked_example: str = Field(min_length=20, description="The part worked out, shown at level 1.")
    reference: str = Field(min_length=20, description="The reference answer, shown after the session.")
    hints: list[str] = Field(min_length=3, description="Hints from vague to specific, one per Help tap.")
    key_points: list[KeyPoint] = Field(min_length=2)
    solid_needs: int | None = Field(
        default=None, ge=1, description="Key points a solid answer must cover; default two thirds, rounded up."
    )
    confusions: list[Confusion] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list, description="Where each fact of this part was checked.")
    checks: list[Check] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> Part:
        ids = [kp.id for kp in self.key_points]
        if len(set(ids)) != len(ids):
            raise ValueError("key point ids must be unique within a part")
        if self.solid_needs is not None and self.solid_needs > len(self.key_points):
            raise ValueError("solid_needs is larger than the number of key points")
        if sum(kp.required for kp in self.key_points) > self.needed_for_solid:
            raise ValueError("more required key points than solid_needs")
        return self

    @property
    def required(self) -> list[KeyPoint]:
        return [kp for kp in self.key_points if kp.required]

    def supported(self, covered: Iterable[str]) -> Literal["solid", "partial", "missing"]:
        """The best verdict these covered key point ids can support: solid needs
        `solid_needs` of them with every required one; any one makes partial."""
        ids = set(covered) & {kp.id for kp in self.key_points}
        if not ids:
            return "missing"
        if len(ids) >= self.needed_for_solid and all(kp.id in ids for kp in self.required):
            return "solid"
        return "partial"

    @property
    def needed_for_solid(self) -> int:
        if self.solid_needs is not None:
            return self.solid_needs
        return max(1, -(-2 * len(self.key_points) // 3))


class Concept(_Strict):
    id: Identifier = Field(description="The name used on the command line and in memory keys, [a-z0-9_].")
    name: str = Field(min_length=1, description="How the concept is shown, e.g. 'JWT'.")
    full_name: str | None = None
    aliases: list[str] = Field(default_factory=list, description="Other names the command line accepts.")
    summary: str = Field(min_length=10, description="One sentence: what it is, for `lumente concepts`.")
    terms: list[str] = Field(
        default_factory=list, description="Words that show a question is about this concept (for the question judge)."
    )
    area: Area | None = Field(default=None, description="Where `lumente concepts` lists it.")
    links: list[str] = Field(
        default_factory=list, description="Ids of library concepts it is often confused with or used beside."
    )
    supraordinate: Part
    coordinate: Part
    attributes: Part
    subordinate: Part
    detection: Detection = Field(
        default_factory=Detection, description="What in a student's project shows it uses the concept (`lumente scan`)."
    )

    @field_validator("links")
    @classmethod
    def _links(cls, value: list[str]) -> list[str]:
        for link in value:
            if not CONCEPT_ID.match(link):
                raise ValueError(f"link {link!r} must be a concept id: lowercase letters, digits and _")
        return value

    @model_validator(mode="after")
    def _category_is_required(self) -> Concept:
        if not self.supraordinate.required:
            raise ValueError("supraordinate needs a key point with required = true: the bigger class itself")
        return self

    def part(self, key: PartKey) -> Part:
        return getattr(self, key)

    def parts(self) -> list[tuple[PartKey, Part]]:
        return [(key, self.part(key)) for key in PARTS]
