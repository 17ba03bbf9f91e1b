"""The scan engine on projects written for the test, and on a real third-party tree."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from scan_fixtures import git_repository, node_project, python_project

from lumente_cli.concepts.library import load_library
from lumente_cli.scan.engine import Limits, scan
from lumente_cli.scan.evidence import mask_secrets, snippet


@pytest.fixture(scope="module")
def concepts():
    lib = load_library()
    return [lib.resolve(cid) for cid in lib.ids()]


def by_concept(result):
    return {f.concept: f for f in result.findings}


def lines(finding):
    return {(e.path, e.line) for e in finding.evidence}


def test_the_fastapi_app_shows_jwt_bcrypt_cors_async_and_the_f_string_sql(tmp_path, concepts):
    result = scan(python_project(tmp_path), concepts)
    found = by_concept(result)
    assert {"jwt", "cors", "async_await", "sql_injection", "hashing_vs_encryption", "env_secrets"} <= set(found)
    jwt = found["jwt"]
    assert {("requirements.txt", 2), ("app/main.py", 5), ("app/main.py", 25)} <= lines(jwt)
    assert "depends on a library that signs and checks JWTs" in jwt.reasons
    assert not jwt.risky
    sql = found["sql_injection"]
    assert sql.risky and ("app/main.py", 20) in lines(sql)
    assert any("quokka_orders" in e.snippet for e in sql.evidence)
    assert ("app/main.py", 12) in lines(found["cors"])
    assert ("app/main.py", 18) in lines(found["async_await"])
    assert ("app/main.py", 29) in lines(found["hashing_vs_encryption"])  # bcrypt.hashpw
    # Ranked by evidence: JWT (a dependency, an import and two calls) is above CORS (one file).
    assert found["jwt"].score > found["cors"].score


def test_comments_strings_vendored_binary_huge_and_linked_files_are_not_evidence(tmp_path, concepts):
    result = scan(python_project(tmp_path), concepts)
    paths = {e.path for f in result.findings for e in f.evidence}
    assert paths <= {"app/main.py", "requirements.txt", "broken.py"}
    assert all("redis" not in e.snippet and "celery" not in e.snippet.lower()
               for f in result.findings for e in f.evidence)
    assert "caching" not in by_concept(result)  # `# import redis` and "redis" in a string do not count
    assert result.skipped["too_large"] == 1 and result.skipped["binary"] == 1
    assert result.skipped["symlink"] == 2 and result.listed_by == "walk"


def test_a_file_that_does_not_parse_falls_back_to_line_patterns(tmp_path, concepts):
    (tmp_path / "broken.py").write_text("import jwt\ndef broken(:\n    jwt.encode({}, 'k')\n")
    found = by_concept(scan(tmp_path, concepts))
    assert {("broken.py", 1), ("broken.py", 3)} <= lines(found["jwt"])


def test_the_node_app_shows_jsonwebtoken_and_cors_but_not_commented_or_quoted_requires(tmp_path, concepts):
    result = scan(node_project(tmp_path), concepts)
    found = by_concept(result)
    assert {("package.json", 1), ("server.js", 3), ("server.js", 13)} <= lines(found["jwt"])
    assert {("package.json", 1), ("server.js", 2), ("server.js", 10)} <= lines(found["cors"])
    snippets = " ".join(e.snippet for f in result.findings for e in f.evidence)
    assert "axios" not in snippets and "mongoose" not in snippets and "redis" not in snippets
    assert all(e.line not in (4, 5, 6, 7) for f in result.findings for e in f.evidence if e.path == "server.js")


def test_a_git_repository_is_listed_by_git_so_gitignored_files_are_skipped_and_a_tracked_env_is_risky(
        tmp_path, concepts):
    secret = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e"
    root = git_repository(tmp_path, {
        ".gitignore": "ignored/\n",
        "ignored/tokens.py": "import jwt\n",
        "app.py": "import json\nprint(json.dumps({}))\n",
        ".env": f"# settings\nPAYMENT_API_KEY={secret}\n",
        ".github/workflows/ci.yml": "on: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n",
    })
    (root / "ignored").mkdir(exist_ok=True)
    (root / "ignored" / "tokens.py").write_text("import jwt\n")  # present on disk, ignored by git
    result = scan(root, concepts)
    found = by_concept(result)
    assert result.listed_by == "git" and "jwt" not in found
    env = found["env_secrets"]
    assert env.risky and (".env", 2) in lines(env)
    assert any(e.snippet == "PAYMENT_API_KEY=****" for e in env.evidence)
    assert secret not in json.dumps(result.to_json())
    assert (".github/workflows/ci.yml", 4) in lines(found["ci_cd"])  # dotfolders are scanned


def test_an_untracked_env_file_in_a_repository_is_not_a_committed_secret(tmp_path, concepts):
    root = git_repository(tmp_path, {"app.py": "x = 1\n"})
    (root / ".env").write_text("API_TOKEN=abc123abc123abc123\n")
    found = by_concept(scan(root, concepts))
    assert "commits a .env file to git" not in (found["env_secrets"].reasons if "env_secrets" in found else ())


def test_a_hardcoded_secret_is_located_but_never_shown(tmp_path, concepts):
    (tmp_path / "settings.py").write_text('STRIPE_SECRET_KEY = "rk_live_51HxQv2eZvKYlo2C0abc"\ndebug = True\n')
    result = scan(tmp_path, concepts)
    env = by_concept(result)["env_secrets"]
    assert env.risky and ("settings.py", 1) in lines(env)
    assert "rk_live_51HxQv2eZvKYlo2C0abc" not in json.dumps(result.to_json())


def test_a_template_that_marks_html_safe_is_risky_but_a_pipe_in_plain_text_is_not(tmp_path, concepts):
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "comment.html").write_text("<p>{{ comment.body|safe }}</p>\n")
    (tmp_path / "notes.toml").write_text('words = "fine|okay|ok|safe|harmless"\n')
    xss = by_concept(scan(tmp_path, concepts))["xss"]
    assert xss.risky and lines(xss) == {("templates/comment.html", 1)}


def test_limits_stop_the_scan_and_say_so(tmp_path, concepts):
    for i in range(5):
        (tmp_path / f"m{i}.py").write_text("import jwt\n")
    result = scan(tmp_path, concepts, limits=Limits(max_files=2))
    assert result.stopped == ("files",) and result.files_scanned == 2
    ticks = iter(range(0, 1000, 100))
    timed = scan(tmp_path, concepts, limits=Limits(max_seconds=50), clock=lambda: next(ticks))
    assert "time" in timed.stopped


def test_a_real_third_party_tree_httpx2(tmp_path, concepts):
    """httpx2's own source, as installed in the test venv (copied out of the venv, which
    this checkout's .gitignore would otherwise hide from git ls-files)."""
    import httpx2

    root = tmp_path / "httpx2"
    shutil.copytree(Path(httpx2.__file__).parent, root, ignore=shutil.ignore_patterns("__pycache__"))
    result = scan(root, concepts)
    found = by_concept(result)
    # What a reader of httpx2 finds in it: async clients and transports, JSON bodies,
    # nested helpers, status codes and headers, a TLS context that can be told not to
    # verify, a lock and a thread pool in the websocket client, and SHA-1 in digest auth.
    assert {"async_await", "json_serialisation", "closures", "http", "https_tls", "race_conditions",
            "threads_processes", "hashing_vs_encryption"} <= set(found)
    assert result.findings[0].concept == "async_await"
    assert found["https_tls"].risky and {e.path for e in found["https_tls"].evidence} == {"_config.py"}
    assert any(e.path == "_auth.py" and "hashlib.sha1" in e.snippet for e in found["hashing_vs_encryption"].evidence)
    assert "jwt" not in found and "sql_injection" not in found


def test_snippets_mask_secrets_and_stay_short():
    assert mask_secrets('token = "ghp_abcdefghijklmnop1234"') == 'token = "****"'
    assert mask_secrets("DB_PASSWORD=hunter2", code=False) == "DB_PASSWORD=****"
    assert mask_secrets("token = jwt.encode(payload, key)") == "token = jwt.encode(payload, key)"
    long = snippet("x = " + "a" * 200)
    assert len(long) <= 80 and long.endswith("…")
    assert "\x1b" not in snippet("print('\x1b[31mred')")


def test_a_tree_read_by_forked_workers_finds_what_one_process_finds(tmp_path):
    from lumente_cli.concepts.library import load_default
    from lumente_cli.scan.engine import scan

    lib = load_default()
    concepts = [lib.resolve(i) for i in lib.ids()]
    project = tmp_path / "project"
    project.mkdir()
    for n in range(40):  # enough files for each worker to hold evidence of its own
        (project / f"m{n:02}.py").write_text(f"import json\nimport sqlite3\n\n\ndef f{n}(x):\n    return f{n}(x - 1) if x else json.dumps(x)\n")
    one, two = scan(project, concepts, workers=1), scan(project, concepts, workers=2)
    assert one.findings == two.findings and one.files_scanned == two.files_scanned == 40
    assert {f.concept for f in one.findings} >= {"json_serialisation", "recursion"}
    evidence = next(f for f in two.findings if f.concept == "recursion").evidence
    assert [e.path for e in evidence] == sorted(e.path for e in evidence)  # the earliest files, in path order
