"""Many users in one process: open files, threads and files on disk do not grow with the users (counts only)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from hindsight_core import Hindsight
from hindsight_core.store import EdgeStore
from hindsight_core.store.edge_files import BUCKETS, bucket_of
from hindsight_core.testing import FakeEmbedder

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self")


def threads() -> int:
    status = Path("/proc/self/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Threads:")))


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def serve(memory: Hindsight, users: range) -> tuple[int, int]:
    """Write to and recall for each user (the earliest ones again at the end: their files were closed)."""
    for u in users:
        memory.write_many([f"User {u} keeps the Orion notes in folder {u}.", f"User {u} drinks tea."],
                          user_id=f"user-{u}", force=True)
    for u in list(users)[:5]:
        assert memory.recall("Where are the Orion notes?", user_id=f"user-{u}", k=1)
    return open_files(), threads()


def first_users_in_every_bucket() -> int:
    """How many users (user-0, user-1, ...) it takes until every bucket has one."""
    seen, n = set(), 0
    while len(seen) < BUCKETS:
        seen.add(bucket_of(f"user-{n}"))
        n += 1
    return n


def test_open_files_threads_and_files_do_not_grow_with_users(tmp_path):
    store = EdgeStore(tmp_path / "s", max_open=8)
    first = first_users_in_every_bucket()
    with Hindsight(store=store, embedder=FakeEmbedder()) as memory:
        serve(memory, range(0, first))  # every bucket's shard and the store's key file are open from here
        files_5, threads_5 = serve(memory, range(first, first + 5))
        files_50, threads_50 = serve(memory, range(first + 5, first + 55))
        assert files_50 == files_5  # one key file for every user
        assert threads_50 == threads_5
        assert len(store._key_file._cache) <= 8 and len(store._shards) == BUCKETS
    users = first + 55
    per_user = [len([p for p in folder.rglob("*") if p.is_file()]) for folder in (tmp_path / "s" / "users").iterdir()]
    assert len(per_user) == users and max(per_user) == 1  # user.json (the keys are rows of the store's key file)
    shards = [p for p in (tmp_path / "s" / "shards").iterdir() if p.is_dir()]
    assert len(shards) == BUCKETS


def test_no_change_reaches_another_users_point(tmp_path):
    """Every user shares the shard: an id another user holds is neither overwritten, updated nor deleted."""
    import uuid
    from datetime import datetime, timezone

    from hindsight_core.types import MemoryRecord

    now = datetime(2026, 3, 1, tzinfo=timezone.utc)
    embedder = FakeEmbedder()
    store = EdgeStore(tmp_path / "s")
    try:
        for user in ("alice", "mallory"):
            store.open_user(user, embedding_model=embedder.name, dimension=embedder.dimension, create=True)
        mine = MemoryRecord(id=str(uuid.uuid4()), user_id="alice", raw_content="Alice's locker code is 4411.",
                        summary="locker code 4411", timestamp=now, embedding_model=embedder.name)
        store.commit("alice", upserts=[(mine, embedder.embed([mine.raw_content])[0])])
        forged = MemoryRecord(id=mine.id, user_id="mallory", raw_content="Mallory was here.", summary="overwrite",
                              timestamp=now, embedding_model=embedder.name)
        store.commit("mallory", upserts=[(forged, embedder.embed([forged.raw_content])[0])],
                     updates=[(mine.id, {"access_count": 99})], deletes=[mine.id])
        store.update_fields("mallory", [(mine.id, {"access_count": 77})])
        store.delete_from_space("mallory", "memories", [mine.id])
        assert store.get("mallory", [mine.id]) == []
        [hit] = store.get("alice", [mine.id])
        assert hit.record.raw_content == "Alice's locker code is 4411." and hit.record.access_count == 0
        store.drop_user("mallory")
        assert store.count("alice") == 1
    finally:
        store.close()


def test_what_the_process_keeps_per_user_is_bounded(tmp_path, monkeypatch):
    """Locks, opened users, registry entries and load reports: none grows with the users a process served."""
    import hindsight_core.facade.base as facade

    monkeypatch.setattr(facade, "OPENED_KEPT", 5)
    with Hindsight(store=EdgeStore(path=tmp_path), embedder=FakeEmbedder()) as memory:
        memory.store._users.size = 5
        for n in range(12):
            memory.write_many([f"I keep locker {n} at the gym."], user_id=f"user-{n}", force=True)
            assert len(memory.recall("locker", user_id=f"user-{n}", k=1)) == 1
        assert memory._user_locks == {}  # a user's lock lives only while a call holds or waits for it
        assert len(memory._opened) == 5 and len(memory.store._users) == 5
        # a user dropped from them is read again, whole
        assert [m.raw_content for m in memory.memories(user_id="user-0")] == ["I keep locker 0 at the gym."]
        assert all(not report.unreadable for report in memory.store._reports.values())


def test_a_shard_a_killed_process_was_making_is_made_again(tmp_path, monkeypatch):
    """A kill while the engine makes a bucket's shard leaves it under a temporary name, never a half-made shard
    under its own (which the engine refuses to load: the store would not open)."""
    import qdrant_edge

    real = qdrant_edge.EdgeShard.create

    def killed_after_the_engine_made_it(path, config):
        real(path, config).close()
        raise KeyboardInterrupt("killed")

    monkeypatch.setattr(qdrant_edge.EdgeShard, "create", killed_after_the_engine_made_it)
    embedder = FakeEmbedder()
    with pytest.raises(KeyboardInterrupt):
        with Hindsight(store=EdgeStore(tmp_path / "s"), embedder=embedder) as memory:
            memory.write("Alice keeps the Orion notes in the blue folder.", user_id="alice", force=True)
    made = [p.name for p in (tmp_path / "s" / "shards").iterdir()]
    assert made and all(name.endswith(".making") for name in made)
    monkeypatch.setattr(qdrant_edge.EdgeShard, "create", real)
    with Hindsight(store=EdgeStore(tmp_path / "s"), embedder=embedder) as memory:
        memory.write("Alice keeps the Orion notes in the blue folder.", user_id="alice", force=True)
    with Hindsight(store=EdgeStore(tmp_path / "s"), embedder=embedder) as memory:
        assert [m.raw_content for m in memory.memories(user_id="alice")] == [
            "Alice keeps the Orion notes in the blue folder."]
    assert not [p for p in (tmp_path / "s" / "shards").iterdir() if p.name.endswith(".making")]
