"""The one TOML writer (concept files and the config file): whatever goes in comes back out of tomllib."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lumente_cli.toml_writer import TomlWriteError, basic_string, dumps

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=120)
keys = st.text(
    st.characters(min_codepoint=32, max_codepoint=0x2FFF, blacklist_categories=("Cs",)), min_size=1, max_size=12
)
scalars = st.one_of(text, st.integers(-(2**63), 2**63 - 1), st.booleans(), st.lists(text, max_size=4))
tables = st.recursive(
    st.dictionaries(keys, scalars, max_size=4),
    lambda inner: st.dictionaries(
        keys, st.one_of(scalars, inner, st.lists(inner, min_size=1, max_size=3)), max_size=4
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(tables)
def test_round_trip(data):
    assert tomllib.loads(dumps(data)) == data


@settings(max_examples=300, deadline=None)
@given(text)
def test_any_string_round_trips(value):
    assert tomllib.loads(dumps({"s": value, "t": {"s": value}}))["t"]["s"] == value


@settings(max_examples=300, deadline=None)
@given(text)
def test_a_basic_string_stays_on_one_line_and_round_trips(value):
    written = basic_string(value)
    assert "\n" not in written and "\r" not in written  # the config file writes one value per line
    assert tomllib.loads(f"k = {written}")["k"] == value


@pytest.mark.parametrize(
    "value",
    ['"', '""', '"""', '""""', '"""""', 'a"""b', '\\', '\\\n', 'x\\', '\n', '\r\n', '\r', '\x7f', '\x00', "\t", "é🎉"],
)
def test_edge_strings(value):
    long = value * 50 + "\nline two\n" + value  # has a line break: written as a multi-line string
    data = {"a": value, "b": long, "c": [value, long]}
    assert tomllib.loads(dumps(data)) == data


def test_none_is_left_out_and_header_is_a_comment():
    out = dumps({"a": None, "b": 1}, header="line one\nline two")
    assert out.startswith("# line one\n# line two\n")
    assert tomllib.loads(out) == {"b": 1}


def test_lone_surrogates_are_refused():
    with pytest.raises(TomlWriteError):
        dumps({"a": "bad \ud800"})
