"""A shard's load gives back the pages it read once (its log, its payload indexes), and loses nothing by it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hindsight_core import Hindsight
from hindsight_core.store import EdgeStore
from hindsight_core.store.mapped import READ_AT_LOAD, release_after_load
from hindsight_core.testing import FakeEmbedder

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/smaps")


def resident_kib(folder: Path) -> tuple[int, int]:
    """(resident, mapped) KiB of this process's mappings of the log and payload-index files under `folder`."""
    prefix, resident, mapped, inside = str(folder.resolve()) + "/", 0, 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if "-" in fields[0] and len(fields) >= 5 and ":" not in fields[0]:
            path = fields[5] if len(fields) > 5 else ""
            inside = path.startswith(prefix) and any(part in path for part in READ_AT_LOAD)
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
        released = sum(release_after_load(p) for p in (folder / "shards").iterdir())
        if not released:
            pytest.skip("this kernel offers no MADV_PAGEOUT")
        # what the loads read (the logs' 32 MiB segments, each index's page file) is not held as resident
        assert resident < mapped / 4
        fill(memory, 3)  # the shards still take writes after their pages went
        assert memory.recall("Where are the Orion notes?", user_id="user-1", k=1)
