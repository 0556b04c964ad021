"""Consolidation of episodes into knowledge (frozen clock, real model where meaning matters)."""

import random
import signal
import subprocess
import sys
import textwrap

import pytest

from hindsight_core import Hindsight, HindsightConfig, Layer
from hindsight_core.config import SemanticConfig, knowledge_on

LANDSCAPE = [
    "Print this report on A4 in landscape.",
    "Please print the sales report in landscape on A4.",
    "Print the budget report on A4, landscape please.",
    "Print the team report in A4 landscape.",
    "A4 landscape for this printout too, please.",
]


def manual(**overrides):
    return HindsightConfig(semantic=SemanticConfig(auto_consolidate=False, detect_conflicts=True, **overrides))


def write_episodes(memory, clock, texts=LANDSCAPE, user="alice", every_days=1):
    ids = []
    for text in texts:
        result = memory.write(text, user_id=user)
        assert result.stored, result.decision
        ids.append(result.record.id)
        clock.advance(days=every_days)
    return ids


@pytest.fixture
def manual_memory(clock, real_embedder):
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=manual()) as memory:
        yield memory


def test_landscape_episodes_become_knowledge_recalled_first(manual_memory, clock):
    episodes = write_episodes(manual_memory, clock)  # 5 episodes over 4 days
    preview = manual_memory.consolidate(user_id="alice", dry_run=True)
    assert len(preview.created) == 1 and preview.ok
    assert all(m.layer is Layer.EPISODIC for m in manual_memory.memories(user_id="alice"))  # dry run wrote nothing

    report = manual_memory.consolidate(user_id="alice")
    assert report.ok and len(report.created) == 1, report
    knowledge = report.created[0]
    assert knowledge.layer is Layer.SEMANTIC and sorted(knowledge.derived_from) == sorted(episodes)
    assert "A4" in knowledge.entities and "landscape" in knowledge.summary.lower()

    stored = manual_memory.memories(user_id="alice")
    assert len(stored) == 6  # the episodes stay
    assert all(m.consolidated_into == knowledge.id for m in stored if m.layer is Layer.EPISODIC)

    results = manual_memory.recall("How should I print the quarterly report?", user_id="alice")
    assert results[0].memory.id == knowledge.id
    assert "semantic" in str(results[0].explanation) and "knowledge from 5 episodes" in str(results[0].explanation)
    # the knowledge stands for its episodes: none of them fills another place beside it ...
    assert not any(r.memory.consolidated_into == knowledge.id for r in results)
    # ... but carries the ones recall found, and the block shows them in the user's own words under it
    carried = results[0].episodes
    assert carried and {e.memory.id for e in carried} <= set(episodes)
    block = manual_memory.format_for_prompt(results)
    assert all(f"  · [{e.memory.timestamp:%Y-%m-%d}] {e.memory.raw_content}" in block for e in carried)
    # ... and each stays as findable as it was (full weight) when asked for on its own
    episode_result = manual_memory.recall("How should I print the quarterly report?", user_id="alice",
                                          layers=["episodic"])[0]
    assert episode_result.explanation.weight == 1.0 and "consolidated into" in str(episode_result.explanation)


def test_below_the_thresholds_nothing_is_made(manual_memory, clock):
    write_episodes(manual_memory, clock, LANDSCAPE[:2])  # only 2 episodes
    assert manual_memory.consolidate(user_id="alice").created == []
    clock.advance(days=1)


def test_five_episodes_in_one_day_are_not_yet_knowledge(manual_memory, clock):
    write_episodes(manual_memory, clock, every_days=0.1)  # 5 episodes within half a day: span < 3 days
    assert manual_memory.consolidate(user_id="alice").created == []


def test_a_group_needs_three_different_days_not_only_a_long_span(manual_memory, clock):
    """Said four times over four days, but on two of them (`SemanticConfig.min_days`): not yet knowledge; once said
    on a third day, it is."""
    write_episodes(manual_memory, clock, LANDSCAPE[:2], every_days=0.01)  # the first day, twice
    clock.advance(days=4)
    write_episodes(manual_memory, clock, LANDSCAPE[2:4], every_days=0.01)  # the fifth day, twice
    report = manual_memory.consolidate(user_id="alice")
    assert report.created == [] and "on 2 different days" in report.why_nothing, report.why_nothing
    clock.advance(days=1)
    write_episodes(manual_memory, clock, LANDSCAPE[4:])
    report = manual_memory.consolidate(user_id="alice")
    assert len(report.created) == 1 and "said 5 times" in report.created[0].summary, report


def test_consolidation_twice_is_a_no_op(manual_memory, clock):
    write_episodes(manual_memory, clock)
    first = manual_memory.consolidate(user_id="alice")
    before = {m.id: m for m in manual_memory.memories(user_id="alice")}
    second = manual_memory.consolidate(user_id="alice")
    assert len(first.created) == 1 and second.created == [] and second.merged == [] and second.ok
    assert {m.id: m for m in manual_memory.memories(user_id="alice")} == before


def test_automatic_consolidation_after_writes(clock, real_embedder):
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=knowledge_on()) as memory:
        write_episodes(memory, clock)
        semantic = [m for m in memory.memories(user_id="alice") if m.layer is Layer.SEMANTIC]
        # formed on the fourth day (said on three days spread over three), then confirmed by the fifth
        assert len(semantic) == 1 and len(semantic[0].derived_from) == 4 and semantic[0].confirmations == 5


def test_consolidate_all_serves_a_scheduler(manual_memory, clock):
    write_episodes(manual_memory, clock, user="alice")
    clock.set(clock().replace(day=1, month=3))
    write_episodes(manual_memory, clock, user="bob")
    reports = manual_memory.consolidate_all()
    assert sorted(r.user_id for r in reports) == ["alice", "bob"]
    assert all(len(r.created) == 1 for r in reports)


def test_llm_summariser_is_used_and_validated(clock, real_embedder):
    good = lambda prompt: '{"summary": "The user prefers A4 landscape printing."}'  # noqa: E731
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=manual(), summarizer=good) as m:
        write_episodes(m, clock)
        report = m.consolidate(user_id="alice")
        assert report.ok and report.created[0].summary == "The user prefers A4 landscape printing."


@pytest.mark.parametrize("answer", [
    "Sure! Here is a summary of what the user likes.",            # not JSON
    '{"summary": ""}',                                              # empty
    '{"summary": "The user likes printing in landscape."}',         # drops the shared entity A4
    '{"summary": "' + "very long " * 60 + 'A4"}',                  # too long
    '{"summary": null}',
])
def test_garbage_from_the_summariser_leaves_the_store_untouched(clock, real_embedder, answer):
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=manual(),
                   summarizer=lambda prompt: answer) as memory:
        write_episodes(memory, clock)
        before = {m.id: m for m in memory.memories(user_id="alice")}
        report = memory.consolidate(user_id="alice")
        assert not report.ok and report.created == [] and report.errors
        assert "FAILED" in str(report)
        assert {m.id: m for m in memory.memories(user_id="alice")} == before


def test_a_crashing_summariser_is_an_error_not_a_success(clock, real_embedder):
    def broken(prompt):
        raise ConnectionError("model endpoint down")

    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=manual(),
                   summarizer=broken) as memory:
        write_episodes(memory, clock)
        report = memory.consolidate(user_id="alice")
        assert not report.ok and "ConnectionError" in report.errors[0]
        assert all(m.layer is Layer.EPISODIC and not m.consolidated_into for m in memory.memories(user_id="alice"))


def test_forgetting_the_episodes_forgets_the_knowledge(manual_memory, clock):
    episodes = write_episodes(manual_memory, clock, LANDSCAPE[:4], every_days=2)
    knowledge = manual_memory.consolidate(user_id="alice").created[0]
    receipt = manual_memory.forget(user_id="alice", memory_id=episodes[-1])  # 3 remain on 3 days: re-derived
    assert receipt.rederived == (knowledge.id,)
    assert knowledge.id in {m.id for m in manual_memory.memories(user_id="alice")}
    assert episodes[-1] not in manual_memory.get(knowledge.id, user_id="alice").derived_from
    receipt = manual_memory.forget(user_id="alice", memory_id=episodes[0])  # 2 remain: below the threshold
    assert knowledge.id in receipt.ids
    remaining = manual_memory.memories(user_id="alice")
    assert len(remaining) == 2 and all(not m.consolidated_into for m in remaining)


CRASH_SCRIPT = textwrap.dedent("""
    import os, signal, sys
    from datetime import datetime, timezone
    from hindsight_core import Hindsight, HindsightConfig
    from hindsight_core.config import SemanticConfig
    from hindsight_core.store.edge import EdgeStore
    from hindsight_core.testing import FakeEmbedder, FrozenClock

    path, kill_at = sys.argv[1], int(sys.argv[2])
    clock = FrozenClock(datetime(2026, 3, 15, tzinfo=timezone.utc))
    config = HindsightConfig(semantic=SemanticConfig(auto_consolidate=False, detect_conflicts=True,
                                                     group_similarity=0.5))
    memory = Hindsight(path=path, embedder=FakeEmbedder(), clock=clock, config=config)
    for i in range(6):
        memory.write(f"Print the Orion report number {i} on A4 paper in landscape.", user_id="u", force=True)
        clock.advance(days=1)
    original = EdgeStore._set_fields
    def dying(self, shard, updates, user_id):  # apply the first kill_at - 1 field updates of the change, then die
        updates = list(updates)
        if len(updates) >= kill_at:
            original(self, shard, updates[:kill_at - 1], user_id)
            os.kill(os.getpid(), signal.SIGKILL)
        return original(self, shard, updates, user_id)
    EdgeStore._set_fields = dying
    print("consolidating", flush=True)
    memory.consolidate(user_id="u")
    print("done", flush=True)
""")


def test_a_process_killed_during_consolidation_leaves_before_or_after(tmp_path):
    from hindsight_core.testing import FakeEmbedder

    rng = random.Random(4)
    for attempt, kill_at in enumerate([1, 3, rng.randint(2, 6), 99]):
        path = tmp_path / f"store-{attempt}"
        proc = subprocess.run([sys.executable, "-c", CRASH_SCRIPT, str(path), str(kill_at)], capture_output=True,
                              text=True, timeout=120)
        assert "consolidating" in proc.stdout, proc.stderr
        killed = proc.returncode == -signal.SIGKILL
        assert killed == (kill_at != 99)
        with Hindsight(path=path, embedder=FakeEmbedder(),
                       config=HindsightConfig(semantic=SemanticConfig(auto_consolidate=False,
                                                                      detect_conflicts=True))) as memory:
            records = memory.memories(user_id="u")
            semantic = [m for m in records if m.layer is Layer.SEMANTIC]
            episodes = [m for m in records if m.layer is Layer.EPISODIC]
            assert len(episodes) == 6
            # the journal was written before the first update: on reopen the change is completed
            assert len(semantic) == 1, (kill_at, semantic)
            assert {m.id for m in episodes if m.consolidated_into == semantic[0].id} == set(semantic[0].derived_from)
            assert memory.consolidate(user_id="u").created == []  # and nothing left to redo
