"""Preference changes, duplicates and re-confirmation (frozen clock, real model)."""

import pytest

from hindsight_core import Hindsight, HindsightConfig, Layer
from hindsight_core.config import SemanticConfig, knowledge_on


@pytest.fixture
def memory(clock, real_embedder):
    config = HindsightConfig(semantic=SemanticConfig(auto_consolidate=False, detect_conflicts=True))
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=config) as memory:
        yield memory


@pytest.mark.parametrize("old_text, new_text, query", [
    ("I prefer red for the slide theme.", "Actually, I prefer blue for the slide theme now.",
     "Which colour does the user prefer for slides?"),
    ("我最喜欢红色", "我现在最喜欢蓝色了", "喜欢什么颜色"),
    ("My home address is 12 Baker Street, London.", "My home address is now 5 Rue de Rivoli, Paris.",
     "What is my home address?"),
])
def test_a_change_of_preference_supersedes_without_deleting(memory, clock, old_text, new_text, query):
    old = memory.remember(old_text, user_id="u")
    clock.advance(days=2)
    result = memory.write(new_text, user_id="u")
    assert result.stored and not result.merged
    new = result.record
    old_now = memory.get(old.id, user_id="u")
    assert old_now.superseded_by == new.id  # kept, and linked to what replaced it
    assert old_now.confidence == pytest.approx(old.confidence * 0.5)
    assert memory.get(new.id, user_id="u").superseded_by is None

    results = memory.recall(query, user_id="u", k=5)
    ids = [r.memory.id for r in results]
    assert ids[0] == new.id and old.id in ids  # the new one answers, the old one stays visible
    old_result = results[ids.index(old.id)]
    assert f"superseded by {new.id}" in str(old_result.explanation)


def test_unrelated_statements_do_not_supersede_each_other(memory):
    a = memory.remember("I prefer window seats on long flights.", user_id="u")
    memory.remember("I prefer vegetarian meals at conferences.", user_id="u")
    memory.remember("我住在上海", user_id="u")
    memory.remember("我的电话是13800138000", user_id="u")
    assert all(m.superseded_by is None for m in memory.memories(user_id="u"))
    assert memory.get(a.id, user_id="u").confidence == a.confidence


def test_events_are_not_conflicts(memory):
    memory.remember("I went to Paris for the design conference last week.", user_id="u")
    memory.remember("I went to Rome for the design conference last month.", user_id="u")
    assert all(m.superseded_by is None for m in memory.memories(user_id="u"))


def test_exact_and_near_duplicates_are_merged(memory, clock):
    first = memory.write("I prefer window seats on long flights.", user_id="u")
    clock.advance(days=1)
    again = memory.write("I prefer window seats on long flights.", user_id="u")
    clock.advance(days=1)
    near = memory.write("I prefer window seats on long flights!", user_id="u")
    assert again.merged and near.merged
    assert again.record.id == near.record.id == first.record.id
    stored = memory.memories(user_id="u")
    assert len(stored) == 1 and stored[0].confirmations == 3 and stored[0].last_confirmed == clock()
    assert "said 3 times" in str(memory.recall("window seat", user_id="u")[0].explanation)


def test_duplicates_within_one_batch_are_merged(memory):
    results = memory.write_many(["I prefer window seats on long flights."] * 3, user_id="u")
    assert [r.merged for r in results] == [False, True, True]
    assert len(memory.memories(user_id="u")) == 1 and memory.memories(user_id="u")[0].confirmations == 3


@pytest.mark.parametrize("model", ["minilm", "e5"])
def test_unrelated_chinese_sentences_are_not_merged(model, clock, request):
    # all-MiniLM-L6-v2, an English model, puts these at cosine > 0.95 and the lexical check keeps them apart;
    # multilingual-e5-small (the default) reads them: cosine 0.889, below duplicate_similarity 0.95 on its scale
    embedder = request.getfixturevalue("minilm_embedder" if model == "minilm" else "real_embedder")
    with Hindsight(location=":memory:", embedder=embedder, clock=clock, config=knowledge_on()) as memory:
        memory.remember("我住在上海", user_id="u")
        memory.remember("我的项目截止日期是六月三十日", user_id="u")
        assert len(memory.memories(user_id="u")) == 2


def test_an_agreeing_episode_reconfirms_knowledge(clock, real_embedder):
    landscape = ["Print this report on A4 in landscape.", "Please print the sales report in landscape on A4.",
                 "Print the budget report on A4, landscape please.", "Print the team report in A4 landscape.",
                 "A4 landscape for this printout too, please."]
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=knowledge_on()) as memory:
        for text in landscape:
            memory.remember(text, user_id="u")
            clock.advance(days=1)
        knowledge = next(m for m in memory.memories(user_id="u") if m.layer is Layer.SEMANTIC)
        clock.advance(days=10)
        memory.remember("Print the weekly report on A4 paper in landscape.", user_id="u")
        refreshed = memory.get(knowledge.id, user_id="u")
        assert refreshed.last_confirmed == clock() and refreshed.confirmations == knowledge.confirmations + 1


@pytest.mark.parametrize("old_text, new_text, present, past", [
    ("I prefer red for the slide theme.", "Actually, I prefer blue for the slide theme now.",
     "Which colour do I prefer for slides?", "Which colour did I prefer for slides before?"),
    ("我最喜欢红色", "我现在最喜欢蓝色了", "我现在喜欢什么颜色？", "我以前喜欢什么颜色？"),
])
def test_a_superseded_memory_steps_back_only_for_a_question_about_the_present(memory, clock, old_text, new_text,
                                                                                present, past):
    old = memory.remember(old_text, user_id="u")
    clock.advance(days=2)
    memory.remember(new_text, user_id="u")
    assert memory.get(old.id, user_id="u").superseded_by  # the change was made

    def weight_of_old(query):
        return next(r.explanation.weight for r in memory.recall(query, user_id="u", k=5) if r.memory.id == old.id)

    assert weight_of_old(present) == pytest.approx(memory.config.recall.superseded_weight)
    assert weight_of_old(past) == pytest.approx(1.0)  # what was true then keeps its full weight
