"""The parsed-concept cache: it saves parsing TOML, and can never change what
loads or let a broken file through."""

from __future__ import annotations

import json
import shutil

import pytest

from lumente_cli import paths
from lumente_cli.concepts.cache import ConceptCache, digest
from lumente_cli.concepts.library import load_default
from lumente_cli.errors import ConceptError

from helpers import lumente


def _user_file(text: str) -> None:
    folder = paths.current().user_concepts_dir
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "jwt.toml").write_text(text, "utf-8")


def _shipped_jwt() -> str:
    from lumente_cli.concepts import library

    return (library.Path(library.__file__).with_name("library") / "jwt.toml").read_text("utf-8")


def test_a_second_load_comes_from_the_cache_and_is_the_same_library() -> None:
    first = load_default()
    cache_file = paths.current().concept_cache
    assert cache_file.is_file() and oct(cache_file.stat().st_mode & 0o777) == "0o600"
    assert len(json.loads(cache_file.read_bytes())["entries"]) == len(first.concepts)
    calls = []
    import tomllib

    real = tomllib.loads
    tomllib.loads = lambda text: calls.append(1) or real(text)  # count parses; the real parser still runs
    try:
        second = load_default()
    finally:
        tomllib.loads = real
    assert calls == []
    assert {k: v.concept for k, v in second.concepts.items()} == {k: v.concept for k, v in first.concepts.items()}


def test_an_edited_file_is_parsed_again_not_served_stale() -> None:
    _user_file(_shipped_jwt().replace('name = "JWT"', 'name = "JWT (mine)"', 1))
    assert load_default().resolve("jwt").name == "JWT (mine)"
    _user_file(_shipped_jwt().replace('name = "JWT"', 'name = "JWT (edited)"', 1))
    assert load_default().resolve("jwt").name == "JWT (edited)"


def _tamper(text: str, change) -> None:
    cache_file = paths.current().concept_cache
    doc = json.loads(cache_file.read_bytes())
    change(doc["entries"][digest(text.encode("utf-8"))])
    cache_file.write_text(json.dumps(doc))


def test_a_tampered_cache_entry_is_caught_when_the_concept_is_used() -> None:
    mine = _shipped_jwt().replace('name = "JWT"', 'name = "JWT (mine)"', 1)
    _user_file(mine)
    load_default()
    _tamper(mine, lambda entry: entry["supraordinate"].pop("reference"))
    lib = load_default()
    assert lib.concepts["jwt"].name == "JWT (mine)"  # listing reads the cached data
    with pytest.raises(ConceptError, match=r"concept file .*jwt.toml: field supraordinate.reference: Field required"):
        lib.resolve("jwt")
    r = lumente("practice", "jwt", input="4\n")
    assert r.exit_code == 2 and "field supraordinate.reference" in r.stderr and "Traceback" not in r.stderr


def test_a_cache_entry_listing_cannot_read_is_parsed_again_from_the_file() -> None:
    mine = _shipped_jwt().replace('name = "JWT"', 'name = "JWT (mine)"', 1)
    _user_file(mine)
    load_default()
    _tamper(mine, lambda entry: entry.update(name=["not", "a", "name"]))
    lib = load_default()
    assert lib.concepts["jwt"].name == "JWT (mine)" and not lib.problems


def test_listing_and_naming_never_build_a_concept_model() -> None:
    load_default()
    lib = load_default()  # from the cache
    assert lib.name_of("jwt") == "JWT" and lib.find_source("json web token").id == "jwt"
    assert all(source._concept is None for source in lib.concepts.values())
    assert lib.resolve("jwt").name == "JWT"


def test_a_corrupt_or_unwritable_cache_never_fails_a_command() -> None:
    cache_file = paths.current().concept_cache
    cache_file.parent.mkdir(parents=True)
    cache_file.write_bytes(b"\x00not json")
    r = lumente("concepts")
    assert r.exit_code == 0 and "jwt" in r.stdout
    assert json.loads(cache_file.read_bytes())["entries"]  # rebuilt
    # Unwritable for anyone, root included (chmod does not stop root): the cache's
    # folder is a plain file, so neither reading nor writing the cache can work.
    shutil.rmtree(cache_file.parent)
    cache_file.parent.write_bytes(b"not a folder")
    r = lumente("concepts")
    assert r.exit_code == 0 and "jwt" in r.stdout
    assert cache_file.parent.read_bytes() == b"not a folder"  # left as it was


def test_a_missing_cache_path_means_no_cache() -> None:
    cache = ConceptCache(None)
    assert cache.get(b"x") is None
    cache.put(b"x", {"a": 1})
    assert cache.get(b"x") == {"a": 1}
    cache.save()  # nowhere to write: nothing happens


def test_a_first_command_that_only_writes_the_cache_leaves_the_data_folder_private() -> None:
    assert lumente("concepts").exit_code == 0
    data_dir = paths.current().data_dir
    assert oct(data_dir.stat().st_mode & 0o777) == "0o700"
    assert oct(paths.current().concept_cache.parent.stat().st_mode & 0o777) == "0o700"


def test_listing_from_the_index_reads_no_concept_file_and_using_one_still_checks_it(monkeypatch) -> None:
    load_default()
    from pathlib import Path

    read: list[str] = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: read.append(self.name) or real(self))
    lib = load_default()
    assert lib.resolve_source("jwt").summary and not [n for n in read if n.endswith(".toml")]
    assert "concepts.json" not in read  # the full cache is not parsed for a listing either
    assert lib.resolve("jwt").name == "JWT"  # using it reads the file and its cached data
    assert "jwt.toml" in read
