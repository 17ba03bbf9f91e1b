"""A concept file's `[detection]` section: what in a student's own project shows that
it relies on the concept (docs/concept-format.md describes it for authors).

It is data, read by `lumente scan`. Every signal carries the one-line reason shown
next to the file and line it was found on, so a finding is evidence, not a guess.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Ecosystem = Literal["python", "npm", "go", "cargo", "ruby"]
Language = Literal["python", "javascript"]
# Structures the scanner finds in Python's syntax tree; the scanner implements each.
CodeCheck = Literal[
    "self_call", "nested_capture", "async_def", "sql_string_execute", "jwt_decode_unverified", "lock_use",
    "memoize_decorator", "thread_or_process", "env_read", "hardcoded_secret",
]
MAX_REASON = 70


class _Signal(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)

    reason: str = Field(min_length=3, max_length=MAX_REASON,
                        description="What the code does, shown as evidence: 'uses PyJWT to sign tokens'.")
    risky: bool = Field(default=False, description="A security risk: the finding is flagged as one.")


def _names(value: list[str]) -> list[str]:
    if not value or any(not name.strip() or any(c.isspace() for c in name.strip()) for name in value):
        raise ValueError("must list names without spaces")
    return [name.strip() for name in value]


class _NamedSignal(_Signal):
    names: list[str]

    _check_names = field_validator("names")(_names)


class DependencySignal(_NamedSignal):
    kind: Literal["dependency"]
    ecosystem: Ecosystem
    names: list[str] = Field(description="Registry names, compared case-insensitively.")


class ImportSignal(_NamedSignal):
    kind: Literal["import"]
    language: Language
    names: list[str] = Field(description="Modules (python) or module specifiers (javascript).")


class CallSignal(_NamedSignal):
    kind: Literal["call"]
    language: Language
    names: list[str] = Field(description="Dotted names of the functions called, e.g. jwt.encode.")


class PatternSignal(_Signal):
    kind: Literal["pattern"]
    languages: list[Language | Literal["any"]] = Field(min_length=1)
    regex: str = Field(min_length=3, description="Matched against one line of source.")

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"is not a valid regular expression: {exc}") from None
        return value


class CodeSignal(_Signal):
    kind: Literal["code"]
    check: CodeCheck


Signal = Annotated[
    DependencySignal | ImportSignal | CallSignal | PatternSignal | CodeSignal, Field(discriminator="kind")
]


class Detection(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    signals: list[Signal] = Field(default_factory=list)
