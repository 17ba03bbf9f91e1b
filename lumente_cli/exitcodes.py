"""Named exit statuses, documented in the man page and in docs/exit-codes.md
(both generated from the docstrings below by scripts/generate_docs.py)."""

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    """The command did what was asked."""
    ERROR = 1
    """Something failed: a corrupt or unwritable file, a failing check."""
    USAGE = 2
    """Bad input: an unknown concept, a bad option, unreadable scripted input."""
    PAUSED = 3
    """Input ended before the session did; the session was saved as paused."""
    MEMORY_UNAVAILABLE = 4
    """The memory service could not be reached or refused the request."""
    PROVIDER = 5
    """Claude was needed (e.g. to map a new concept) and could not be used."""
    BUSY = 6
    """The session is open in another running lumente; finish it there first."""
    INTERRUPTED = 130
    """Ctrl-C; a session in progress was saved as paused."""


def descriptions() -> dict[ExitCode, str]:
    """Each code's docstring (the string under the member above).

    Python keeps no such docstrings at run time, so they are read from this
    file's source; only the docs generator and tests call this."""
    import ast
    import inspect
    import sys

    tree = ast.parse(inspect.getsource(sys.modules[__name__]))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ExitCode")
    found: dict[ExitCode, str] = {}
    for node, after in zip(cls.body, [*cls.body[1:], None]):
        if isinstance(node, ast.Assign) and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
            name = node.targets[0].id  # type: ignore[attr-defined]
            found[ExitCode[name]] = " ".join(str(after.value.value).split())
    return found
