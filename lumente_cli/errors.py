"""Errors the CLI turns into one clear line and an exit status, never a traceback."""

from __future__ import annotations

from lumente_cli.exitcodes import ExitCode


class LumenteError(Exception):
    """An expected failure with a message fit for the user."""

    exit_code: ExitCode = ExitCode.ERROR

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(LumenteError):
    exit_code = ExitCode.USAGE


class StorageError(LumenteError):
    """Lumente's local files cannot be read or written."""


class ConceptError(LumenteError):
    """A concept is unknown or its file is malformed."""

    exit_code = ExitCode.USAGE


class ProviderError(LumenteError):
    exit_code = ExitCode.PROVIDER


class SessionBusy(LumenteError):
    """Another running lumente holds this session."""

    exit_code = ExitCode.BUSY
