"""Every test runs with Lumente's files in a temp dir and no way to reach a real
service: XDG dirs and LUMENTE_HOME point at tmp_path, Claude at a closed port."""

from __future__ import annotations

import signal

import pytest

# A shell starts a background job (`pytest &`, a CI step without job control)
# with SIGINT ignored, and an ignored signal stays ignored in every child: the
# Ctrl-C tests' processes would never see their SIGINT. Take it back, so the
# children start as they would from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ):
        monkeypatch.setenv(var, str(tmp_path / "xdg" / sub))
    # Whatever the developer's shell exports (LUMENTE_MEMORY=off, LUMENTE_DEBUG, a real
    # key...) must not reach a test: every Lumente and Anthropic variable goes.
    import os

    for var in list(os.environ):
        if var.startswith(("LUMENTE_", "ANTHROPIC_")) or var in ("NO_COLOR", "FORCE_COLOR"):
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("COLUMNS", "80")
    return tmp_path
