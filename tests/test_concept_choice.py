"""Map or suggest: which concept `lumente practice NAME` runs on, decided below the CLI.
Mapping a new concept with Claude end to end is in test_claude_sessions.py."""

from __future__ import annotations

import contextlib

import pytest

from lumente_cli import paths, settings
from lumente_cli.concepts.library import load_default
from lumente_cli.errors import ConceptError
from lumente_cli.practice.concept_choice import find_or_map


def choose(name: str, *, provider: str | None = None):
    entered: list[str] = []

    @contextlib.contextmanager
    def mapping(message: str):
        entered.append(message)
        raise AssertionError(f"mapped {name!r}")
        yield

    found = find_or_map(load_default(), name, settings=settings.load(), provider=provider,
                        mapped_dir=paths.current().mapped_concepts_dir, mapping=mapping)
    assert entered == []
    return found


def test_a_known_name_or_alias_is_found_and_nothing_is_mapped():
    concept, saved = choose("JWT")
    assert concept.id == "jwt" and saved is None


def test_a_near_miss_gets_the_close_names_even_when_claude_could_map_it(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-choice")
    with pytest.raises(ConceptError) as caught:
        choose("jwtt")
    assert caught.value.message == "unknown concept 'jwtt'." and "jwt" in (caught.value.hint or "")


@pytest.mark.parametrize("provider", [None, "offline"])
def test_without_claude_an_unknown_name_is_not_mapped(monkeypatch, provider):
    if provider:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-choice")  # a key, but offline was chosen
    with pytest.raises(ConceptError, match="unknown concept 'event sourcing'"):
        choose("event sourcing", provider=provider)


def test_a_name_with_nothing_to_name_a_file_by_is_refused_before_claude_is_asked(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-choice")
    with pytest.raises(ConceptError, match="no letters or digits"):
        choose("?!")
