"""Delivering the rest of the outbox after the student has moved on.

A slow service (docs/benchmarks.md has the hosted one's time per write) cannot
take a session's nine facts inside the write budget. When the budget runs out while
the service is still answering, a detached `lumente memory sync` delivers the
rest; its Idempotency-Keys make a race with the next session harmless.
"""

from __future__ import annotations

import os
import subprocess
import sys


def deliver_later() -> bool:
    """Start `lumente memory sync` in its own session, detached from this one."""
    try:
        subprocess.Popen(
            [sys.executable, "-m", "lumente_cli", "-q", "memory", "sync"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C in the terminal does not reach it
            close_fds=True,
            env=os.environ.copy(),
        )
    except OSError:
        return False  # the facts stay in the outbox for the next run
    return True
