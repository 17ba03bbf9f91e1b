"""The mapper: a full concept file, written by Claude, for a concept not in the library.

The reply is asked for as structured output in the `Concept` schema, then held
to everything a concept file on disk is held to: the schema's validators, the
loader's checks (it is written as TOML and read back with `parse_concept`, so
the saved file is known to load), the id the caller chose, and one more check
of our own: each part's reference answer must meet its own rubric (the offline
evaluator finds at least `solid_needs` key points in it), so the offline
fallback can judge answers against the mapped concept too. A reply that fails
is sent back once with the problem; a second failure is a ProviderError.
"""

from __future__ import annotations

import os
import tempfile
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lumente_cli import toml_writer
from lumente_cli.agents.claude import prompting
from lumente_cli.agents.claude.client import (
    CONNECT_TIMEOUT_SECONDS,
    MAPPER_TIMEOUT_SECONDS,
    Usage,
    metered,
)
from lumente_cli.agents.claude.failures import describe_api_error
from lumente_cli.agents.claude.structured import ReplyProblem, describe_errors, request_structured
from lumente_cli.agents.contracts import MapInput
from lumente_cli.concepts.library import parse_concept
from lumente_cli.concepts.schema import CONCEPT_ID, Concept
from lumente_cli.errors import ConceptError, ProviderError
from lumente_cli.text import clip, one_line, sanitize, sanitize_all

if TYPE_CHECKING:  # pragma: no cover
    import anthropic

ATTEMPTS = 2
# A concept file is ~4-8 thousand tokens of JSON, and the model thinks first (that
# counts toward the cap too); a reply cut off at the limit is retried with more room.
MAX_TOKENS = 16000
MAX_TOKENS_RETRY = 32000
EFFORT = "medium"  # a whole teaching file that must be right: more thought than a hint


class MapperReply(BaseModel):
    """Either a concept, or a reason for declining: structured output cannot 'refuse
    briefly' in prose, so declining is a field of its own."""

    model_config = ConfigDict(extra="forbid")

    decline: str | None = Field(
        default=None, description="Why this name is not a programming concept that can be described accurately; "
                                  "null when a concept is given.")
    concept: Concept | None = Field(default=None, description="The whole concept file; null when declining.")
EXAMPLE_CONCEPT = "jwt.toml"


def map_concept(client: anthropic.Anthropic, *, model: str, inp: MapInput, usage: Usage) -> Concept:
    """Ask Claude for the concept `inp.name`, as a validated `Concept` with id `inp.concept_id`."""
    import httpx2

    shown = _shown(inp.name)
    if not CONCEPT_ID.match(inp.concept_id):
        raise ProviderError(f"cannot map {shown}: the id {inp.concept_id!r} is not made of [a-z0-9_].")
    claude, meter = metered(client, usage)
    timeout = httpx2.Timeout(MAPPER_TIMEOUT_SECONDS, connect=CONNECT_TIMEOUT_SECONDS)
    system = prompting.load_prompt("mapper")
    request = prompting.map_message(inp, _example())
    messages: list[dict[str, Any]] = [{"role": "user", "content": request}]
    max_tokens = MAX_TOKENS
    problem: ReplyProblem | None = None
    for _ in range(ATTEMPTS):
        try:
            reply = request_structured(
                claude,
                meter,
                usage,
                model=model,
                system=system,
                messages=messages,
                output_format=MapperReply,
                max_tokens=max_tokens,
                timeout=timeout,
                effort=EFFORT,
            )
            if reply.decline and reply.concept is None:
                reason = clip(one_line(reply.decline), 200)
                raise ConceptError(f"Claude declined to map {shown}: {reason}",
                                   hint="`lumente concepts` lists the concepts Lumente has; check the spelling.")
            if reply.concept is None:
                raise ReplyProblem("invalid", "the reply had neither a concept nor a reason to decline")
            return check_mapped(reply.concept, concept_id=inp.concept_id)
        except ReplyProblem as exc:
            problem = exc
            previous = meter.last.text if meter.last else ""
            messages = _retry_messages(request, previous, exc)
            if exc.kind == "cut_off":
                max_tokens = MAX_TOKENS_RETRY
        except Exception as exc:  # only SDK errors are handled; the rest re-raise
            failure = describe_api_error(exc, model=model)
            if failure is None:
                raise
            raise ProviderError(f"{failure.cause}; could not map {shown}.", hint=failure.hint) from None
    assert problem is not None
    raise ProviderError(
        f"Claude could not write a valid concept file for {shown} ({clip(problem.detail, 300)}).",
        hint="Try again, or write the concept file yourself (`lumente concepts check FILE` checks it).",
    )


def check_mapped(concept: Concept, *, concept_id: str) -> Concept:
    """The concept as the library would load it, or ReplyProblem saying what is wrong."""
    data = sanitize_all(concept.model_dump(mode="python"))
    data["id"] = concept_id
    try:
        candidate = Concept.model_validate(data)
    except ValidationError as exc:
        raise ReplyProblem("invalid", describe_errors(exc)) from None
    try:
        text = concept_toml(candidate)
    except toml_writer.TomlWriteError as exc:
        raise ReplyProblem("invalid", str(exc)) from None
    try:
        loaded = parse_concept(text.encode("utf-8"), f"mapped/{concept_id}.toml", expected_id=concept_id)
    except ConceptError as exc:
        raise ReplyProblem("invalid", exc.message) from None
    if loaded != candidate:
        raise ReplyProblem("invalid", "the concept did not read back the same after being written as TOML")
    gaps = rubric_gaps(loaded)
    if gaps:
        raise ReplyProblem("invalid", "; ".join(gaps))
    return loaded


def rubric_gaps(concept: Concept) -> list[str]:
    """Parts whose reference answer does not meet their own rubric."""
    from lumente_cli.agents.offline.evaluator import analyse

    gaps = []
    for key, part in concept.parts():
        found = [kp.id for kp in analyse(part, part.reference).covered]
        if len(found) < part.needed_for_solid:
            gaps.append(
                f"{key}.reference matches the accept phrasings of {len(found)} key point(s) "
                f"({', '.join(found) or 'none'}) but a solid answer needs {part.needed_for_solid}: "
                "write phrasings that match how the reference (and a student) says each idea"
            )
    return gaps


def concept_toml(concept: Concept) -> str:
    """The concept as a TOML concept file, with a short header comment."""
    header = (
        f"{concept.name}: written by Claude's concept mapper for Lumente, not curated.\n"
        "Check it before you rely on it; edit it freely."
    )
    return toml_writer.dumps(concept.model_dump(mode="python", exclude_none=True), header=header)


def save_mapped_concept(concept: Concept, directory: Path) -> Path:
    """Write `<directory>/<id>.toml` (atomically) so the library loads it next time."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{concept.id}.toml"
    text = concept_toml(concept)
    fd, tmp = tempfile.mkstemp(prefix=f".{concept.id}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


# helpers ----------------------------------------------------------------------


@lru_cache(maxsize=1)
def _example() -> str:
    return (resources.files("lumente_cli.concepts") / "library" / EXAMPLE_CONCEPT).read_text(encoding="utf-8")


def _retry_messages(request: str, previous: str, problem: ReplyProblem) -> list[dict[str, Any]]:
    if problem.kind == "refusal":
        return [{"role": "user", "content": request}]  # ask again as it was
    if problem.kind == "cut_off":
        note = "the reply was cut off at the token limit; keep every text field concise."
    else:
        note = problem.detail
    retry = prompting.map_retry_message(note)
    if previous.strip():
        return [
            {"role": "user", "content": request},
            {"role": "assistant", "content": previous},
            {"role": "user", "content": retry},
        ]
    return [{"role": "user", "content": f"{request}\n\n{retry}"}]


def _shown(name: str) -> str:
    return repr(clip(sanitize(name).strip(), 60))
