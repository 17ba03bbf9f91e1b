"""docs/json.md against what the commands really print: every key a section documents
appears in the real output, and every key the output has is documented in its section."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers import lumente, solid_script

DOC = (Path(__file__).resolve().parent.parent / "docs" / "json.md").read_text("utf-8")
# Keys written as JSON ("key": ...) or as a brace list of names ({"a", "b"}).
_KEY = re.compile(r'"([a-z_]+)"\s*:')
_BRACE_LIST = re.compile(r'\{("[a-z_]+"(?:,\s*"[a-z_]+")*)\}')


def section(heading: str) -> str:
    start = DOC.index(f"## `{heading}")
    end = DOC.find("\n## ", start + 1)
    return DOC[start : end if end != -1 else len(DOC)]


def documented(heading: str) -> set[str]:
    text = section(heading)
    listed = {name for group in _BRACE_LIST.findall(text) for name in re.findall(r'"([a-z_]+)"', group)}
    return set(_KEY.findall(text)) | listed


def keys(value: Any) -> set[str]:
    """Every key anywhere in the document."""
    out: set[str] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            out |= keys(v)
    elif isinstance(value, list):
        for item in value:
            out |= keys(item)
    return out


def output(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    r = lumente(*args, env=env)
    assert r.exit_code in (0, 1, 4), r.stderr  # doctor exits 1 when a check fails, sync 4 while facts wait
    return json.loads(r.stdout)


COMMANDS = [
    ("lumente concepts --json", ("concepts", "--json")),
    ("lumente concepts check FILE --json",
     ("concepts", "check", str(Path(__file__).resolve().parent.parent / "lumente_cli/concepts/library/jwt.toml"), "--json")),
    ("lumente progress [CONCEPT] --json", ("progress", "--json")),
    ("lumente config path --json", ("config", "path", "--json")),
    ("lumente whoami --json", ("whoami", "--json")),
    ("lumente memory show [CONCEPT] [--as-of TIME] --json", ("memory", "show", "--json")),
    ("lumente memory history [CONCEPT] [--part PART] --json", ("memory", "history", "--json")),
    ("lumente memory sync --json", ("memory", "sync", "--json")),
    ("lumente doctor --json", ("doctor", "--json")),
    ("lumente config show --json", ("config", "show", "--json")),
    ("lumente path --json", ("path", "--json")),
    ("lumente memory forget --yes --json", ("memory", "forget", "--yes", "--json")),
]


@pytest.fixture()
def practised():
    for prediction in (4, 6):
        assert lumente("practice", "jwt", input=solid_script(prediction)).exit_code == 0
    # and a `lumente check` round, so progress has a check round to print
    assert lumente("check", "jwt", input="5\nnone\n").exit_code == 0


@pytest.mark.parametrize(("heading", "args"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_each_documented_json_shape_matches_the_real_output(practised, heading: str, args: tuple[str, ...]):
    env = None
    if args[:2] == ("memory", "sync"):
        # a session whose facts could not be delivered, so sync has a scope with an error to report
        env = {"LUMENTE_MEMORY_URL": "http://127.0.0.1:9"}
        assert lumente("practice", "jwt", input=solid_script(5), env=env).exit_code == 0
    real = keys(output(*args, env=env))
    doc = documented(heading)
    if args[:2] == ("memory", "history"):  # "Rows have the same shape as in memory show"
        doc |= documented("lumente memory show") - {"as_of", "facts"}
    assert doc, f"docs/json.md documents no keys for {heading}"
    assert not doc - real, f"documented but not printed: {sorted(doc - real)}"
    assert not real - doc, f"printed but not documented: {sorted(real - doc)}"


def test_path_names_come_in_the_documented_order():
    listed = re.search(r"`paths`: (.*?), in that order", section("lumente path --json"), re.S).group(1)
    assert [p["name"] for p in output("path", "--json")["paths"]] == re.findall(r"`([a-z_]+)`", listed)


def test_doctor_checks_come_in_the_documented_order():
    listed = re.search(r"`checks`: in this order, (.*?)\. The", section("lumente doctor --json"), re.S).group(1)
    assert [c["name"] for c in output("doctor", "--json")["checks"]] == re.findall(r"`([a-z_]+)`", listed)
