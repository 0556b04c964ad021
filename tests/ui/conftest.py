"""Fixtures for the inspector: a seeded fake-embedder store, a server on 127.0.0.1, one Chromium per session.

Without Chromium the browser tests skip with one line, or fail where services are required (`tests/services.py`).
"""

from __future__ import annotations

import pytest

from hindsight_core.ui import InspectorServer

from ..services import missing
from .browser import ChromiumMissing, chromium_context
from .seed import seeded_memory


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory, monkeypatch):
    """A write queue over a client journals under HINDSIGHT_HOME: a folder of the test run's, not ~/.hindsight."""
    monkeypatch.setenv("HINDSIGHT_HOME", str(tmp_path_factory.getbasetemp() / "hindsight-home"))


@pytest.fixture
def seeded():
    memory, _, ids = seeded_memory()
    try:
        yield memory, ids
    finally:
        memory.close()


@pytest.fixture
def memory(seeded):
    return seeded[0]


@pytest.fixture
def ids(seeded):
    return seeded[1]


@pytest.fixture(params=["ui", "serve"])
def server(request, memory):
    """The inspector on 127.0.0.1, any free port, stopped when the test ends: served by `hindsight ui`'s
    standard-library server, and by `hindsight serve`'s Starlette app (the same pages on the other stack)."""
    if request.param == "ui":
        with InspectorServer(memory, port=0) as running:
            yield running
    else:
        from hindsight_core.remote.runner import BackgroundServer

        with BackgroundServer(memory) as running:
            yield running


@pytest.fixture(scope="package")
def browser_context():
    """One browser for this folder, closed when it is done: Playwright's sync API keeps an event loop running
    in the main thread while it is open, and a later test's `asyncio.run()` would refuse to start."""
    try:
        with chromium_context(viewport={"width": 1100, "height": 900}) as context:
            yield context
    except ChromiumMissing as exc:  # raised on the way in, before any test used the browser
        missing(str(exc))


@pytest.fixture
def page(browser_context):
    browser_context.clear_cookies()
    page = browser_context.new_page()
    page.set_default_timeout(15_000)  # a bound on a hung step, not a speed assertion
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.dialogs = dialogs
    try:
        yield page
    finally:
        page.close()
