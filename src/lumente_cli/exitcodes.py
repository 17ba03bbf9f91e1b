"""Named exit statuses, documented in the man page and in docs/json.md."""

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
    INTERRUPTED = 130
    """Ctrl-C; a session in progress was saved as paused."""
