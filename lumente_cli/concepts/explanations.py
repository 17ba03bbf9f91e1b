"""Explanations with known flaws, for `lumente check` (docs/concept-format.md describes
them for authors).

Each concept may ship a file `explanations/<concept id>.toml`: explanations written in
the confident voice of an AI assistant, split into numbered claims. Most claims are
sound; one to three carry a flaw taken from the concept's real misconceptions, and say
which part of the map they break, why they are wrong, and what a correct objection must
contain (phrasings in the same syntax as a key point's `accept`).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from lumente_cli.concepts.schema import Identifier, KeyPoint
from lumente_cli.errors import ConceptError
from lumente_cli.parts import PartKey

FlawKind = Literal["wrong_category", "blurred_difference", "false_feature", "missing_kind", "invented_kind"]
MIN_CLAIMS, MAX_CLAIMS = 6, 10
MIN_FLAWS, MAX_FLAWS = 1, 3
EXPLANATIONS_DIR = Path(__file__).with_name("explanations")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


class Flaw(_Strict):
    kind: FlawKind = Field(description="How the claim breaks the map.")
    why: str = Field(min_length=20, description="Why the claim is wrong: shown after the round, in full.")
    objection: list[str] = Field(
        min_length=1,
        description="Phrasings of a correct objection (key-point syntax); a reason must assert one of them.",
    )
    nudge: str = Field(min_length=10, description="A question pointing at the idea, without naming the claim.")

    @field_validator("objection")
    @classmethod
    def _phrasings(cls, value: list[str]) -> list[str]:
        return KeyPoint._phrasings(value)


class Claim(_Strict):
    text: str = Field(min_length=10, description="One claim, as the AI states it.")
    part: PartKey = Field(description="The part of the map the claim is about.")
    flaw: Flaw | None = Field(default=None, description="Present when the claim is wrong.")


class Explanation(_Strict):
    id: Identifier
    asked: str = Field(min_length=5, description="What the student asked the AI, shown above the claims.")
    difficulty: int = Field(ge=1, le=5, description="1: the flaws are plain; 5: they take a careful reader.")
    claims: list[Claim] = Field(min_length=MIN_CLAIMS, max_length=MAX_CLAIMS)

    @model_validator(mode="after")
    def _flaw_count(self) -> Explanation:
        flaws = sum(c.flaw is not None for c in self.claims)
        if not MIN_FLAWS <= flaws <= MAX_FLAWS:
            raise ValueError(f"needs {MIN_FLAWS} to {MAX_FLAWS} flawed claims, has {flaws}")
        return self

    @property
    def flaws(self) -> list[int]:
        """The numbers (1-based) of the flawed claims."""
        return [i for i, c in enumerate(self.claims, 1) if c.flaw is not None]


class ExplanationFile(_Strict):
    concept: str
    explanations: list[Explanation] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> ExplanationFile:
        ids = [e.id for e in self.explanations]
        if len(ids) != len(set(ids)):
            raise ValueError("explanation ids must be unique")
        return self


def load_explanations(concept_id: str, directory: Path = EXPLANATIONS_DIR) -> list[Explanation]:
    """The shipped explanations of a concept ([] when it has none)."""
    path = directory / f"{concept_id}.toml"
    if not path.is_file():
        return []
    try:
        data = ExplanationFile.model_validate(tomllib.loads(path.read_text("utf-8")))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValidationError) as exc:
        raise ConceptError(f"explanation file {path}: {exc}") from None
    if data.concept != concept_id:
        raise ConceptError(f"explanation file {path} is for {data.concept!r}, not {concept_id!r}")
    return data.explanations
