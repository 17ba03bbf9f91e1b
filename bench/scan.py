"""Benchmark: `lumente scan` over a generated 10,000-file repository, against
reading the same files with `git ls-files | xargs cat > /dev/null` in the same run.

The repository is written once per run (git init + one commit): a web project's
mix of Python and JavaScript/TypeScript modules with their tests, Markdown, JSON
and YAML files, a few lockfiles and a few binary images. Each source file is a
small, plausible module (imports, a class or a few functions, some SQL and HTTP
calls), so the scan parses and matches what a student's project holds, not empty files.

Figures: the whole command in a fresh process (what a student waits for; the
target is under 2 s), the scan alone in-process (the engine, without start-up),
files per second, and the ratio to the `cat` floor.

    python bench/scan.py [--quick]
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # report.py, figures.py, processes.py beside this script
import report
from figures import Figure, repeat
from processes import LUMENTE, clean_env, run

SECTION = "scan"
FILES = 10_000
TARGET_S = 2.0

PYTHON_MODULE = '''"""The {name} service: reads and writes {name} rows."""

from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import dataclass
{extra_import}

log = logging.getLogger(__name__)


@dataclass
class {cls}:
    id: int
    title: str
    owner: str

    def to_json(self) -> str:
        return json.dumps({{"id": self.id, "title": self.title, "owner": self.owner}})


def find_{name}(con: sqlite3.Connection, {name}_id: int) -> {cls} | None:
    row = con.execute("SELECT id, title, owner FROM {name} WHERE id = ?", ({name}_id,)).fetchone()
    return {cls}(*row) if row else None


def list_{name}(con: sqlite3.Connection, owner: str, limit: int = 20) -> list[{cls}]:
    rows = con.execute("SELECT id, title, owner FROM {name} WHERE owner = ? LIMIT ?", (owner, limit))
    return [{cls}(*r) for r in rows]


def save_{name}(con: sqlite3.Connection, item: {cls}) -> None:
    with con:
        con.execute("INSERT INTO {name}(id, title, owner) VALUES (?, ?, ?)", (item.id, item.title, item.owner))
    log.info("saved %s %s", "{name}", item.id)


def summarise(items: list[{cls}]) -> dict[str, int]:
    counts: dict[str, int] = {{}}
    for item in items:
        counts[item.owner] = counts.get(item.owner, 0) + 1
    return counts
'''

PYTHON_TEST = '''from {package}.{name} import {cls}, summarise


def test_summarise_counts_each_owner():
    items = [{cls}(1, "a", "ann"), {cls}(2, "b", "ann"), {cls}(3, "c", "bo")]
    assert summarise(items) == {{"ann": 2, "bo": 1}}


def test_to_json_has_the_title():
    assert '"title": "a"' in {cls}(1, "a", "ann").to_json()
'''

JS_MODULE = '''import express from "express";
import {{ z }} from "zod";
{extra_import}

const router = express.Router();
const {name}Schema = z.object({{ title: z.string(), owner: z.string() }});

// GET one {name} by id
router.get("/{name}/:id", async (req, res) => {{
  const row = await db.query("SELECT * FROM {name} WHERE id = $1", [req.params.id]);
  if (!row) return res.status(404).json({{ error: "not found" }});
  res.json(row);
}});

router.post("/{name}", async (req, res) => {{
  const parsed = {name}Schema.safeParse(req.body);
  if (!parsed.success) return res.status(400).json(parsed.error);
  const saved = await db.insert("{name}", parsed.data);
  res.status(201).json(saved);
}});

export function format{cls}(item) {{
  return `${{item.title}} (${{item.owner}})`;
}}

export default router;
'''

JS_TEST = '''import {{ format{cls} }} from "../src/{name}.js";

describe("{name}", () => {{
  it("formats the title and owner", () => {{
    expect(format{cls}({{ title: "a", owner: "ann" }})).toBe("a (ann)");
  }});
}});
'''

MARKDOWN = '''# {cls}

How {name} works: a short note for the team.

- list them with `GET /{name}`
- create one with `POST /{name}`

See the API docs for the fields.
'''

EXTRA_PY = ["import requests", "import httpx", "from functools import lru_cache", "import threading", "import asyncio",
            "import os", "import hashlib", ""]
EXTRA_JS = ['import axios from "axios";', 'import jwt from "jsonwebtoken";', 'import cors from "cors";', ""]
PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452") + bytes(range(256)) * 8


def write_repository(root: Path, files: int = FILES, seed: int = 7) -> int:
    """A committed git repository of `files` files; returns how many were written."""
    rng = random.Random(seed)
    written = 0

    def put(rel: str, content: str | bytes) -> None:
        nonlocal written
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        written += 1

    put("pyproject.toml", '[project]\nname = "shop"\nversion = "1.0"\ndependencies = ["fastapi", "sqlalchemy", '
                          '"pyjwt", "httpx"]\n\n[project.optional-dependencies]\ntest = ["pytest"]\n')
    put("package.json", '{"name": "shop-web", "dependencies": {"express": "^4.19.0", "zod": "^3.23.0", '
                        '"jsonwebtoken": "^9.0.0", "cors": "^2.8.5"}, "devDependencies": {"jest": "^29.0.0"}}\n')
    put(".gitignore", "node_modules/\n.venv/\n__pycache__/\n")
    put(".github/workflows/ci.yml", "on: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
                                    "      - uses: actions/checkout@v4\n")
    kinds = ["py"] * 35 + ["pytest"] * 10 + ["js"] * 25 + ["jstest"] * 8 + ["md"] * 10 + ["json"] * 8 + ["png"] * 4
    i = 0
    while written < files:
        kind = kinds[i % len(kinds)]
        package = f"pkg{i % 40}"
        name = f"item{i}"
        cls = f"Item{i}"
        if kind == "py":
            put(f"src/{package}/{name}.py", PYTHON_MODULE.format(name=name, cls=cls, extra_import=rng.choice(EXTRA_PY)))
        elif kind == "pytest":
            put(f"tests/{package}/test_{name}.py", PYTHON_TEST.format(package=package, name=name, cls=cls))
        elif kind == "js":
            ext = rng.choice([".js", ".ts", ".jsx"])
            put(f"web/src/{package}/{name}{ext}", JS_MODULE.format(name=name, cls=cls, extra_import=rng.choice(EXTRA_JS)))
        elif kind == "jstest":
            put(f"web/test/{package}/{name}.test.js", JS_TEST.format(name=name, cls=cls))
        elif kind == "md":
            put(f"docs/{package}/{name}.md", MARKDOWN.format(name=name, cls=cls))
        elif kind == "json":
            put(f"web/fixtures/{package}/{name}.json", '{"id": %d, "title": "t%d", "owner": "ann"}\n' % (i, i))
        else:
            put(f"web/public/{package}/{name}.png", PNG)
        i += 1
    git = ["git", "-C", str(root), "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "generated"], check=True)
    return written


def cat_floor(root: Path) -> None:
    subprocess.run("git ls-files -z | xargs -0 cat > /dev/null", shell=True, cwd=root, check=True)


def measure(quick: bool = False) -> list[Figure]:
    from lumente_cli.concepts.library import load_library
    from lumente_cli.scan.engine import scan

    runs, files = (3, 500) if quick else (7, FILES)
    with tempfile.TemporaryDirectory() as tmp:
        repo, home = Path(tmp) / "repo", Path(tmp) / "home"
        repo.mkdir()
        home.mkdir()
        write_repository(repo, files)
        env = clean_env(home)
        library = load_library()
        concepts = [library.resolve(cid) for cid in library.ids()]
        floor = repeat(lambda: cat_floor(repo), runs=runs)
        engine = repeat(lambda: scan(repo, concepts), runs=runs)
        command = [run([*LUMENTE, "scan", str(repo), "--json"], env).ms for _ in range(runs + 1)][1:]
        result = scan(repo, concepts)
    listed = f"{result.files_listed:,} files listed, {result.files_scanned:,} read"
    cat = Figure(SECTION, f"git ls-files | xargs cat > /dev/null ({files:,} files)", "ms", floor,
                 note="the floor: listing and reading every file, nothing else")
    whole = Figure(SECTION, f"lumente scan --json, {files:,}-file repository", "ms", command,
                   note=f"a fresh process, start-up included; {listed}")
    whole.against(cat)
    whole.hold_to(f"< {TARGET_S:g} s", whole.median < TARGET_S * 1000)
    alone = Figure(SECTION, "the scan alone (in-process)", "ms", engine, note=f"{len(result.findings)} concepts found")
    alone.against(cat)
    rate = Figure(SECTION, "files per second, the scan alone", "files/s", [files / (ms / 1000) for ms in engine],
                  higher_is_better=True)
    return [cat, whole, alone, rate]


def main(argv: list[str] | None = None) -> int:
    return report.main_for(SECTION, measure, argv)


if __name__ == "__main__":
    sys.exit(main())
