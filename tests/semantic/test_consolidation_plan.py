"""Consolidation as a plan: the stage reads the store and writes nothing; the facade embeds the summaries and commits."""

from __future__ import annotations

import numpy as np

from hindsight_core import Hindsight, HindsightConfig, Layer
from hindsight_core.config import SemanticConfig
from hindsight_core.consolidate import plan as consolidation
from hindsight_core.store import open_store
from hindsight_core.testing import FakeEmbedder
from hindsight_core.types import MemoryRecord

from .test_consolidation import LANDSCAPE, write_episodes


def test_a_group_that_repeats_knowledge_confirms_it(clock, real_embedder):
    config = HindsightConfig(semantic=SemanticConfig(auto_consolidate=False, detect_conflicts=True,
                                                     merge_duplicates=False))
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=config) as memory:
        first_episodes = write_episodes(memory, clock)
        knowledge = memory.consolidate(user_id="alice").created[0]
        again = write_episodes(memory, clock)  # the same five statements, each kept as an episode of its own
        confirmed = memory.get(knowledge.id, user_id="alice").confirmations  # each restatement confirmed it
        report = memory.consolidate(user_id="alice")
        assert report.ok and report.created == [] and report.merged == [knowledge.id], report
        held = memory.get(knowledge.id, user_id="alice")
        assert sorted(held.derived_from) == sorted(first_episodes + again)
        assert confirmed == knowledge.confirmations + 5 and held.confirmations == confirmed + 5
        assert [m.layer for m in memory.memories(user_id="alice")].count(Layer.SEMANTIC) == 1


def _store_with_knowledge(text: str, vector: np.ndarray):
    store = open_store(location=":memory:")
    store.open_user("u", embedding_model="fake", dimension=len(vector), create=True)
    record = MemoryRecord(id="00000000-0000-4000-8000-000000000001", user_id="u", summary=text, raw_content=text,
                          timestamp=clock_start(), layer=Layer.SEMANTIC, event_type="preference")
    store.commit("u", upserts=[(record, vector)])
    return store, record


def clock_start():
    from tests.conftest import START

    return START


def test_known_twins_finds_close_knowledge_and_the_same_text_far_away():
    embed = FakeEmbedder(dimension=64)
    text = "Print the reports in landscape on A4."
    vector = embed.embed([text])[0]
    store, record = _store_with_knowledge(text, vector)
    cfg = SemanticConfig()
    far = np.zeros_like(vector)
    far[int(np.argmin(np.abs(vector)))] = 1.0  # a vector nowhere near the knowledge's
    summaries = ["print the reports in landscape on a4", "Print the reports in landscape on A4.",
                 "My favourite colour is green."]
    vectors = np.stack([vector, far, embed.embed([summaries[2]])[0]])
    twins = consolidation.known_twins(store, "u", summaries, vectors, cfg)
    assert [t.id if t else None for t in twins] == [record.id, record.id, None]
    assert consolidation.known_twins(store, "u", [], np.zeros((0, 64), np.float32), cfg) == []
    store.close()


def test_the_stage_writes_nothing(clock, real_embedder):
    config = HindsightConfig(semantic=SemanticConfig(auto_consolidate=False, detect_conflicts=True))
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=config) as memory:
        write_episodes(memory, clock, LANDSCAPE)
        before = memory.memories(user_id="alice")
        pool, fresh = consolidation.candidates(memory.store, "alice", memory.config.semantic)
        drafted = consolidation.draft(pool, fresh, user_id="alice", semantic=memory.config.semantic,
                                      summarizer=None, dry_run=False)
        vectors = memory._embed(drafted.summaries)
        plan = consolidation.finish(drafted, vectors, consolidation.known_twins(
            memory.store, "alice", drafted.summaries, vectors, memory.config.semantic), user_id="alice",
            semantic=memory.config.semantic, decay=memory.config.decay, now=clock(), embedding_model="e5")
        assert len(plan.upserts) == 1 and {r.consolidated_into for r in plan.updates[-5:]} == {plan.upserts[0][0].id}
        assert memory.memories(user_id="alice") == before  # planned, not written
