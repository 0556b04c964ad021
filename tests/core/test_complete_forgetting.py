"""Forgotten means gone: no canary left in the store's files, no resurrection, no half-done forget."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import uuid
from pathlib import Path

import pytest

from hindsight_core import Hindsight, InvalidInputError, Layer
from hindsight_core.testing import FakeEmbedder

from ..files import files_containing

CANARY = "CANARY-7f3a9e41"


def test_forgotten_text_is_unreadable_at_once_and_never_on_disk_in_the_clear(tmp_path, clock):
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock) as memory:
        keep = memory.remember("Project Orion uses the blue theme.", user_id="u", force=True)
        secret = memory.remember(f"My locker code is {CANARY}.", user_id="u", force=True)
        other = memory.remember(f"Reminder: {CANARY} opens the gym locker.", user_id="other", force=True)
        # sealed: the text is stored, recallable, and in no file in the clear (WAL and segments included)
        assert memory.recall("locker code", user_id="u", k=1)[0].memory.raw_content.endswith(f"{CANARY}.")
        assert files_containing(tmp_path, CANARY) == []
        sealed = files_containing(tmp_path, secret.id)
        assert sealed  # the point (id and ciphertext) is on disk ...
        memory.forget(user_id="u", memory_id=secret.id)
        memory.forget(user_id="other", everything=True)
        # ... and once forget returns, its key is gone: nothing left on disk can be opened
        store = memory.store
        assert store._keystore("u").unseal.__self__._key(secret.id, create=False) is None
        assert not (tmp_path / "users" / store_folder(other.user_id)).exists()
        assert files_containing(tmp_path, CANARY) == []
        assert memory.get(keep.id, user_id="u").id == keep.id
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock) as memory:
        assert [m.id for m in memory.memories(user_id="u")] == [keep.id]
        assert memory.users() == ["u"]


def segment_files_containing(root: Path, needle: str) -> list[str]:
    """The engine's segment files holding `needle` (its write-ahead log aside: it keeps what it logged)."""
    return files_containing(root, needle, under="/segments/")


@pytest.mark.parametrize("seal", [True, False], ids=["sealed", "unsealed"])
def test_forget_alone_takes_the_memory_out_of_the_segment_files(tmp_path, clock, seal):
    """No `compact()` call: forgetting through the Python API is for good by itself."""
    from hindsight_core.store.edge import EdgeStore

    with Hindsight(store=EdgeStore(path=tmp_path, seal=seal), embedder=FakeEmbedder(), clock=clock) as memory:
        memory.remember("Project Orion uses the blue theme.", user_id="u", force=True)
        secret = memory.remember(f"My locker code is {CANARY}.", user_id="u", force=True)
        other = memory.remember("Bob's project uses the red theme.", user_id="bob", force=True)
        memory.store.flush()
        assert segment_files_containing(tmp_path, secret.id)  # the point is in the segments ...
        assert bool(segment_files_containing(tmp_path, CANARY)) is not seal  # ... its text in the clear if unsealed
        memory.forget(user_id="u", memory_id=secret.id)
        assert segment_files_containing(tmp_path, secret.id) == []
        assert segment_files_containing(tmp_path, CANARY) == []
        assert memory.get(other.id, user_id="bob").id == other.id
    with Hindsight(store=EdgeStore(path=tmp_path, seal=seal), embedder=FakeEmbedder(), clock=clock) as memory:
        assert [m.raw_content for m in memory.memories(user_id="u")] == ["Project Orion uses the blue theme."]


def test_a_dry_run_or_a_topic_that_matches_nothing_rewrites_nothing(tmp_path, clock):
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock) as memory:
        secret = memory.remember(f"My locker code is {CANARY}.", user_id="u", force=True)
        compactions = []
        store_compact = memory.store.compact
        memory.store.compact = lambda user_id=None: compactions.append(user_id) or store_compact(user_id)
        memory.forget(user_id="u", memory_id=secret.id, dry_run=True)
        memory.forget(user_id="u", about="the weather on Jupiter")
        assert compactions == []
        memory.forget(user_id="u", memory_id=secret.id)
        assert compactions == ["u"]  # the user forgotten for, not every user of the store


def test_compacting_after_one_users_forget_keeps_every_other_users_memories(tmp_path, clock):
    """Users share shards (a fixed number per space): a compaction rewrites one, taking out only what was deleted."""
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock) as memory:
        ids = {user: memory.remember(f"Project Orion uses the blue theme, says {user}.", user_id=user, force=True).id
               for user in ("u", "bob", "carol")}
        memory.store.flush()  # every point in the segments before (the engine may still hold a write in its log)
        assert all(segment_files_containing(tmp_path, i) for i in ids.values())
        memory.forget(user_id="u", memory_id=ids["u"])
        assert memory.store.compact("u") == 1  # the memories shard of u's bucket
        assert memory.store.compact() == len([p for p in (tmp_path / "shards").glob("memories-*") if p.is_dir()])
        assert segment_files_containing(tmp_path, ids["u"]) == []
        for user in ("bob", "carol"):
            assert memory.get(ids[user], user_id=user).id == ids[user]
            assert segment_files_containing(tmp_path, ids[user])


def store_folder(user_id):
    from hindsight_core.store.edge import user_dir_name

    return user_dir_name(user_id)


def test_forgetting_a_topic_takes_the_knowledge_drawn_from_it(tmp_path, clock):
    from hindsight_core import HindsightConfig
    from hindsight_core.config import SemanticConfig, knowledge_on

    config = knowledge_on(HindsightConfig(semantic=SemanticConfig(group_similarity=0.5)))  # knowledge after writes
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock, config=config) as memory:
        for day in range(5):
            memory.remember(f"Print the {CANARY} report on A4 paper in landscape, day {day}.", user_id="u", force=True)
            clock.advance(days=1)
        assert any(m.layer is Layer.SEMANTIC for m in memory.memories(user_id="u"))
        receipt = memory.forget(user_id="u", about=f"{CANARY} report printing")
        assert receipt.count == 6  # five episodes and the knowledge made from them
        assert files_containing(tmp_path, CANARY) == []
        # writing one of the texts again brings back only that text
        memory.remember(f"Print the {CANARY} report on A4 paper in landscape, day 0.", user_id="u", force=True)
        assert len(memory.memories(user_id="u")) == 1


def test_threads_writing_at_once_lose_nothing(tmp_path, clock):
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock) as memory:
        def writer(t):
            for i in range(25):
                memory.remember(f"Thread {t} wrote note {uuid.uuid4().hex} about {uuid.uuid4().hex}.", user_id="u",
                                force=True)

        threads = [threading.Thread(target=writer, args=(t,)) for t in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(memory.memories(user_id="u")) == 150
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock) as memory:
        assert len(memory.memories(user_id="u")) == 150


KILLED_WRITER = textwrap.dedent("""
    import sys
    from hindsight_core import Hindsight
    from hindsight_core.testing import FakeEmbedder
    memory = Hindsight(path=sys.argv[1], embedder=FakeEmbedder())
    i = 0
    while True:
        batch = [f"Batch {i} note {j}: the Orion build {i}-{j} passed." for j in range(20)]
        memory.write_many(batch, user_id="u", force=True)
        ids = [m.id for m in memory.memories(user_id="u")][:5]
        if ids:
            memory.forget(user_id="u", memory_id=ids[0])
        print(i, flush=True)
        i += 1
""")


def test_sigkill_at_random_points_leaves_a_store_that_opens_whole(tmp_path):
    import random

    rng = random.Random(11)
    for round_ in range(4):
        proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(tmp_path)], stdout=subprocess.PIPE,
                                text=True)
        proc.stdout.readline()  # at least one batch done
        threading.Event().wait(rng.uniform(0.05, 0.6))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        with Hindsight(path=tmp_path, embedder=FakeEmbedder()) as memory:
            records = memory.memories(user_id="u")
            assert records, "the store opened empty"
            for record in records:  # no half-written memory: every field is there and consistent
                assert record.raw_content.startswith("Batch ") and record.user_id == "u"
                assert record.summary and record.embedding_model == "fake-hash-embedder"
            assert memory.recall("Orion build passed", user_id="u", k=3)


def test_forgetting_a_user_also_empties_their_archive(tmp_path, clock):
    from hindsight_core.store.base import ARCHIVE

    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock) as memory:
        record = memory.remember(f"Archived note {CANARY}.", user_id="u", force=True)
        memory.store.ensure_space("u", ARCHIVE, memory.embedder.dimension)
        memory.store.put_space("u", ARCHIVE, [record], memory.embedder.embed([record.raw_content]))
        assert memory.store.count_space("u", ARCHIVE) == 1
        memory.forget(user_id="u", everything=True)
        assert not memory.store.space_exists("u", ARCHIVE)
        assert files_containing(tmp_path, CANARY) == []


def test_a_keyed_replacement_defers_the_compaction_and_a_delete_does_not(tmp_path, clock):
    """A put's replaced revision: unreadable at once, its point left in the segments until the next compaction."""
    from hindsight_core.session.keyed import KeyedMemory

    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock) as memory:
        keyed = KeyedMemory(memory)
        first = keyed.put(("profile", "city"), "I live in Lyon.", user_id="u").item.record
        keyed.put(("profile", "city"), "I live in Porto.", user_id="u")
        memory.store.flush()
        assert segment_files_containing(tmp_path, first.id)  # deferred: still in the segments ...
        assert memory.store._keystore("u").unseal.__self__._key(first.id, create=False) is None  # ... unreadable
        with pytest.raises(InvalidInputError, match="for_good"):
            memory.forget(user_id="u", memory_id=first.id, for_good="no")
        keyed.delete(("profile", "city"), user_id="u")
        assert segment_files_containing(tmp_path, first.id) == []  # the delete compacted
