"""The text pre-pass that lets a Python file go unparsed: it may only skip files whose
syntax tree could show nothing, so each signal that needs syntax is still found, and
what it skips, it skips on the real library's detection data."""

from __future__ import annotations

import pytest

from lumente_cli.concepts.library import load_default
from lumente_cli.scan.detectors import compile_detectors
from lumente_cli.scan.engine import scan
from lumente_cli.scan.needles import words_of
from lumente_cli.scan.python_prepass import needs_syntax


@pytest.fixture(scope="module")
def concepts():
    lib = load_default()
    return [lib.resolve(i) for i in lib.ids()]


@pytest.fixture(scope="module")
def detectors(concepts):
    return compile_detectors(concepts)


def parsed(text: str, detectors) -> bool:
    return not text.isascii() or needs_syntax(text, words_of(text), detectors.python_words, detectors.code)


# Each file's only signal is one the syntax tree shows: the pre-pass must let it be parsed.
SYNTAX_ONLY = {
    "recursion": "def walk(n):\n    return walk(n - 1) if n else 0\n",
    "closures": "def counter():\n    count = 0\n\n    def bump():\n        return count + 1\n    return bump\n",
    "async_await": "async def handler(request):\n    return request\n",
    "json_serialisation": "import json as j\n\n\ndef dump(x):\n    return j.dumps(x)\n",
    "env_secrets": 'CONFIG = {"api_" "key": "sk-abcdefghijklmnop1234"}\n',
    "race_conditions": "from threading import Lock as L\n\nguard = L()\n",
    "sql_injection": 'def find(cur, name):\n    q = "SELECT * FROM t WHERE name = \'%s\'" % name\n    return cur.execute(q)\n',
}


@pytest.mark.parametrize("concept", sorted(SYNTAX_ONLY))
def test_a_signal_only_the_syntax_shows_is_still_found(tmp_path, concepts, detectors, concept):
    source = SYNTAX_ONLY[concept]
    assert parsed(source, detectors)
    (tmp_path / "module.py").write_text(source)
    assert concept in {f.concept for f in scan(tmp_path, concepts).findings}


def test_a_nested_function_is_seen_through_its_indentation_and_a_lambda(detectors):
    assert parsed("def outer():\n    def inner():\n        pass\n", detectors)
    assert parsed("def outer(x):\n    return sorted(x, key=lambda v: v)\n", detectors)
    # A method after a function looks nested to the text alone: parsed. Before it, it does not.
    assert parsed("def area():\n    pass\n\n\nclass Box:\n    def size(self):\n        pass\n", detectors)
    assert not parsed("class Box:\n    def size(self):\n        pass\n\n\ndef area():\n    pass\n", detectors)


def test_names_that_need_no_syntax_leave_a_file_unparsed(detectors):
    assert not parsed("from .models import Item\n\n\ndef test_item():\n    assert Item(1).id == 1\n", detectors)
    assert not parsed('TITLE = \'"quoted" title\'\n', detectors)  # quotes that join no secret's name
    assert parsed('x = "to" "ken"\n', detectors)  # a name in pieces
    assert parsed("x = '\\x74oken'\n", detectors)  # escapes: always parsed
    assert parsed("import ｊwt\n", detectors)  # not ASCII: identifiers are normalised
    assert parsed("import jwtx\nimport jwt\n", detectors)
    assert not parsed("import jwtx\n", detectors)


def test_the_words_come_from_the_detection_data(concepts):
    without_recursion = compile_detectors([c for c in concepts if c.id != "recursion"])
    source = "def walk(n):\n    return walk(n - 1)\n"
    assert needs_syntax(source, words_of(source), compile_detectors(concepts).python_words, ["self_call"])
    assert not needs_syntax(source, words_of(source), without_recursion.python_words, without_recursion.code)
