"""Fixtures for the served-memory tests. Every process a test starts is
killed in teardown, so no server outlives its test."""

from __future__ import annotations

import subprocess

import pytest
from faultproxy import FaultProxy
from servehelpers import Served


@pytest.fixture
def spawned():
    """Processes to kill at teardown (servers register themselves via `serve`)."""
    procs: list[subprocess.Popen] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


@pytest.fixture
def serve(tmp_path, spawned):
    """serve(name="srv", **options) starts `lumente memory serve` and returns a Served."""
    made: list[Served] = []

    def start(name: str = "srv", **kwargs) -> Served:
        server = Served(tmp_path / name, **kwargs)
        made.append(server)
        return server

    yield start
    for server in made:
        server.kill()


@pytest.fixture
def server(serve):
    return serve()


@pytest.fixture
def proxy(server):
    p = FaultProxy(server.url)
    yield p
    p.close()
