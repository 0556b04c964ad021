"""A shard's load gives back the pages it read once (its log, its payload indexes), and loses nothing by it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hindsight_core import Hindsight
from hindsight_core.store import EdgeStore
from hindsight_core.store import edge
from hindsight_core.store.mapped import READ_AT_LOAD, page_out
from hindsight_core.testing import FakeEmbedder

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/smaps")


def resident_kib(folder: Path, parts: tuple[str, ...] = READ_AT_LOAD) -> tuple[int, int]:
    """(resident, mapped) KiB of this process's mappings of the files under `folder` whose path has one of `parts`
    (by default: the logs and the payload indexes)."""
    prefix, resident, mapped, inside = str(folder.resolve()) + "/", 0, 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if "-" in fields[0] and len(fields) >= 5 and ":" not in fields[0]:
            path = fields[5] if len(fields) > 5 else ""
            inside = path.startswith(prefix) and any(part in path for part in parts)
        elif inside and fields[0] == "Size:":
            mapped += int(fields[1])
        elif inside and fields[0] == "Rss:":
            resident += int(fields[1])
    return resident, mapped


def fill(memory: Hindsight, users: int) -> None:
    for u in range(users):
        memory.write_many([f"User {u} keeps the Orion notes in folder {u}.", f"User {u} drinks tea at {u % 12}."],
                          user_id=f"user-{u}", session_id=f"s-{u % 3}", force=True)


def test_a_reloaded_shard_keeps_little_of_what_its_load_read_and_serves_the_same(tmp_path):
    folder = tmp_path / "s"
    with Hindsight(store=EdgeStore(folder), embedder=FakeEmbedder()) as memory:
        fill(memory, 40)
        before = {u: [r.memory.id for r in memory.recall("Where are the Orion notes?", user_id=f"user-{u}", k=2,
                                                          session_id=f"s-{u % 3}", reinforce=False)] for u in range(0, 40, 7)}
    with Hindsight(store=EdgeStore(folder), embedder=FakeEmbedder()) as memory:
        for u in before:  # every shard these users are in is loaded, and its pages given back
            after = [r.memory.id for r in memory.recall("Where are the Orion notes?", user_id=f"user-{u}", k=2,
                                                         session_id=f"s-{u % 3}", reinforce=False)]
            assert after == before[u]  # the same memories, through the user and session filters
        resident, mapped = resident_kib(folder / "shards")
        assert mapped > 0
        released = sum(page_out(p) for p in (folder / "shards").iterdir())
        if not released:
            pytest.skip("this kernel offers no MADV_PAGEOUT")
        # what the loads read (the logs' 32 MiB segments, each index's page file) is not held as resident
        assert resident < mapped / 4
        fill(memory, 3)  # the shards still take writes after their pages went
        assert memory.recall("Where are the Orion notes?", user_id="user-1", k=1)


def log_resident_after_writes(folder: Path, monkeypatch, kept: int) -> tuple[int, list[str], bool]:
    """The resident KiB of the shard's log and payload indexes after 300 writes, the memories kept, and whether pages can be given
    back here."""
    monkeypatch.setattr(edge, "LOG_CHANGES_KEPT", kept)
    with Hindsight(store=EdgeStore(folder), embedder=FakeEmbedder()) as memory:
        for n in range(12):  # one user: one shard
            memory.write_many([f"Entry {n}.{i}: the Orion build {i} passed on runner {n}." for i in range(25)],
                              user_id="alice", force=True)
        resident, _ = resident_kib(folder / "shards")
        stored = sorted(m.raw_content for m in memory.memories(user_id="alice"))
        return resident, stored, page_out(folder / "shards") > 0


def test_what_writes_add_to_the_log_and_payload_indexes_is_given_back(tmp_path, monkeypatch):
    kept_all, stored, supported = log_resident_after_writes(tmp_path / "all", monkeypatch, 10**9)
    if not supported:
        pytest.skip("this kernel offers no MADV_PAGEOUT")
    given_back, stored_too, _ = log_resident_after_writes(tmp_path / "back", monkeypatch, 50)
    assert given_back < kept_all / 2
    assert stored_too == stored and stored  # the same memories kept, read back after their log's pages went
