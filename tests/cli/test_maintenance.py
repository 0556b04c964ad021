"""`hindsight migrate` (interrupted, then resumed) and `hindsight archive` (then restored)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from hindsight_core import EdgeStore, EmbedderMismatchError, Hindsight, Status, maintenance
from hindsight_core.config import HindsightConfig, SemanticConfig
from hindsight_core.store.base import ARCHIVE, MEMORIES
from hindsight_core.testing import FakeEmbedder

#: store each test memory as written: no merging of near-duplicates, no consolidation
AS_WRITTEN = HindsightConfig(semantic=SemanticConfig(auto_consolidate=False, merge_duplicates=False))

TOPICS = ["the blue theme of Project Orion", "the Friday deploy freeze", "the A4 landscape reports",
          "the vegetarian team lunch", "the Berlin office move", "the quarterly board handout"]


def fill(path, n: int = 120, archived: int = 5) -> dict[str, object]:
    """n memories for alice (fake embedder), `archived` of them moved to the archive."""
    texts = [f"Note {i}: we agreed on {TOPICS[i % len(TOPICS)]} in meeting {i}." for i in range(n)]
    start = datetime.now(timezone.utc) - timedelta(days=30)
    with Hindsight(path=path, embedder=FakeEmbedder(), config=AS_WRITTEN) as memory:
        memory.write_many(texts, user_id="alice", force=True,
                          timestamps=[start - timedelta(days=200 if i < archived else 0, minutes=i) for i in range(n)])
        originals = {m.id: m for m in memory.memories(user_id="alice")}
    assert len(originals) == n
    store = EdgeStore(path)
    try:
        assert maintenance.archive(store, now=datetime.now(timezone.utc), older_than_days=90).count == archived
    finally:
        store.close()
    return originals


class Interrupt(KeyboardInterrupt):
    """What Ctrl-C raises, from inside the progress callback."""


def interrupted_migration(path, embedder, after_batches: int, batch_size: int) -> None:
    store = EdgeStore(path)
    batches = 0

    def progress(n: int) -> None:
        nonlocal batches
        batches += 1
        if batches == after_batches:
            raise Interrupt

    try:
        with pytest.raises(Interrupt):
            maintenance.migrate(store, embedder, batch_size=batch_size, progress=progress)
    finally:
        store.close()


def test_an_interrupted_migration_resumes_where_it_stopped(hs, minilm_embedder):
    # a migration to a model other than the default: the interrupted half runs in-process with all-MiniLM-L6-v2,
    # the CLI resumes it with `--to all-MiniLM-L6-v2`, so both halves must be that model
    originals = fill(hs.store, n=80)
    interrupted_migration(hs.store, minilm_embedder, after_batches=2, batch_size=16)

    # meanwhile the store still works, on the old model, untouched
    with Hindsight(path=hs.store, embedder=FakeEmbedder()) as memory:
        assert len(memory.memories(user_id="alice")) == 75
        assert memory.recall("Project Orion theme", user_id="alice", reinforce=False)

    out = hs("migrate", "--to", "all-MiniLM-L6-v2", "--batch-size", "32").stdout
    assert "resuming the migration to all-MiniLM-L6-v2: 32 of 80 memories already done" in out
    assert "migrated 1 user to all-MiniLM-L6-v2 (48 memories embedded now, 32 earlier)" in out
    assert "The store remembers it" in out
    # and it does: no --embedding-model (nor its variable) is needed from now on
    found = json.loads(hs("recall", "-u", "alice", "Which colour scheme does Orion use?", "--json", model=None).stdout)
    assert found and {r["memory"]["embedding_model"] for r in found} == {"all-MiniLM-L6-v2"}

    store = EdgeStore(hs.store)
    try:
        assert store.registered_embedding("alice") == ("all-MiniLM-L6-v2", 384)
        assert maintenance.migration_in_progress(store) is None
        seen = {}
        for space in (MEMORIES, ARCHIVE):
            for record, vector, _ in store.load_space("alice", space):
                seen[record.id] = (space, record, vector)
        for name in ("staging", "staging_archive"):
            assert not store.space_exists("alice", name)  # no leftovers
    finally:
        store.close()
    assert set(seen) == set(originals)
    assert sum(space == ARCHIVE for space, _, _ in seen.values()) == 5
    expected = dict(zip(seen, minilm_embedder.embed([record.raw_content for _, record, _ in seen.values()])))
    for memory_id, (space, record, vector) in seen.items():
        original = originals[memory_id]
        assert record.embedding_model == "all-MiniLM-L6-v2"
        expected_status = Status.ARCHIVED if space == ARCHIVE else Status.ACTIVE
        assert record.evolve(embedding_model=original.embedding_model, status=original.status) == original
        assert record.status is expected_status
        assert np.allclose(vector, expected[memory_id], atol=1e-5)

    with Hindsight(path=hs.store, embedder=minilm_embedder) as memory:
        top = memory.recall("Which colour scheme does Orion use?", user_id="alice", k=3)
        assert any("Project Orion" in r.memory.raw_content for r in top)
    with Hindsight(path=hs.store, embedder=FakeEmbedder()) as memory:
        with pytest.raises(EmbedderMismatchError):
            memory.recall("Orion", user_id="alice")
    # archived memories were migrated too, so they restore into the new collection
    assert "restored 5 memories" in hs("archive", "--restore").stdout
    assert "already embedded with all-MiniLM-L6-v2" in hs("migrate", "--to", "all-MiniLM-L6-v2").stdout


class CrashOnce(EdgeStore):
    """A real store that fails once, mid-swap, after the old collection was dropped: the worst moment."""

    crashed = False

    def put_space(self, user_id, space, records, vectors, extras=None):
        if space == MEMORIES and not CrashOnce.crashed:
            CrashOnce.crashed = True
            super().put_space(user_id, space, records[:3], vectors[:3], extras[:3] if extras else None)
            raise RuntimeError("power cut")
        return super().put_space(user_id, space, records, vectors, extras)


def test_a_migration_interrupted_while_swapping_completes_on_the_next_run(hs):
    originals = fill(hs.store, n=40, archived=0)
    target = FakeEmbedder(dimension=48, name="fake-48")
    store = CrashOnce(hs.store)
    try:
        with pytest.raises(RuntimeError, match="power cut"):
            maintenance.migrate(store, target, batch_size=64)
        assert maintenance.migration_in_progress(store)["swapping"] == ["alice"]
        with pytest.raises(Exception, match="swapping"):
            maintenance.abort_migration(store)  # the old vectors are gone: only resuming is safe
    finally:
        store.close()
    store = EdgeStore(hs.store)
    try:
        plan = maintenance.plan_migration(store, target)
        assert plan.resumed and plan.remaining == 0 and plan.done == 40
        maintenance.migrate(store, target, plan=plan)
        assert store.registered_embedding("alice") == ("fake-48", 48)
    finally:
        store.close()
    with Hindsight(path=hs.store, embedder=target) as memory:
        assert {m.id for m in memory.memories(user_id="alice")} == set(originals)


def test_migrate_refuses_another_target_while_one_is_unfinished_and_can_abort(hs):
    fill(hs.store, n=30, archived=0)
    interrupted_migration(hs.store, FakeEmbedder(dimension=48, name="fake-48"), after_batches=1, batch_size=8)
    result = hs("migrate", "--to", "fake-hash-embedder", ok=False)
    assert result.exit_code == 1 and "a migration to fake-48 is in progress" in result.output
    assert "abandoned" in hs("migrate", "--abort").stdout
    store = EdgeStore(hs.store)
    try:
        assert maintenance.migration_in_progress(store) is None
        assert not store.space_exists("alice", "staging")
        assert store.registered_embedding("alice") == ("fake-hash-embedder", 64)
    finally:
        store.close()
    assert "no migration in progress" in hs("migrate", "--abort").stdout
    result = hs("migrate", ok=False)
    assert result.exit_code == 2 and "--to MODEL" in result.output


def test_archive_then_restore(hs):
    now = datetime.now(timezone.utc)
    with Hindsight(path=hs.store, embedder=FakeEmbedder()) as memory:
        old = memory.write("The staging server restart took 14 minutes.", user_id="alice", force=True,
                           event_type="task_result", timestamp=now - timedelta(days=120)).record
        recalled = memory.write("Project Orion uses the blue theme.", user_id="alice", force=True,
                                timestamp=now - timedelta(days=120)).record
        fresh = memory.write("I am allergic to peanuts, so never suggest dishes with peanuts.", user_id="alice",
                             timestamp=now - timedelta(days=10)).record
        other = memory.write("Bob's old note about the Berlin office move.", user_id="bob", force=True,
                             timestamp=now - timedelta(days=300)).record
    # a recall 20 days ago keeps the Orion memory active, however old it is
    store = EdgeStore(hs.store)
    store.update_fields("alice", [(recalled.id, {"last_accessed": (now - timedelta(days=20)).isoformat()})])
    store.close()

    preview = hs("archive", "--dry-run").stdout
    assert preview.startswith("would archive 2 memories") and old.id in preview and other.id in preview
    assert hs("archive", "--user", "alice").stdout.startswith("archived 1 memory")
    with Hindsight(path=hs.store, embedder=FakeEmbedder()) as memory:
        ids = {m.id for m in memory.memories(user_id="alice")}
        assert ids == {recalled.id, fresh.id}
        assert not any(r.memory.id == old.id for r in memory.recall("staging server restart", user_id="alice",
                                                                     k=10))
    assert hs("archive", "--older-than", "200").stdout.startswith("archived 1 memory")  # bob's, 300 days
    assert "archived: 2" in hs("stats").stdout

    result = hs("archive", "--restore", "--id", "no-such-id", ok=False)
    assert result.exit_code == 1 and "not in the archive: no-such-id; nothing was restored" in result.output
    assert "restored 0" not in result.output  # refused before anything was said to move
    both = hs("archive", "--restore", "--id", old.id, "--id", "no-such-id", ok=False)
    assert both.exit_code == 1 and "not in the archive: no-such-id" in both.output  # one id missing: none moves
    assert hs("archive", "--restore", "--id", old.id).stdout.startswith("restored 1 memory")
    with Hindsight(path=hs.store, embedder=FakeEmbedder()) as memory:
        back = memory.get(old.id, user_id="alice")
        assert back == old  # every field as before, status active again
        assert old.id in [r.memory.id for r in memory.recall("staging server restart", user_id="alice",
                                                             k=10)]
    assert hs("archive", "--restore").stdout.startswith("restored 1 memory")  # the rest: bob's
    store = EdgeStore(hs.store)
    try:
        assert store.count_space("alice", ARCHIVE) == 0 and store.count_space("bob", ARCHIVE) == 0
    finally:
        store.close()


def test_forget_everything_also_empties_the_archive(hs):
    with Hindsight(path=hs.store, embedder=FakeEmbedder()) as memory:
        memory.write("Project Orion uses the blue theme.", user_id="alice", force=True,
                     timestamp=datetime.now(timezone.utc) - timedelta(days=120))
        memory.write("I am allergic to peanuts, so never suggest dishes with peanuts.", user_id="alice")
    hs("archive")
    assert "forgot 1 memory and 1 archived" in hs("forget", "-u", "alice", "--everything", "--yes").stdout
    store = EdgeStore(hs.store)
    try:
        assert store.count_space("alice", ARCHIVE) == 0 and store.users() == []
    finally:
        store.close()


def test_archive_refuses_nonsense(hs):
    result = hs("archive", "--older-than", "-3", ok=False)
    assert result.exit_code == 2
    result = hs("archive", "--id", "x", ok=False)
    assert result.exit_code == 2 and "--id only applies with --restore" in result.output
