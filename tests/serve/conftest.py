"""Fixtures for `hindsight serve`: a live server subprocess on a private store, and the facade or a client of it."""

from __future__ import annotations

import uuid

import pytest

from hindsight_core import Hindsight
from hindsight_core.remote import HindsightClient
from hindsight_core.testing import FakeEmbedder

from ..mcp._process import HINDSIGHT, free_port, running, server_env

FAKE = "fake-hash-embedder"


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory, monkeypatch):
    """A write queue over a client journals under HINDSIGHT_HOME: a folder of the test run's, not ~/.hindsight."""
    monkeypatch.setenv("HINDSIGHT_HOME", str(tmp_path_factory.getbasetemp() / "hindsight-home"))


def start(home, *args: str, model: str = FAKE, port: int | None = None, extra_env: dict | None = None):
    """`hindsight serve` on `home`'s store (a context manager yielding (process, url))."""
    port = port or free_port()
    env = server_env(home, **({"HINDSIGHT_EMBEDDING_MODEL": model} if model else {}), **(extra_env or {}))
    return port, running([*HINDSIGHT, "serve", "--port", str(port), *args], env, port, home / f"serve-{port}.log")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One `hindsight serve` (fake embedder) for the module's tests; each test uses users of its own."""
    home = tmp_path_factory.mktemp("served")
    port, server = start(home, "-u", "mcp-user")
    with server as process:
        yield {"url": f"http://127.0.0.1:{port}", "home": home, "process": process, "port": port}


@pytest.fixture(params=["embedded", "client"])
def memory(request, tmp_path, served):
    """The same tests on the embedded facade and on a client of the live server."""
    if request.param == "embedded":
        with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder()) as memory:
            yield memory
    else:
        with HindsightClient(served["url"]) as client:
            yield client


@pytest.fixture
def user():
    return f"user-{uuid.uuid4().hex[:12]}"
