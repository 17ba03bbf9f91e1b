"""A student at a real terminal (a pseudo-terminal), and Ctrl-C."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import sqlite3
import subprocess
import sys
import time

from helpers import JWT_SOLID, data_dir

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


class Terminal:
    """Drive `python -m lumente_cli` on a pty like a person would."""

    def __init__(self, *args: str) -> None:
        self.master, slave = pty.openpty()
        env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "lumente_cli", *args], stdin=slave, stdout=slave, stderr=slave, env=env,
            close_fds=True,
        )
        os.close(slave)
        self.seen = ""

    def expect(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while text not in ANSI.sub("", self.seen):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"did not see {text!r}; screen so far:\n{ANSI.sub('', self.seen)[-2000:]}")
            ready, _, _ = select.select([self.master], [], [], remaining)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    if self.proc.poll() is not None:
                        raise AssertionError(f"process ended before {text!r}:\n{ANSI.sub('', self.seen)[-2000:]}")
                    continue
                self.seen += chunk.decode("utf-8", "replace")
        plain = ANSI.sub("", self.seen)
        self.seen = plain[plain.index(text) + len(text):]
        return plain

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def wait(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if ready:
                try:
                    self.seen += os.read(self.master, 65536).decode("utf-8", "replace")
                except OSError:
                    break
        code = self.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        os.close(self.master)
        return code


def test_an_interactive_session_asks_again_on_bad_input_and_finishes():
    t = Terminal("practice", "jwt", "--no-memory")
    t.expect("four parts, up to 2 points each, so 0 to 8")
    t.expect("Predict your score (0-8):")
    t.send("?")
    t.expect("earns 2 points for a solid answer")
    t.expect("Predict your score (0-8):")
    t.send("eleven")
    t.expect("Please enter a whole number from 0 to 8")
    t.send("6")
    t.expect("Category >")
    t.send("")
    t.expect("That was an empty answer")
    t.send("?")
    t.expect("Hint:")
    t.send(JWT_SOLID["supraordinate"])
    for part, label in (("coordinate", "Similar concepts and differences >"), ("attributes", "Defining features >"),
                        ("subordinate", "Classification >")):
        t.expect(label)
        t.send(JWT_SOLID[part])
    screen = t.expect("Coach")
    assert "Score 8/8" in screen
    assert t.wait() == 0


def test_ctrl_c_saves_the_session_as_paused_and_exits_130():
    t = Terminal("practice", "jwt", "--no-memory")
    t.expect("Predict your score (0-8):")
    t.send("4")
    t.expect("Category >")
    t.send(JWT_SOLID["supraordinate"])
    t.expect("Similar concepts and differences >")
    t.proc.send_signal(signal.SIGINT)
    assert t.wait() == 130
    con = sqlite3.connect(data_dir() / "lumente.db")
    assert con.execute("SELECT status FROM session").fetchone()[0] == "paused"
    assert con.execute("SELECT COUNT(*) FROM answer").fetchone()[0] == 1

    again = Terminal("practice", "jwt", "--no-memory")
    again.expect("Resume it? [Y/n]")
    again.send("")
    again.expect("Similar concepts and differences >")
    again.proc.send_signal(signal.SIGINT)
    assert again.wait() == 130


def test_quiet_hides_notices_but_never_the_prompts():
    t = Terminal("-q", "practice", "jwt", "--no-memory")
    t.expect("Predict your score (0-8):")
    t.send("6")
    t.expect("Category >")
    t.send(JWT_SOLID["supraordinate"])
    for label, part in (("Similar concepts and differences >", "coordinate"), ("Defining features >", "attributes"),
                        ("Classification >", "subordinate")):
        t.expect(label)
        t.send(JWT_SOLID[part])
    assert t.wait() == 0
