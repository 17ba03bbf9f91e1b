"""The concept library: every shipped file is valid and self-consistent, user files
load and override, broken user files give one clear error, and names resolve."""

from __future__ import annotations

import json
import re
import tomllib
from importlib import resources

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lumente_cli import paths
from lumente_cli.concepts.library import Library, load_default, load_file, load_library, parse_concept
from lumente_cli.concepts.schema import Concept
from lumente_cli.errors import ConceptError
from lumente_cli.parts import PARTS
from lumente_cli.text import slug

REQUIRED = {
    "jwt", "oauth", "cors", "hashing_vs_encryption", "closures", "recursion", "async_await",
    "rest", "sql_injection", "big_o", "caching", "race_conditions", "idempotency",
}


def shipped_files() -> list[tuple[str, bytes]]:
    root = resources.files("lumente_cli.concepts") / "library"
    return sorted((e.name, e.read_bytes()) for e in root.iterdir() if e.name.endswith(".toml"))


SHIPPED = shipped_files()
LIBRARY = load_library()
PART_CASES = [
    pytest.param(cid, key, id=f"{cid}.{key}") for cid in LIBRARY.ids() for key in PARTS
]


def part_of(cid: str, key: str):
    return LIBRARY.concepts[cid].concept.part(key)


JWT_TEXT = dict(SHIPPED)["jwt.toml"].decode()


# --- the shipped library -----------------------------------------------------------


def test_library_has_the_curated_concepts() -> None:
    assert len(SHIPPED) >= 13
    assert REQUIRED <= set(LIBRARY.ids())
    assert not LIBRARY.problems


@pytest.mark.parametrize("name,raw", SHIPPED, ids=[n for n, _ in SHIPPED])
def test_shipped_file_validates_and_id_matches_file_name(name: str, raw: bytes) -> None:
    concept = parse_concept(raw, f"library/{name}", expected_id=name.removesuffix(".toml"))
    assert concept.id == name.removesuffix(".toml")
    data = tomllib.loads(raw.decode())
    assert [k for k in data if k in PARTS] == list(PARTS), "parts in map order"


@pytest.mark.parametrize("name,raw", SHIPPED, ids=[n for n, _ in SHIPPED])
def test_shipped_file_names_its_sources(name: str, raw: bytes) -> None:
    first = raw.decode().splitlines()[0]
    assert first.startswith("#")
    assert re.search(r"sources checked", raw.decode()[:600], re.I), f"{name}: name the sources checked at the top"


def test_names_and_aliases_are_unambiguous() -> None:
    owner: dict[str, str] = {}
    for cid in LIBRARY.ids():
        c = LIBRARY.concepts[cid].concept
        for name in {cid, slug(c.name), slug(c.full_name or ""), *(slug(a) for a in c.aliases)} - {""}:
            assert owner.setdefault(name, cid) == cid, f"{name!r} names both {owner[name]} and {cid}"


# --- user files -----------------------------------------------------------------------


def user_dir():
    directory = paths.current().user_concepts_dir
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def test_user_files_load_and_override_the_library() -> None:
    d = user_dir()
    (d / "jwt.toml").write_text(re.sub(r'^summary = ".*"$', 'summary = "My own JWT summary: a token"', JWT_TEXT, count=1,
                                       flags=re.M))
    (d / "my_topic.toml").write_text(
        JWT_TEXT.replace('id = "jwt"', 'id = "my_topic"').replace('name = "JWT"', 'name = "My topic"')
        .replace('aliases = ["json web token", "jwts", "json web tokens"]', "aliases = []")
        .replace('full_name = "JSON Web Token"', 'full_name = "My very own topic"')
    )
    lib = load_default()
    assert not lib.problems
    assert lib.concepts["jwt"].origin == "user"
    assert lib.concepts["jwt"].concept.summary.startswith("My own JWT summary")
    assert lib.concepts["my_topic"].origin == "user"
    assert lib.resolve("My topic").id == "my_topic"
    assert lib.concepts["oauth"].origin == "library"


def _replace(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def _swap_parts(text: str) -> str:
    return text.replace("[supraordinate]", "[@@]").replace("[coordinate]", "[supraordinate]").replace("[@@]", "[coordinate]")


MALFORMED = [
    pytest.param("jwt.toml", _replace(JWT_TEXT, 'name = "JWT"', 'name = JWT').encode(), ["TOML", "line", "name"], id="bad-toml"),
    pytest.param(
        "jwt.toml",
        re.sub(r'(\[coordinate\][\s\S]*?)reference = """', r'\1notes = """', JWT_TEXT, count=1).encode(),
        ["coordinate.notes", "unknown field"],
        id="unknown-field",
    ),
    pytest.param(
        "jwt.toml",
        re.sub(r'(\[coordinate\][\s\S]*?)reference = """[\s\S]*?"""\n', r"\1", JWT_TEXT, count=1).encode(),
        ["coordinate.reference", "required"],
        id="missing-field",
    ),
    pytest.param("jwt.toml", _swap_parts(JWT_TEXT).encode(), ["'coordinate'", "map order"], id="wrong-part-order"),
    pytest.param("jwt.toml", _replace(JWT_TEXT, 'id = "jwt"', 'id = "JWT Token!"').encode(), ["field id", "lowercase"], id="bad-id"),
    pytest.param("other.toml", JWT_TEXT.encode(), ["'id'", "'jwt'", "'other'"], id="id-file-mismatch"),
    pytest.param(
        "jwt.toml", _replace(JWT_TEXT, 'name = "JWT"', 'name = "JW\xff"').encode("latin-1"), ["UTF-8", "name"], id="not-utf8"
    ),
    pytest.param(
        "jwt.toml",
        re.sub(r"hints = \[[\s\S]*?\]\n", 'hints = ["one", "two"]\n', JWT_TEXT, count=1).encode(),
        ["supraordinate.hints", "at least 3"],
        id="too-few-hints",
    ),
    pytest.param(
        "jwt.toml", re.sub(r"\n\s*required = true", "", JWT_TEXT).encode(), ["required = true", "bigger class"],
        id="category-not-required",
    ),
    pytest.param(
        "jwt.toml", re.sub(r"names = \[", 'names = ["two words!!", ', JWT_TEXT, count=1).encode(), ["names", "phrasing"],
        id="bad-names-phrasing",
    ),
    pytest.param(
        "jwt.toml", re.sub(r'(\[\[coordinate\.confusions\]\])', r'\1\n  core = "maybe"', JWT_TEXT, count=1).encode(),
        ["core", "boolean"], id="bad-core-flag",
    ),
    pytest.param(
        "jwt.toml",
        re.sub(r'(\[\[supraordinate\.key_points\]\][\s\S]*?accept = \[)', r'\1"to ken!!", ', JWT_TEXT, count=1).encode(),
        ["supraordinate.key_points[0].accept", "phrasing"],
        id="bad-phrasing",
    ),
    pytest.param("jwt.toml", b"", ["field id", "required"], id="empty"),
    pytest.param("jwt.toml", b"id = " + b"[" * 5000, ["TOML"], id="nested-too-deep"),
]


@pytest.mark.parametrize("file_name,raw,expected", MALFORMED)
def test_malformed_user_file_names_the_file_and_the_field(file_name: str, raw: bytes, expected: list[str]) -> None:
    path = user_dir() / file_name
    path.write_bytes(raw)
    with pytest.raises(ConceptError) as caught:
        load_file(path)
    message = caught.value.message
    assert str(path) in message
    for fragment in expected:
        assert fragment.lower() in message.lower(), f"{fragment!r} not in {message!r}"
    # Through the library the problem is reported and the rest keeps working.
    lib = load_default()
    assert any(str(path) in problem for problem in lib.problems)
    assert lib.concepts["jwt"].origin == "library"
    assert REQUIRED <= set(lib.ids())


def test_unreadable_user_file_is_a_concept_error() -> None:
    (user_dir() / "folder.toml").mkdir()
    with pytest.raises(ConceptError) as caught:
        load_file(user_dir() / "folder.toml")
    assert "folder.toml" in caught.value.message
    assert any("folder.toml" in p for p in load_default().problems)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400))
def test_any_bytes_give_a_concept_or_a_concept_error(raw: bytes) -> None:
    try:
        parse_concept(raw, "fuzz.toml")
    except ConceptError as exc:
        assert exc.message.startswith("concept file fuzz.toml:")


LINES = JWT_TEXT.splitlines(keepends=True)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, len(LINES) - 1), st.integers(0, 3), st.sampled_from(["", "x", '"', "[", "= 1", "\x00"]))
def test_damaged_concept_files_never_raise_anything_else(line: int, drop: int, insert: str) -> None:
    text = "".join(LINES[:line]) + insert + "".join(LINES[line + drop :])
    try:
        concept = parse_concept(text.encode(), "damaged.toml", expected_id="jwt")
    except ConceptError as exc:
        assert "damaged.toml" in exc.message
    else:
        assert isinstance(concept, Concept)


# --- resolving names ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,cid",
    [
        ("jwt", "jwt"),
        ("JWT", "jwt"),
        ("JSON Web Token", "jwt"),
        ("Hashing vs. Encryption", "hashing_vs_encryption"),
        ("hashing versus encryption", "hashing_vs_encryption"),
        ("async-await", "async_await"),
        ("Async/Await", "async_await"),
        ("  big   O ", "big_o"),
        ("Big-O notation", "big_o"),
        ("OAuth 2.0", "oauth"),
        ("Cross-Origin Resource Sharing", "cors"),
        ("SQL-Injection", "sql_injection"),
        ("SQLi", "sql_injection"),
        ("race condition", "race_conditions"),
        ("RESTful", "rest"),
        ("idempotent", "idempotency"),
        ("closure", "closures"),
        ("Recursive functions", "recursion"),
        ("cache", "caching"),
    ],
)
def test_resolve_by_id_name_alias_and_variants(name: str, cid: str) -> None:
    assert LIBRARY.resolve(name).id == cid


@pytest.mark.parametrize("typo,suggested", [("recursoin", "recursion"), ("idempotensy", "idempotency"), ("closurs", "closures"), ("oauht", "oauth")])
def test_unknown_name_suggests_close_concepts(typo: str, suggested: str) -> None:
    with pytest.raises(ConceptError) as caught:
        LIBRARY.resolve(typo)
    assert typo in caught.value.message
    assert suggested in (caught.value.hint or "")


def test_unknown_name_without_near_match_points_at_the_list() -> None:
    with pytest.raises(ConceptError) as caught:
        Library(dict(LIBRARY.concepts)).resolve("quantum teleportation")
    assert "lumente concepts" in (caught.value.hint or "")


def test_the_list_is_grouped_by_area_fits_80_columns_and_shows_levels_once_practised():
    from helpers import lumente, solid_script

    from lumente_cli import paths as paths_mod

    before = lumente("concepts", env={"COLUMNS": "80"})
    assert before.exit_code == 0
    lines = before.stdout.splitlines()
    assert "Security" in lines and "Web and HTTP" in lines
    assert all(len(line) <= 80 and line == line.rstrip() for line in lines)
    assert "levels" not in before.stdout
    assert not paths_mod.current().database.exists()  # listing created nothing
    assert lumente("practice", "jwt", "--no-memory", input=solid_script(6)).exit_code == 0
    after = lumente("concepts", "--json")
    jwt = next(c for c in json.loads(after.stdout)["concepts"] if c["id"] == "jwt")
    assert jwt["area"] == "security" and jwt["links"] and set(jwt["levels"]) == set(PARTS)
    assert "levels 3 3 3 3" in " ".join(lumente("concepts").stdout.split())
    shown = lumente("concepts", "show", "jwt")
    assert "Practise next to it:" in shown.stdout and "lumente practice oauth" in " ".join(shown.stdout.split())


def test_practising_a_concept_whose_own_file_is_broken_names_the_file_and_the_field():
    from helpers import lumente

    d = user_dir()
    (d / "event_sourcing.toml").write_text(JWT_TEXT.replace('id = "jwt"', 'id = "event_sourcing"').replace(
        'name = "JWT"', 'name = "Event sourcing"').replace("summary =", "summery =", 1))
    r = lumente("practice", "event_sourcing", input="4\n")
    assert r.exit_code == 2
    assert "event_sourcing.toml" in r.stderr and "summery" in r.stderr and "unknown concept" not in r.stderr
    assert "concepts check" in r.stderr
    checked = lumente("concepts", "check", str(d / "event_sourcing.toml"))
    assert checked.exit_code == 2 and "summery" in checked.stderr


def test_the_schema_accepts_exactly_the_areas_the_list_groups_by():
    from typing import get_args

    from lumente_cli.concepts.areas import AREA_TITLES
    from lumente_cli.concepts.schema import Area

    assert get_args(Area) == tuple(AREA_TITLES)
