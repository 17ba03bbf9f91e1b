"""`lumente doctor`: every check Lumente can make without changing anything.

Each check returns one or more `Check`s: a name, a status (ok, warn, fail), one
line of detail and, for a problem, one line saying how to fix it. A check never
raises: whatever goes wrong inside becomes a failing check. Doctor reads; it
creates no file (a database or secret that does not exist yet is reported, not
made), and it never prints a secret.

Status: `fail` means Lumente cannot work as configured (or your data is at
risk); `warn` means it works but something deserves a look (e.g. facts waiting
in the outbox). Only failures make `lumente doctor` exit 1.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from lumente_cli import paths as paths_mod
from lumente_cli import settings as settings_mod
from lumente_cli.errors import LumenteError

if TYPE_CHECKING:
    from lumente_cli.memory.backend import MemoryBackend

Status = Literal["ok", "warn", "fail"]
MIN_PYTHON = (3, 11)


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str
    fix: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return asdict(self)


def ok(name: str, detail: str) -> Check:
    return Check(name, "ok", detail)


def warn(name: str, detail: str, fix: str) -> Check:
    return Check(name, "warn", detail, fix)


def fail(name: str, detail: str, fix: str) -> Check:
    return Check(name, "fail", detail, fix)


@dataclass
class Context:
    paths: paths_mod.Paths
    settings: settings_mod.Settings
    config_broken: bool
    verbose: bool = False
    online: bool = False  # spend one small Claude request to check the key and the model


def run_checks(*, verbose: bool = False, online: bool = False) -> list[Check]:
    p = paths_mod.current()
    results: list[Check] = []
    try:
        settings = settings_mod.load()
        broken = False
    except LumenteError:
        broken = True
        try:  # carry on with the defaults and the environment, so the other checks still run
            settings = settings_mod.load(use_file=False)
        except LumenteError:
            settings = settings_mod.load(environ={}, use_file=False)
    ctx = Context(p, settings, broken, verbose, online)
    for name, check in CHECKS:
        try:
            results.extend(check(ctx))
        except Exception as exc:  # noqa: BLE001 - a check must never take doctor down with it
            results.append(fail(name, f"the check itself failed ({type(exc).__name__}: {exc}).",
                                "This is a bug in Lumente; run with LUMENTE_DEBUG=1 and report it."))
            if os.environ.get("LUMENTE_DEBUG"):
                import traceback

                traceback.print_exc()
    return results


# ---------------------------------------------------------------- the checks


def check_python(ctx: Context) -> Iterable[Check]:
    version = ".".join(str(n) for n in sys.version_info[:3])
    detail = f"Python {version}" + (f" ({sys.executable})" if ctx.verbose else "")
    if sys.version_info[:2] < MIN_PYTHON:
        yield fail("python", detail + f"; Lumente needs {'.'.join(map(str, MIN_PYTHON))} or newer.",
                   "Install Lumente with a newer Python, e.g. `pipx install --python python3.11 lumente`.")
    else:
        yield ok("python", detail)


def _writable(path: Path) -> tuple[bool, str]:
    """Whether Lumente can write in `path`, creating it if needed."""
    if path.exists():
        if not path.is_dir():
            return False, f"{path} is not a folder"
        if not os.access(path, os.W_OK | os.X_OK):
            return False, f"{path} is not writable"
        return True, f"{path}"
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if parent.is_dir() and os.access(parent, os.W_OK | os.X_OK):
        return True, f"{path} (created when first needed)"
    return False, f"{path} cannot be created ({parent} is not writable)"


def check_dirs(ctx: Context) -> Iterable[Check]:
    for name, path in (("config_dir", ctx.paths.config_dir), ("data_dir", ctx.paths.data_dir)):
        good, detail = _writable(path)
        mode = stat.S_IMODE(path.stat().st_mode) if path.is_dir() else 0
        if good and mode & 0o077:
            yield warn(name, f"{path} is open to others (mode {mode:04o}); it holds your answers and secret.",
                       f"Close it: `chmod 700 {path}` (the next lumente command that writes there also does).")
        elif good:
            yield ok(name, f"writable: {detail}")
        else:
            yield fail(name, detail + ".",
                       f"Make it writable (`chmod u+rwx {path}`), or point LUMENTE_HOME at a folder you own.")


def check_config(ctx: Context) -> Iterable[Check]:
    path = ctx.paths.config_file
    if ctx.config_broken:
        try:
            settings_mod.read_config_file(path)
            problem = None
        except LumenteError as exc:
            problem = exc.message
        if problem is not None:
            yield fail("config", problem,
                       f"Edit {path} (`lumente config show` lists the settings), or move it aside to use the defaults.")
            return
        # The file is fine; an environment variable is not.
    env_problem = _env_problem()
    if env_problem:
        yield fail("config", env_problem, "Fix or unset that environment variable.")
        return
    if not path.exists():
        yield ok("config", f"no config file yet ({path}); defaults and environment variables apply.")
        return
    mode = stat.S_IMODE(path.stat().st_mode)
    count = sum(1 for v in ctx.settings.values.values() if v.source == "config")
    if mode & 0o077:
        yield fail("config", f"{path} is readable by others (mode {mode:04o}); it may hold API keys.",
                   f"chmod 600 {path}")
        return
    yield ok("config", f"{path} is valid ({count} setting{'s' if count != 1 else ''} set, mode 0600).")


def _env_problem() -> str | None:
    try:
        settings_mod.load(use_file=False)
    except LumenteError as exc:
        return exc.message
    return None


def check_database(ctx: Context) -> Iterable[Check]:
    from lumente_cli.store.migrations import MIGRATIONS
    from lumente_cli.store.condition import database_condition
    from lumente_cli.store.readonly import connect_read_only

    path = ctx.paths.database
    if not path.exists():
        yield ok("database", f"not created yet ({path}); your first practice session creates it.")
        return
    moved = "Move the file aside (Lumente starts a fresh one) or restore it from a backup."
    try:
        con = connect_read_only(path)
    except sqlite3.Error as exc:
        yield fail("database", f"{path} cannot be opened ({exc}).", "Check the file's permissions.")
        return
    try:
        condition = database_condition(con)
    except sqlite3.DatabaseError as exc:
        yield fail("database", f"{path} is damaged or not a Lumente database ({exc}).", moved)
        return
    finally:
        con.close()
    if not condition.intact:
        yield fail("database", f"{path} failed its integrity check: {'; '.join(condition.integrity)[:300]}.", moved)
        return
    version, known = condition.schema_version, len(MIGRATIONS)
    if version > known:
        yield fail("database", f"{path} has schema {version}, newer than this Lumente knows ({known}).",
                   "Upgrade Lumente (`pip install --upgrade lumente`).")
        return
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        yield fail("database", f"{path} is readable by others (mode {mode:04o}); it holds your answers.",
                   f"chmod 600 {path}")
        return
    size = f", {path.stat().st_size // 1024} KB" if ctx.verbose else ""
    journal = condition.journal_mode
    detail = f"{path}: integrity ok, schema {version} of {known}, journal {journal}{size}"
    if journal.lower() != "wal":
        yield warn("database", detail + " (expected WAL).", "Any `lumente` command that writes turns WAL back on.")
    elif version < known:
        yield warn("database", detail + " (older schema).", "The next `lumente practice` migrates it.")
    else:
        yield ok("database", detail + ".")


def check_outbox(ctx: Context) -> Iterable[Check]:
    from lumente_cli.store.condition import outbox_state
    from lumente_cli.store.readonly import connect_read_only

    path = ctx.paths.database
    if not path.exists():
        yield ok("outbox", "empty (no database yet).")
        return
    try:
        con = connect_read_only(path)
        try:
            outbox = outbox_state(con)
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        yield fail("outbox", f"cannot be read ({exc}).", "See the database check above.")
        return
    if outbox.pending == 0:
        yield ok("outbox", "empty: every memory fact is delivered.")
        return
    why = f" (last error: {outbox.last_error})" if outbox.last_error else ""
    yield warn("outbox", f"{outbox.pending} memory fact{'s' if outbox.pending != 1 else ''} waiting to be "
                         f"delivered{why}.",
               "Run `lumente memory sync` (the next practice session also retries them).")


def check_memory(ctx: Context) -> Iterable[Check]:
    from lumente_cli.memory.backend import from_settings

    backend = from_settings(ctx.settings, ctx.paths)
    off_fix = "Or turn memory off: `lumente config set memory off`."
    if backend.kind == "off":
        yield ok("memory", "off (sessions work the same, with no remarks about earlier sessions).")
        return
    if backend.kind == "embedded":
        db = ctx.paths.memory_database
        if not db.exists():
            yield ok("memory", f"embedded; not created yet ({db}); the first session that remembers creates it.")
            return
        from lumente_cli.agent_memory.client import MemoryError

        start = time.perf_counter()
        try:
            client = backend.client()
            healthy = client.health()
            scopes = client.list_scopes()
        except MemoryError as exc:
            yield fail("memory", f"embedded memory at {db} cannot be used: {exc.message}.",
                       f"Move {db} aside (Lumente starts a fresh one; what it remembered is lost). {off_fix}")
            return
        finally:
            backend.close()
        ms = (time.perf_counter() - start) * 1000
        if not healthy:
            yield fail("memory", f"embedded memory at {db} does not answer its health check.",
                       f"Move {db} aside to start fresh. {off_fix}")
            return
        yield ok("memory", f"embedded at {db}: healthy, {len(scopes)} scope{'s' if len(scopes) != 1 else ''}, "
                           f"{ms:.0f} ms.")
        return
    yield from _check_remote(backend)


def _check_remote(backend: MemoryBackend) -> Iterable[Check]:
    from lumente_cli.agent_memory.client import REMOTE_TIMEOUT_S, MemoryAuthError, MemoryError, MemoryForbidden
    from lumente_cli.text import redact_url

    url, context, api_key = backend.url, backend.context, backend.api_key
    shown = redact_url(url)  # a password or token in the URL is never printed
    try:
        client = backend.client()
        start = time.perf_counter()
        try:
            client.check_health(deadline=time.monotonic() + REMOTE_TIMEOUT_S)
        except MemoryError as exc:
            ms = (time.perf_counter() - start) * 1000
            if exc.status:
                yield fail("memory", f"remote memory at {shown}: GET /api/v1/health answered {exc.status} "
                                     f"after {ms:.0f} ms ({exc.reason.replace(url, shown)}).",
                           "Check memory_url points at an Agent Memory service (`lumente config show`).")
            else:
                yield fail("memory", f"remote memory at {shown} is unreachable: {exc.reason.replace(url, shown)}.",
                           "Check memory_url (`lumente config show`) and that the service is running "
                           "(`lumente memory serve` for a local one), or `lumente config unset memory_url` "
                           "for embedded memory.")
            return
        ms = (time.perf_counter() - start) * 1000
        try:
            scopes = client.list_scopes(deadline=time.monotonic() + REMOTE_TIMEOUT_S)
        except (MemoryAuthError, MemoryForbidden) as exc:
            have = "is set" if api_key else "is not set"
            yield fail("memory", f"remote memory at {shown} is up ({ms:.0f} ms) but refused an authenticated read "
                                 f"(memory_api_key {have}): {exc.message}.",
                       "Set a valid key: `lumente config set memory_api_key` (or LUMENTE_MEMORY_API_KEY).")
            return
        except MemoryError as exc:
            yield fail("memory", f"remote memory at {shown} is up ({ms:.0f} ms) but reading scopes failed: "
                                 f"{exc.message}.",
                       f"Check memory_context ({context!r}) and the service's logs.")
            return
    finally:
        backend.close()
    yield ok("memory", f"remote at {shown} (context {context}): healthy in {ms:.0f} ms; the key can read "
                       f"({len(scopes)} scope{'s' if len(scopes) != 1 else ''}).")


def check_learner(ctx: Context) -> Iterable[Check]:
    from lumente_cli.memory.pseudonym import MIN_SECRET_BYTES, pseudonym

    secret = ctx.paths.secret
    sign_in = ctx.settings["sign_in"]
    who = f"sign-in from {ctx.settings.values['sign_in'].source}" if sign_in else "sign-in: your OS user name"
    if not secret.exists():
        yield warn("learner", f"no learner secret yet ({secret}); {who}.",
                   "`lumente login <id>` (or your first practice session) creates it.")
        return
    mode = stat.S_IMODE(secret.stat().st_mode)
    data = secret.read_bytes()
    if len(data) < MIN_SECRET_BYTES:
        yield fail("learner", f"{secret} is too short to be a secret Lumente made.",
                   "Restore it from a backup; deleting it gives you a new pseudonym (memory will not know you).")
        return
    if mode & 0o077:
        yield fail("learner", f"{secret} is readable by others (mode {mode:04o}).", f"chmod 600 {secret}")
        return
    pseudo = pseudonym(data, sign_in)
    yield ok("learner", f"pseudonym {pseudo} ({who}); secret {secret} is mode 0600.")


def check_provider(ctx: Context) -> Iterable[Check]:
    from lumente_cli.agents.factory import chosen_provider, model_of

    s = ctx.settings
    choice = s["provider"]
    key = s.values["anthropic_api_key"]
    if chosen_provider(s, None) == "offline":
        why = "provider is offline" if choice == "offline" else "no ANTHROPIC_API_KEY is set"
        yield ok("provider", f"offline agents ({why}); sessions work without Claude.")
        return
    if not key.value:
        yield fail("provider", "provider is claude but no API key is set.",
                   "Set ANTHROPIC_API_KEY, or `lumente config set anthropic_api_key`, or "
                   "`lumente config set provider auto`.")
        return
    where = f"environment variable {key.setting.env}" if key.source == "env" else "the config file"
    model = model_of(s)
    if not ctx.online:
        yield ok("provider", f"claude, model {model} (API key set in {where}; not checked online: "
                             "`lumente doctor --online` spends one small request to check it).")
        return
    yield from _check_claude_online(key.value, model)


def _check_claude_online(api_key: str, model: str) -> Iterable[Check]:
    """One minimal request with the settings a session uses: the key, the model, an effort."""
    from lumente_cli.agents.claude import make_anthropic_client
    from lumente_cli.agents.claude.failures import describe_api_error
    from lumente_cli.agents.factory import deprecation_warning

    effort = "low"
    client = make_anthropic_client(api_key=api_key)
    started = time.perf_counter()
    try:
        client.messages.create(model=model, max_tokens=16, output_config={"effort": effort},
                               messages=[{"role": "user", "content": "Reply with the single word: ok"}])
    except Exception as exc:  # SDK errors are described; anything else is a bug below
        failure = describe_api_error(exc, model=model)
        if failure is None:
            raise
        text = failure.cause.replace(api_key, "[redacted]") if api_key else failure.cause
        yield fail("provider", f"claude, model {model}: {text}.", failure.hint or "Check the key and the model.")
        return
    ms = (time.perf_counter() - started) * 1000
    yield ok("provider", f"claude, model {model}, effort {effort}: the key and the model work "
                         f"(one request, {ms:.0f} ms round trip).")
    warning = deprecation_warning(model)
    if warning:
        yield warn("provider", warning, "Set LUMENTE_MODEL to a current model id.")


def check_concepts(ctx: Context) -> Iterable[Check]:
    from lumente_cli.concepts.library import load_library

    try:
        lib = load_library((ctx.paths.mapped_concepts_dir, "mapped"), (ctx.paths.user_concepts_dir, "user"))
    except LumenteError as exc:
        yield fail("concepts", f"a shipped concept file is broken: {exc.message}",
                   "Reinstall Lumente; this is a bug, please report it.")
        return
    origins = [source.origin for source in lib.concepts.values()]
    yours = len(origins) - origins.count("library")
    if not lib.problems:
        yield ok("concepts", f"{len(origins)} concept{'s load' if len(origins) != 1 else ' loads'} "
                             f"({origins.count('library')} shipped, {yours} yours).")
        return
    for problem in lib.problems:
        yield fail("concepts", problem, "Fix the file (`lumente concepts check FILE` explains each problem), "
                                        "or move it out of the concepts folder.")


CHECKS: tuple[tuple[str, Callable[[Context], Iterable[Check]]], ...] = (
    ("python", check_python),
    ("dirs", check_dirs),
    ("config", check_config),
    ("database", check_database),
    ("outbox", check_outbox),
    ("memory", check_memory),
    ("learner", check_learner),
    ("provider", check_provider),
    ("concepts", check_concepts),
)
