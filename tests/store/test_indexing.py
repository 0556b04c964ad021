"""The background index build: started off the caller's path, swapped in with every change made meanwhile."""

from __future__ import annotations

import dataclasses

import pytest

from hindsight_core import Hindsight, HindsightConfig
from hindsight_core.store import EdgeStore, indexing
from hindsight_core.store.edge_files import bucket_of, shard_name
from hindsight_core.testing import FakeEmbedder

from ..files import files_containing

# the child waits for this file before it builds: the test decides what happens while the build runs
_GATED = ("import sys, time, pathlib\n"
          "gate = pathlib.Path(sys.argv[1]).with_name('go')\n"
          "while not gate.exists(): time.sleep(0.01)\n") + indexing._BUILD


def plain_config() -> HindsightConfig:
    base = HindsightConfig()
    return dataclasses.replace(base, semantic=dataclasses.replace(
        base.semantic, merge_duplicates=False, detect_conflicts=False, auto_consolidate=False))


def facts(start: int, stop: int) -> list[str]:
    return [f"Fact {n}: my locker number {n} holds item {n * 7}." for n in range(start, stop)]


#: users share a fixed number of shards per vector size: builds are keyed by the shard's name, here alice's
SHARD = shard_name("memories", FakeEmbedder().dimension, bucket_of("alice"))


@pytest.fixture
def gated(monkeypatch):
    monkeypatch.setattr(indexing, "_BUILD", _GATED)


def test_a_build_starts_past_the_threshold_and_changes_made_meanwhile_survive_the_swap(tmp_path, clock, gated):
    store = EdgeStore(tmp_path / "store", auto_index=40)
    with Hindsight(store=store, embedder=FakeEmbedder(), clock=clock, config=plain_config()) as memory:
        memory.write_many(facts(0, 30), user_id="alice", force=True)
        assert not store._building(SHARD)
        memory.write_many(facts(30, 45), user_id="alice", force=True)  # 45 unindexed points: a build starts
        assert store._building(SHARD)
        build = store._indexer._builds[SHARD]
        copy = build.copy
        assert (copy / "segments").is_dir()
        # while the child works on the copy, the live shard changes: new writes, an update, a delete
        memory.write_many(facts(45, 50), user_id="alice", force=True)
        victim = memory.recall("locker number 3 holds item 21", user_id="alice", k=1)[0].memory
        memory.forget(user_id="alice", memory_id=victim.id, for_good=False)  # compacted later (below)
        kept = memory.get(memory.memories(user_id="alice")[7].id, user_id="alice")
        memory.store.update_fields("alice", [(kept.id, {"access_count": 5})])  # as reinforcement does
        (copy.parent / "go").write_text("")
        assert store.wait_for_index(60)
        assert store._indexer.completed == [(SHARD, 45)]
        assert not copy.exists() and not (copy.parent / "memories.old").exists()
        after = memory.memories(user_id="alice")
        assert len(after) == 49 and victim.id not in {r.id for r in after}
        assert memory.get(kept.id, user_id="alice").access_count == 5
        assert memory.store.count("alice") == 49  # the deleted point is gone from the engine, not only unreadable
        assert set(facts(45, 50)) <= {r.raw_content for r in after}  # written during the build
        assert len(memory.recall("my locker", user_id="alice", k=5)) == 5
    store = EdgeStore(tmp_path / "store", auto_index=40)
    with Hindsight(store=store, embedder=FakeEmbedder(), clock=clock, config=plain_config()) as memory:
        assert len(memory.memories(user_id="alice")) == 49  # the swapped folder is the store
        memory.write_many(facts(50, 60), user_id="alice", force=True)
        assert not store._building(SHARD)  # 45 were indexed: 15 new points are below the threshold


def test_a_forget_for_good_cancels_a_build_that_would_bring_the_points_back(tmp_path, clock, gated):
    """The copy being indexed was taken before the forget: swapped in, it would hold the forgotten point's
    vector in its segments again. So a compaction cancels it; the next write past the threshold starts another."""
    store = EdgeStore(tmp_path / "store", auto_index=20)
    with Hindsight(store=store, embedder=FakeEmbedder(), clock=clock, config=plain_config()) as memory:
        memory.write_many(facts(0, 25), user_id="alice", force=True)
        build = store._indexer._builds[SHARD]
        victim = memory.memories(user_id="alice")[0]
        memory.forget(user_id="alice", memory_id=victim.id)
        assert build.cancelled and not store._building(SHARD)
        (build.copy.parent / "go").write_text("")
        assert store.wait_for_index(60) and store._indexer.completed == []
        assert len(memory.memories(user_id="alice")) == 24


def test_forgetting_the_user_cancels_the_build(tmp_path, clock, gated):
    store = EdgeStore(tmp_path / "store", auto_index=20)
    with Hindsight(store=store, embedder=FakeEmbedder(), clock=clock, config=plain_config()) as memory:
        memory.write_many(facts(0, 25), user_id="alice", force=True)
        build = store._indexer._builds[SHARD]
        memory.forget(user_id="alice", everything=True)
        assert not store._building(SHARD) and build.cancelled
        (build.copy.parent.parent / "go").write_text("")
        assert store.wait_for_index(60) and store._indexer.completed == []
        assert memory.memories(user_id="alice") == []


def test_a_failed_build_leaves_the_live_shard_and_tries_again_later(tmp_path, clock, monkeypatch):
    monkeypatch.setattr(indexing, "_BUILD", "raise SystemExit('no index today')")
    store = EdgeStore(tmp_path / "store", auto_index=20)
    with Hindsight(store=store, embedder=FakeEmbedder(), clock=clock, config=plain_config()) as memory:
        memory.write_many(facts(0, 25), user_id="alice", force=True)
        assert store.wait_for_index(60) and store._indexer.completed == []
        assert len(memory.memories(user_id="alice")) == 25
        monkeypatch.undo()
        memory.write_many(facts(25, 26), user_id="alice", force=True)  # the next write starts it again
        assert store.wait_for_index(60) and store._indexer.completed == [(SHARD, 26)]
        assert len(memory.memories(user_id="alice")) == 26


def test_a_swap_a_crash_interrupted_is_undone_on_open(tmp_path):
    live = tmp_path / "memories"
    old, copy = tmp_path / "memories.old", tmp_path / "memories.indexing"
    old.mkdir(), copy.mkdir()
    (old / "edge_config.json").write_text("{}")
    indexing.settle_folder(live)  # crashed between the renames: the old folder holds everything
    assert (live / "edge_config.json").exists() and not old.exists() and not copy.exists()
    old.mkdir()
    indexing.settle_folder(live)  # crashed after the swap, before the clean-up
    assert live.exists() and not old.exists()


def test_no_build_below_the_threshold_or_when_switched_off(tmp_path, clock):
    for auto_index in (None, 10_000):
        store = EdgeStore(tmp_path / f"store-{auto_index}", auto_index=auto_index)
        with Hindsight(store=store, embedder=FakeEmbedder(), clock=clock, config=plain_config()) as memory:
            memory.write_many(facts(0, 50), user_id="alice", force=True)
            assert not store._building(SHARD)


def _segments_holding(root, needle: str) -> list:
    return files_containing(root, needle, under="/segments/")


def test_a_forget_compacts_in_a_child_while_other_users_go_on(tmp_path, clock, monkeypatch):
    """The compaction runs in a child on a copy: while it runs, another user of the same store reads and writes
    (neither the store's lock nor the GIL is held); when forget returns, the point has left the segment files."""
    import threading

    monkeypatch.setattr(indexing, "_COMPACT", _GATED)
    store = EdgeStore(tmp_path / "store", auto_index=10_000)
    with Hindsight(store=store, embedder=FakeEmbedder(), clock=clock, config=plain_config()) as memory:
        memory.write_many(facts(0, 5), user_id="alice", force=True)
        memory.write_many(facts(5, 8), user_id="bob", force=True)
        victim = memory.memories(user_id="alice")[0]
        store.flush()
        assert _segments_holding(tmp_path, victim.id)
        done = threading.Event()
        thread = threading.Thread(target=lambda: (memory.forget(user_id="alice", memory_id=victim.id), done.set()))
        thread.start()
        while not store._building(SHARD):  # the child is gated: bob's calls must not wait for it
            thread.join(0.01)
        assert len(memory.recall("locker", user_id="bob", k=3)) == 3
        memory.write_many(facts(8, 9), user_id="bob", force=True)
        assert not done.is_set()
        (tmp_path / "store" / "shards" / "go").write_text("")
        thread.join(60)
        assert done.is_set() and store._indexer.compactions == [(SHARD, 1)]
        assert _segments_holding(tmp_path, victim.id) == []
        assert len(memory.memories(user_id="alice")) == 4 and len(memory.memories(user_id="bob")) == 4


def test_a_failed_compaction_child_falls_back_to_this_process(tmp_path, clock, monkeypatch):
    monkeypatch.setattr(indexing, "_COMPACT", "raise SystemExit('no compaction today')")
    store = EdgeStore(tmp_path / "store", auto_index=10_000)
    with Hindsight(store=store, embedder=FakeEmbedder(), clock=clock, config=plain_config()) as memory:
        memory.write_many(facts(0, 5), user_id="alice", force=True)
        victim = memory.memories(user_id="alice")[0]
        memory.forget(user_id="alice", memory_id=victim.id)
        assert store._indexer.compactions == []  # the child failed ...
        assert _segments_holding(tmp_path, victim.id) == []  # ... and the forget compacted in-process
        rest = [m.id for m in memory.memories(user_id="alice")]
        memory.forget(user_id="alice", everything=True)
        assert memory.memories(user_id="alice") == []
        assert rest and all(_segments_holding(tmp_path, memory_id) == [] for memory_id in rest)
