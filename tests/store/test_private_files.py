"""A store's files are its owner's alone: 0700 folders, 0600 files, whatever the umask; a temporary store's keys
never reach the disk."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hindsight_core import Hindsight
from hindsight_core.session.write_queue import write_queue
from hindsight_core.store.edge_files import TEMPORARY_PREFIX, remove_abandoned_temporaries
from hindsight_core.testing import FakeEmbedder

from ..files import files_holding

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def loose_umask():
    """The umask most systems give a process (group and others may read what it creates)."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def not_private(root: Path) -> list[str]:
    """Every folder (root included) not 0700 and every file not 0600 under `root`."""
    wrong = []
    for path in [root, *root.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        want = 0o700 if path.is_dir() else 0o600
        if mode != want and not path.is_symlink():
            wrong.append(f"{oct(mode)} {path.relative_to(root)}")
    return wrong


def test_every_file_and_folder_of_a_store_is_owner_only_whatever_the_umask(tmp_path, clock, loose_umask):
    root = tmp_path / "memories"
    with Hindsight(path=root, embedder=FakeEmbedder(), clock=clock) as memory:
        memory.remember("Project Orion uses the blue theme.", user_id="u", force=True)
        gone = memory.remember("My locker code is 1234.", user_id="u", force=True)
        queue = write_queue(memory)
        queue.submit(["I moved to Porto last spring."], user_id="bob")
        queue.flush()
        memory.forget(user_id="u", memory_id=gone.id)
        assert (root / "write-queue.sqlite").exists() and (root / "users").is_dir()
        # while open: every folder and file hindsight writes itself; the engine's files written since a shard was
        # made follow the umask, inside folders nobody else can enter
        engine = root / "shards"  # the shared shards: the engine's files, written with the umask between sweeps
        assert stat.S_IMODE(engine.stat().st_mode) == 0o700
        ours = [p for p in root.rglob("*") if engine not in p.parents]
        assert {"keys.sqlite", "user.json", "LOCK", "FORMAT", "write-queue.sqlite"} <= {p.name for p in ours}
        assert [f"{oct(stat.S_IMODE(p.stat().st_mode))} {p.name}" for p in ours
                if stat.S_IMODE(p.stat().st_mode) not in (0o600, 0o700)] == []
        assert stat.S_IMODE(root.stat().st_mode) == 0o700
    assert not_private(root) == []  # after close, the engine's files too


def test_a_folder_the_store_is_put_in_keeps_its_mode_and_the_stores_folders_are_private(tmp_path, loose_umask):
    shared = tmp_path / "project"
    shared.mkdir(mode=0o755)
    (shared / "README.txt").write_text("someone else's file")
    with Hindsight(path=shared, embedder=FakeEmbedder()) as memory:
        memory.remember("I moved to Porto last spring.", user_id="u", force=True)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755  # not ours to change
    assert not_private(shared / "users") == [] and not_private(shared / "meta") == []
    assert not_private(shared / "shards") == []
    assert stat.S_IMODE((shared / "LOCK").stat().st_mode) == 0o600


KILLED = textwrap.dedent("""
    import sys, time
    from hindsight_core import Hindsight
    from hindsight_core.session.write_queue import write_queue
    from hindsight_core.testing import FakeEmbedder
    memory = Hindsight(location=":memory:", embedder=FakeEmbedder())
    memory.remember("My locker code is CANARY-2718.", user_id="u", force=True)
    queue = write_queue(memory)
    queue.submit(["The spare key is under the CANARY-2718 flowerpot."], user_id="u")
    queue.flush()
    print(memory.store.root, flush=True)
    time.sleep(600)
""")


def test_a_temporary_store_killed_leaves_no_key_and_no_text_on_disk(tmp_path, loose_umask):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    child = subprocess.Popen([sys.executable, "-c", KILLED], stdout=subprocess.PIPE, text=True, env=env)
    try:
        folder = Path(child.stdout.readline().strip())  # type: ignore[union-attr]
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert folder.parent == tmp_path and folder.name.startswith(TEMPORARY_PREFIX)
    assert folder.exists()  # a SIGKILL runs no clean-up: the folder stays ...
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700  # ... private to its owner,
    assert [p.name for p in folder.rglob("*") if "keys" in p.name or "write-queue" in p.name] == []  # keyless,
    assert files_holding(folder, "CANARY-2718") == []  # with no text readable in any encoding
    # the next temporary store of this user removes it once it is more than a minute old and nobody holds it
    os.utime(folder, (folder.stat().st_atime - 120, folder.stat().st_mtime - 120))
    assert remove_abandoned_temporaries(tmp_path) == 1 and not folder.exists()


def test_a_temporary_store_in_use_is_never_removed_as_abandoned(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    with Hindsight(location=":memory:", embedder=FakeEmbedder()) as memory:
        folder = memory.store.root
        os.utime(folder, (folder.stat().st_atime - 120, folder.stat().st_mtime - 120))
        assert remove_abandoned_temporaries(tmp_path) == 0 and folder.exists()
    assert not folder.exists()
