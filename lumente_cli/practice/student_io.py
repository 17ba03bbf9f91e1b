"""Where the student's input comes from: a terminal (prompts on stderr,
re-asking on bad input) or a script on stdin (README.md, "Scripting": one line
per answer; bad input is a usage error)."""

from __future__ import annotations

import io
import sys
from typing import BinaryIO, Protocol

from rich.console import Console
from rich.text import Text

from lumente_cli.agents.contracts import MAX_ANSWER_CHARS
from lumente_cli.errors import UsageError
from lumente_cli.session import MAX_PART_POINTS, MAX_SCORE
from lumente_cli.text import sanitize

# The longest line worth reading whole: the longest answer, in the widest UTF-8, and its line end.
MAX_LINE_BYTES = 4 * MAX_ANSWER_CHARS + 2

HELP_WORDS = frozenset({"?", "help"})


class EndOfInput(Exception):
    """Input ended before the session did."""


class StudentIO(Protocol):
    interactive: bool

    def prediction(self) -> int: ...
    def line(self, prompt: str) -> str: ...
    def confirm(self, question: str, default: bool) -> bool: ...
    def reject(self, problem: str) -> None: ...


PREDICTION_LINE = (f"Before you start, guess your score: four parts, up to {MAX_PART_POINTS} points each, so 0 to {MAX_SCORE}. "
                   "Type ? to have it explained.")
PREDICTION_HELP = (
    "Each of the four parts (Category, Similar concepts and differences, Defining features, Classification) "
    "earns 2 points for a solid answer, 1 for a partial one, 0 when the key ideas are missing. Your guess is "
    f"how many of the {MAX_SCORE} points you expect to prove. It costs nothing and changes no score: at the end "
    "you see it next to what you proved, and seeing that gap close over sessions is the point."
)


def is_help(text: str) -> bool:
    return text.strip().lower() in HELP_WORDS


def check_answer(text: str) -> str | None:
    """A problem with an answer line, or None when it can be judged."""
    if not text.strip():
        return "an empty answer; write what you think, or ? for Help"
    if len(text) > MAX_ANSWER_CHARS:
        return f"an answer of {len(text):,} characters; the limit is {MAX_ANSWER_CHARS:,}"
    return None


def parse_prediction(text: str) -> int | None:
    try:
        value = int(text.strip())
    except ValueError:
        return None
    return value if 0 <= value <= MAX_SCORE else None


class ScriptedIO:
    """Answers from a pipe or file: strict, since nobody is there to re-ask.

    Each line read is echoed after its prompt on the prompt console, so the
    transcript on stderr reads like the terminal session would have.
    """

    interactive = False

    def __init__(self, stream: BinaryIO | None = None, echo: Console | None = None) -> None:
        if stream is None:  # a closed stdin (`<&-`) reads as input that has ended
            stream = sys.stdin.buffer if sys.stdin is not None else io.BytesIO()
        self.stream = stream
        self.echo = echo
        self.line_no = 0

    def _show(self, prompt: str, text: str) -> None:
        if self.echo is not None:
            shown = text if len(text) <= 300 else text[:300] + f"… ({len(text):,} characters)"
            self.echo.print(Text(sanitize(prompt), style="bold cyan") + Text(sanitize(shown)), soft_wrap=True)

    def _read(self) -> str:
        # Bounded: a huge line must cost a few kilobytes, not the whole line in memory.
        raw = self.stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            raise EndOfInput()
        self.line_no += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while (rest := self.stream.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                pass  # skip the rest of the line, a chunk at a time
            raise UsageError(
                f"input line {self.line_no} is too long; the limit is {MAX_ANSWER_CHARS:,} characters.",
                hint="Shorten the answer; the session was saved as paused.",
            )
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise UsageError(f"input line {self.line_no} is not valid UTF-8.", hint="Send UTF-8 text on stdin.") from None
        return text.rstrip("\r\n")

    def prediction(self) -> int:
        text = self._read()
        self._show(f"Predict your score (0-{MAX_SCORE}): ", text)
        value = parse_prediction(text)
        if value is None:
            raise UsageError(
                f"input line {self.line_no}: the prediction must be a whole number from 0 to {MAX_SCORE} (got {text.strip()[:40]!r}).",
                hint="Put the prediction on the first line, or pass --predict N.",
            )
        return value

    def line(self, prompt: str) -> str:
        text = self._read()
        self._show(prompt, text)
        if not is_help(text):
            problem = check_answer(text)
            if problem:
                raise UsageError(f"input line {self.line_no}: {problem}.")
        return text

    def confirm(self, question: str, default: bool) -> bool:
        raise UsageError(f"{question} (no terminal to ask on).", hint="Pass --resume or --restart.")

    def reject(self, problem: str) -> None:
        """The last line read cannot be used: a script cannot be asked again."""
        raise UsageError(f"input line {self.line_no}: {problem}.")


class TerminalIO:
    """A student at a terminal: prompts on stderr, bad input is asked again."""

    interactive = True

    def __init__(self, console: Console) -> None:
        self.console = console

    def _input(self, prompt: str) -> str:
        try:
            return self.console.input(Text(sanitize(prompt), style="bold cyan"))
        except EOFError:
            raise EndOfInput() from None
        except UnicodeDecodeError:
            self.console.print("That input was not valid UTF-8; please type it again.", style="yellow")
            return ""

    def prediction(self) -> int:
        self.console.print(Text(PREDICTION_LINE, style="dim"), soft_wrap=True)
        while True:
            text = self._input(f"Predict your score (0-{MAX_SCORE}): ")
            if is_help(text):
                self.console.print(Text(PREDICTION_HELP), soft_wrap=True)
                continue
            value = parse_prediction(text)
            if value is not None:
                return value
            self.console.print(f"Please enter a whole number from 0 to {MAX_SCORE}, or ? to have it explained.",
                               style="yellow")

    def line(self, prompt: str) -> str:
        while True:
            text = self._input(prompt)
            if is_help(text):
                return text
            problem = check_answer(text)
            if problem is None:
                return text
            self.console.print(f"That was {problem}.", style="yellow")

    def confirm(self, question: str, default: bool) -> bool:
        suffix = " [Y/n] " if default else " [y/N] "
        while True:
            text = self._input(question + suffix).strip().lower()
            if not text:
                return default
            if text in ("y", "yes"):
                return True
            if text in ("n", "no"):
                return False
            self.console.print("Please answer y or n.", style="yellow")

    def reject(self, problem: str) -> None:
        """The last line typed cannot be used: say why; the caller asks again."""
        self.console.print(Text(f"That was {problem}.", style="yellow"), soft_wrap=True)
