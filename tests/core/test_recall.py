"""Each recall channel, their fusion, filters, explanations and isolation between users."""

from datetime import date, timedelta

import pytest

from hindsight_core import Hindsight, HindsightConfig, RecallConfig
from hindsight_core.testing import FakeEmbedder

NOTES = [
    "I'm vegetarian, so please never suggest meat dishes.",
    "From now on, print all my reports in A4 landscape.",
    "My manager is Priya Raman and she approves the travel budget.",
    "The invoice XJ-99210 from Acme Corp was paid on Monday.",
    "I moved to Lisbon last year and love the tram rides.",
    "我的项目截止日期是六月三十日",
]


def seed(memory, user="alice", **kwargs):
    return [memory.remember(text, user_id=user, force=True, **kwargs) for text in NOTES]


def only(memory, **recall):
    return RecallConfig(**recall)


def test_dense_channel_finds_a_paraphrase(memory):
    seed(memory)
    results = memory.recall("Which restaurant suits my diet?", user_id="alice", k=1)
    assert results[0].memory.raw_content == NOTES[0]
    assert results[0].explanation.dense_rank == 1
    assert results[0].explanation.keyword_rank is None  # no word in common: the dense channel alone found it


def test_keyword_channel_finds_a_rare_code(real_embedder, clock):
    config = HindsightConfig(recall=RecallConfig(dense_weight=0.0))
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=config) as memory:
        seed(memory)
        results = memory.recall("XJ-99210", user_id="alice", k=1)
        assert results[0].memory.raw_content == NOTES[3]
        assert results[0].explanation.keyword_rank == 1 and results[0].explanation.keyword_score > 0


def test_keyword_channel_handles_chinese(fake_memory):
    seed(fake_memory)
    fake_memory.remember("以后所有报表都用A4纸横向打印", user_id="alice")
    results = fake_memory.recall("项目什么时候截止", user_id="alice", k=2)
    assert results[0].memory.raw_content == NOTES[5]
    assert results[0].explanation.keyword_rank == 1


def test_retention_breaks_ties_towards_newer(clock):
    config = HindsightConfig(recall=RecallConfig(dense_weight=0.0, keyword_weight=1.0))
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, config=config) as memory:
        old = memory.remember("The weekly report lists open tickets.", user_id="u", force=True)
        clock.advance(hours=1)
        new = memory.remember("The weekly report lists closed tickets.", user_id="u", force=True)
        results = memory.recall("weekly report", user_id="u", k=2, reinforce=False)
        assert [r.memory.id for r in results] == [new.id, old.id]  # same keyword match, the older one has faded more
        assert results[0].retention > results[1].retention


def test_fused_recall_prefers_memories_both_channels_agree_on(memory):
    seed(memory)
    results = memory.recall("who approves the travel budget", user_id="alice", k=3)
    top = results[0]
    assert top.memory.raw_content == NOTES[2]
    assert top.explanation.dense_rank == 1 and top.explanation.keyword_rank == 1
    # first in both channels: fused = 1/(60 + 0) + 1/(60 + 0) (Qdrant counts ranks from 0); no prior by default
    assert top.explanation.fused == pytest.approx(2 / 60, rel=1e-5)
    assert top.score == pytest.approx(2 / 60, rel=1e-5)
    assert "dense #1" in str(top.explanation)


def test_default_k_is_five_and_results_are_sorted(fake_memory):
    for i in range(12):
        fake_memory.remember(f"Project Orion milestone {i} is scheduled for review.", user_id="u", force=True)
    results = fake_memory.recall("Project Orion milestone", user_id="u")
    assert len(results) == 5
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)


def test_recall_never_hides_what_is_in_scope(memory):
    """k results whenever the store holds k in scope: keeping noise out of a prompt is the prompt's concern."""
    seed(memory)
    held = len(memory.memories(user_id="alice", include_inactive=False))
    results = memory.recall("quantum chromodynamics lattice gauge", user_id="alice", k=5)
    assert len(results) == min(5, held)
    assert all(r.score > 0 for r in results)


def test_time_range_filters(fake_memory, clock):
    old = fake_memory.remember("Project Orion review notes, part one.", user_id="u", force=True)
    clock.advance(days=10)
    new = fake_memory.remember("Project Orion review notes, part two.", user_id="u", force=True)
    found = lambda **kw: {r.memory.id for r in fake_memory.recall("Project Orion review", user_id="u", **kw)}
    assert found(time_range="last_7_days") == {new.id}
    assert found(time_range="today") == {new.id}
    assert found(time_range=(None, clock() - timedelta(days=5))) == {old.id}
    assert found(time_range=(date(2026, 3, 15), date(2026, 3, 15))) == {old.id}
    assert found() == {old.id, new.id}


def test_layer_event_type_and_session_filters(fake_memory):
    pref = fake_memory.remember("From now on, print Orion reports in landscape.", user_id="u", session_id="s1")
    task = fake_memory.remember("The Orion report print job is done.", user_id="u", session_id="s2")
    assert pref.event_type == "preference" and task.event_type == "task_result"
    found = lambda **kw: {r.memory.id for r in fake_memory.recall("Orion report print", user_id="u", **kw)}
    assert found(event_types=["preference"]) == {pref.id}
    assert found(session_id="s2") == {task.id}
    assert found(layers=["semantic"]) == set()
    assert found(layers=["episodic"]) == {pref.id, task.id}


def test_users_never_see_each_other(fake_memory):
    fake_memory.remember("Alice's locker code is 4412.", user_id="alice", force=True)
    fake_memory.remember("Bob's locker code is 9031.", user_id="bob", force=True)
    for user, mine, theirs in (("alice", "4412", "9031"), ("bob", "9031", "4412")):
        texts = " ".join(r.memory.raw_content for r in fake_memory.recall("locker code", user_id=user, k=10))
        assert mine in texts and theirs not in texts
    assert fake_memory.recall("locker code", user_id="Alice") == []  # ids are exact: no case folding
    assert fake_memory.recall("locker code", user_id="carol") == []


def test_recall_reinforces_only_what_it_returns(fake_memory, clock):
    hit = fake_memory.remember("Project Orion review notes.", user_id="u", force=True)
    miss = fake_memory.remember("Lunch menu has pasta on Fridays.", user_id="u", force=True)
    clock.advance(days=1)
    fake_memory.recall("Project Orion review", user_id="u")
    assert fake_memory.get(hit.id, user_id="u").access_count == 1
    assert fake_memory.get(miss.id, user_id="u").access_count == 0


def test_results_render_as_html_tables(fake_memory):
    fake_memory.remember("Project Orion review notes.", user_id="u", force=True)
    results = fake_memory.recall("Project Orion review", user_id="u")
    html = results._repr_html_()
    assert html.startswith("<table>") and "Project Orion review notes." in html and "retention" in html
    assert "<table>" in results[0]._repr_html_() and "<table>" in results[0].memory._repr_html_()


async def _async_roundtrip(memory):
    record = await memory.aremember("From now on, print Orion reports in landscape.", user_id="u")
    results = await memory.arecall("Orion reports", user_id="u")
    receipt = await memory.aforget(user_id="u", memory_id=record.id)
    return record, results, receipt


def test_async_twins(fake_memory):
    import asyncio

    record, results, receipt = asyncio.run(_async_roundtrip(fake_memory))
    assert results[0].memory.id == record.id and receipt.ids == [record.id]


def test_write_many_takes_per_text_metadata_sources_and_times(fake_memory, clock):
    from datetime import timedelta

    when = [clock() - timedelta(days=2), clock() - timedelta(days=1)]
    results = fake_memory.write_many(["Orion kickoff notes from Priya.", "Orion budget notes from Lars."], user_id="u",
                                     timestamps=when, sources=["user", "tool"],
                                     metadatas=[{"turn": 1}, {"turn": 2}], force=True)
    first, second = (r.record for r in results)
    assert (first.metadata, second.metadata) == ({"turn": 1}, {"turn": 2})
    assert (first.source.value, second.source.value) == ("user", "tool")
    assert (first.timestamp, second.timestamp) == tuple(when)


def test_find_by_metadata_and_recall_with_a_predicate(fake_memory):
    a = fake_memory.remember("Orion kickoff notes.", user_id="u", force=True, metadata={"lg": {"key": "a", "ns": 1}})
    b = fake_memory.remember("Orion budget notes.", user_id="u", force=True, metadata={"lg": {"key": "b"}})
    assert [r.id for r in fake_memory.find(user_id="u", metadata={"lg": {"key": "a"}})] == [a.id]
    assert fake_memory.find(user_id="u", metadata={"lg": {"key": "c"}}) == []
    assert fake_memory.find(user_id="other", metadata={"lg": {"key": "a"}}) == []
    found = fake_memory.recall("Orion notes", user_id="u", where=lambda r: r.metadata["lg"]["key"] == "b")
    assert [r.memory.id for r in found] == [b.id]


def test_duplicate_merging_can_be_turned_off_per_write(fake_memory):
    first = fake_memory.write("Orion kickoff notes.", user_id="u", force=True)
    again = fake_memory.write("Orion kickoff notes.", user_id="u", force=True, merge_duplicates=False)
    assert not again.merged and again.record.id != first.record.id
    assert len(fake_memory.memories(user_id="u")) == 2


def test_look_alike_user_ids_never_share_memories(fake_memory):
    fake_memory.remember("Alice's locker code is 4412.", user_id="alice", force=True)
    for other in ("Alice", "\u0430lice", "alice ", "alice\u200b"):  # case, Cyrillic a, trailing space, zero-width
        try:
            found = fake_memory.recall("locker code", user_id=other)
        except Exception as exc:  # refused outright is fine too: never served alice's memory
            assert type(exc).__name__ == "InvalidUserIdError", exc
            continue
        assert found == []
    mine = fake_memory.memories(user_id="alice")[0]
    for other in ("Alice", "\u0430lice"):
        try:
            fake_memory.get(mine.id, user_id=other)
            raise AssertionError("another user read alice's memory by id")
        except KeyError:
            pass


def test_equal_scores_rank_the_newer_memory_first_whatever_order_the_engine_returned():
    # reciprocal-rank fusion ties whenever two memories swap ranks between the channels, and the engine breaks a
    # tie by point id (random): the order must not depend on it
    from datetime import datetime, timezone

    from hindsight_core.recall.plan import in_order
    from hindsight_core.store.base import Hit
    from hindsight_core.types import MemoryRecord

    day = datetime(2026, 3, 1, tzinfo=timezone.utc)
    older, newer, later_written = (
        Hit(MemoryRecord(id=name, user_id="u", summary=name, raw_content=name, timestamp=day + timedelta(days=d)),
            score=0.031, seq=seq) for name, d, seq in (("older", 0, 5), ("newer", 3, 1), ("later written", 3, 2)))
    best = Hit(MemoryRecord(id="best", user_id="u", summary="b", raw_content="b", timestamp=day), score=0.033)
    for engine_order in ([older, newer, best, later_written], [later_written, older, best, newer]):
        assert [h.record.id for h in in_order(engine_order)] == ["best", "later written", "newer", "older"]
