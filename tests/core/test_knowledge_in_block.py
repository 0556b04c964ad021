"""A knowledge memory in the block brings the user's own words it was drawn from: the episodes recall found."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hindsight_core import format_for_prompt
from hindsight_core.recall.formatting import EPISODES_MARK, USER_SECTION
from hindsight_core.recall.plan import final_order
from hindsight_core.remote.wire import scored_in, scored_out
from hindsight_core.session.context import context_widths, fit_block
from hindsight_core.language.tokens import default_tokenizer
from hindsight_core.types import Explanation, Layer, MemoryRecord, ScoredMemory

DAY = datetime(2026, 2, 10, 9, tzinfo=timezone.utc)
SAID = ["我不吃香菜，做菜别放。", "香菜我真的不吃，记得别加。", "别放香菜哦，我一直不吃的。"]
SUMMARY = "偏好：我不吃香菜，做菜别放（说过3次，2026-02-10 至 02-12）"


def scored(record: MemoryRecord, score: float) -> ScoredMemory:
    return ScoredMemory(record, score, 1.0, Explanation(1, 0.9, None, 0.0, score, 1.0, record.layer.value, score))


def store(texts=SAID, others=("我住在杭州。", "下周三去上海出差。", "我女儿八岁了。", "周末想去爬山。")):
    """(the knowledge, its episodes, other memories), as recall would rank them: the first episode, the knowledge,
    an unrelated memory, the other episodes, the rest."""
    episodes = [MemoryRecord(id=f"e{i}", user_id="u", raw_content=t, summary=t, timestamp=DAY + timedelta(days=i),
                             consolidated_into="k") for i, t in enumerate(texts)]
    knowledge = MemoryRecord(id="k", user_id="u", raw_content=SUMMARY, summary=SUMMARY, layer=Layer.SEMANTIC,
                             timestamp=DAY + timedelta(days=2), derived_from=[e.id for e in episodes],
                             event_type="preference")
    rest = [MemoryRecord(id=f"o{i}", user_id="u", raw_content=t, summary=t, timestamp=DAY) for i, t in
            enumerate(others)]
    return knowledge, episodes, rest


def ranked(knowledge, episodes, rest):
    order = [episodes[0], knowledge, rest[0], *episodes[1:], *rest[1:]]
    return [scored(r, 1.0 - i / 100) for i, r in enumerate(order)]


def test_knowledge_stands_for_its_episodes_and_carries_those_ranked_above_the_last_shown():
    knowledge, episodes, rest = store()
    top = final_order(ranked(knowledge, episodes, rest), k=3)
    assert [r.memory.id for r in top] == ["k", "o0", "o1"]
    # every episode ranked above the last result shown comes with the knowledge, best first
    assert [e.memory.id for e in top[0].episodes] == ["e0", "e1", "e2"]
    assert all(not r.episodes for r in top[1:])


def test_knowledge_takes_the_place_of_its_best_episode_never_one_above_it():
    knowledge, episodes, rest = store()
    order = [knowledge, *rest[:2], episodes[2], *rest[2:], episodes[0]]
    top = final_order([scored(r, 1.0 - i / 100) for i, r in enumerate(order)], k=3)
    # ranked first on its own, it does not push out what its episodes would not have: it stands where e2 did
    assert [r.memory.id for r in top] == ["o0", "o1", "k"]
    assert [e.memory.id for e in top[2].episodes] == ["e2"]  # e0 ranks below the last result shown


def test_knowledge_without_an_episode_among_the_results_keeps_its_own_place_and_carries_none():
    knowledge, _, rest = store()
    top = final_order([scored(r, 1.0 - i / 100) for i, r in enumerate([knowledge, *rest])], k=3)
    assert top[0].memory.id == "k" and top[0].episodes == ()
    block = format_for_prompt(top)
    assert "·" not in block and USER_SECTION in block.splitlines()


def test_the_block_shows_the_knowledge_then_the_users_own_words_dated_and_each_once():
    knowledge, episodes, rest = store()
    top = final_order(ranked(knowledge, episodes, rest), k=3)
    lines = format_for_prompt(top).splitlines()
    assert any(EPISODES_MARK in line for line in lines)
    at = next(i for i, line in enumerate(lines) if SUMMARY in line)
    assert lines[at + 1:at + 4] == [f"  · [{e.timestamp:%Y-%m-%d}] {e.raw_content}" for e in episodes]
    block = "\n".join(lines)
    assert all(block.count(e.raw_content) == 1 for e in episodes)


def test_a_budget_shortens_the_episodes_with_the_context_before_it_drops_a_memory():
    knowledge, episodes, rest = store(texts=[t * 20 for t in SAID])
    top = final_order(ranked(knowledge, episodes, rest), k=3)
    count = default_tokenizer().count

    def cost(chosen, width):
        return count(format_for_prompt(chosen, context_chars=width))

    full = cost(top, context_widths()[0])
    kept, width = fit_block(top, cost, full - 1)
    assert len(kept) == 3 and 0 < width < context_widths()[0]
    kept, width = fit_block(top, cost, cost(top, 0))
    assert len(kept) == 3 and width == 0 and "·" not in format_for_prompt(kept, context_chars=0)


def test_the_episodes_cross_the_wire_with_the_knowledge():
    knowledge, episodes, rest = store()
    top = final_order(ranked(knowledge, episodes, rest), k=3)
    again = scored_in(scored_out(top[0]))
    assert [e.memory.raw_content for e in again.episodes] == SAID
    assert format_for_prompt([again, *top[1:]]) == format_for_prompt(top)
