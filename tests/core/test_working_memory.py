"""Working memory: the pure priority maths, budgets checked by hand, the window on a frozen clock."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hindsight_core import InvalidInputError
from hindsight_core.language.tokens import TiktokenTokenizer
from hindsight_core.testing import FakeEmbedder, FrozenClock
from hindsight_core.working import ContextBudget, ContextBudgetError, PriorityConfig, WorkingMemory
from hindsight_core.working import priority as prio

T0 = datetime(2026, 3, 15, 9, 0, tzinfo=timezone.utc)
RECENCY_ONLY = PriorityConfig(recency_weight=1.0, relevance_weight=0.0, density_weight=0.0,
                              half_life_turns=None, half_life_seconds=1800)


class WordTokenizer:
    """One token per whitespace-separated word: budgets that can be checked by hand."""

    name = "words"

    def count(self, text: str) -> int:
        return len(text.split())


# -- pure maths ------------------------------------------------------------------------------

def test_recency_halves_per_half_life_of_turns_and_of_time():
    config = PriorityConfig()  # 12 turns, 1800 s
    assert prio.recency(0, 0, config) == 1.0
    assert prio.recency(6, 900, config) == pytest.approx(0.5)  # 2^-0.5 · 2^-0.5
    assert prio.recency(12, 0, PriorityConfig(half_life_seconds=None)) == pytest.approx(0.5)
    assert prio.recency(0, 3600, PriorityConfig(half_life_turns=None)) == pytest.approx(0.25)
    assert prio.recency(99, 10**6, PriorityConfig(half_life_turns=None, half_life_seconds=None)) == 1.0


def test_relevance_is_cosine_clipped_at_zero():
    vectors = np.array([[1, 0], [0, 1], [-1, 0], [0.6, 0.8]], dtype=np.float32)
    assert prio.relevance(np.array([1.0, 0.0]), vectors).tolist() == pytest.approx([1.0, 0.0, 0.0, 0.6])
    assert prio.relevance(None, vectors).tolist() == [0.0, 0.0, 0.0, 0.0]


def test_density_scores_parameters_and_corrections_not_chit_chat():
    assert prio.density("Haha, nice, thanks! How's your day going?").score == 0.0
    assert prio.density("ok thanks").score == 0.0
    confirmed = prio.density("Confirmed: print the brochure at 300 dpi on A3 glossy paper.")
    assert confirmed.score == 1.0  # A3 and 300 (2 points) + a confirmation (2) = 4 of 4
    assert "a confirmed parameter" in confirmed.reasons and "A3" in confirmed.reasons[0]
    correction = prio.density("No, it should be 3 pm on Friday.")
    assert correction.score == 0.75  # the number 3 (1) + a correction (2) = 3 of 4
    chinese = prio.density("不对，应该是下周三下午3点开会。")
    assert chinese.score == 0.75 and "a correction" in chinese.reasons  # 3 (1) + correction (2)


def test_priority_is_the_weighted_sum():
    assert prio.priority(0.5, 0.8, 1.0, PriorityConfig()) == pytest.approx(0.3 * 0.5 + 0.5 * 0.8 + 0.2 * 1.0)
    assert prio.priority(0.5, 0.8, 1.0, RECENCY_ONLY) == 0.5


def test_budget_filling_by_hand():
    costs, priorities = [5, 3, 4, 2], [0.9, 0.1, 0.5, 0.3]
    assert prio.select_within_budget(costs, priorities, 9, pinned=[3]) == [0, 3]       # 2+5; 4 and 3 overflow
    assert prio.select_within_budget(costs, priorities, 10, pinned=[3]) == [0, 1, 3]   # 4 skipped, 3 still fits
    assert prio.select_within_budget([1, 1, 1], [0.5, 0.5, 0.5], 2) == [1, 2]           # ties go to the newer
    assert prio.select_within_budget([], [], 10) == []


def test_context_budget_reserves_a_fifth_for_the_answer():
    assert (ContextBudget(1000).reserved, ContextBudget(1000).available) == (200, 800)
    assert (ContextBudget(8192).reserved, ContextBudget(8192).available) == (1639, 6553)  # ceil(1638.4)
    assert ContextBudget(25, 0.5).available == 12
    for bad in (dict(context_limit=0), dict(context_limit=100, reserve_ratio=1.0), dict(context_limit=1.5)):
        with pytest.raises(InvalidInputError):
            ContextBudget(**bad)


@pytest.mark.parametrize("bad", [{"recency_weight": -1}, {"half_life_turns": 0}, {"relevance_weight": float("nan")}])
def test_bad_priority_config(bad):
    with pytest.raises(InvalidInputError):
        PriorityConfig(**bad)


# -- the window on a frozen clock, budgets by hand -----------------------------------------------

def five_messages(clock: FrozenClock, **options) -> WorkingMemory:
    """Five messages 30 minutes apart; with one token per word plus 4 of framing they cost 7, 6, 8, 5, 7."""
    wm = WorkingMemory("s", embedder=FakeEmbedder(), tokenizer=WordTokenizer(), clock=clock, **options)
    for role, text in [("user", "alpha beta gamma"), ("assistant", "one two"), ("user", "red green blue yellow"),
                       ("assistant", "ok"), ("user", "final question here")]:
        wm.append(role, text)
        clock.advance(minutes=30)
    clock.advance(minutes=-30)  # "now" is the moment of the last message
    return wm


def test_window_by_hand_on_a_frozen_clock():
    clock = FrozenClock(T0)
    wm = five_messages(clock, priority=RECENCY_ONLY, context_limit=25)  # reserve 5, available 20
    window = wm.window()
    assert [s.recency for s in window.scores] == [0.0625, 0.125, 0.25, 0.5, 1.0]
    # pinned 7, then 5 -> 12, then 8 -> 20; 6 and 7 would overflow
    assert [m.content for m in window.messages] == ["red green blue yellow", "ok", "final question here"]
    assert window.tokens == 20 and window.budget == 20
    assert [s.kept for s in window.scores] == [False, False, True, True, True]
    assert window.scores[-1].pinned and "pinned" in window.explain()

    half = WorkingMemory("s", backend=wm.backend, tokenizer=WordTokenizer(), clock=clock, priority=RECENCY_ONLY,
                         context_limit=25, reserve_ratio=0.5)  # reserve ceil(12.5) = 13, available 12
    assert [m.content for m in half.window().messages] == ["ok", "final question here"]
    with pytest.raises(ContextBudgetError):  # the latest user message alone costs 7
        half.window(budget=6)
    assert half.window(budget=7).tokens == 7


def test_the_latest_user_message_is_kept_even_at_the_lowest_priority():
    clock = FrozenClock(T0)
    density_only = PriorityConfig(recency_weight=0, relevance_weight=0, density_weight=1)
    wm = WorkingMemory("s", embedder=FakeEmbedder(), tokenizer=WordTokenizer(), clock=clock, priority=density_only,
                       context_limit=100, reserve_ratio=0.0)
    wm.append("user", "Confirmed: 300 dpi on A3.")
    wm.append("user", "and then?")
    wm.append("assistant", "Priya booked room 4B for 10:30 on 2026-03-20.")
    window = wm.window(budget=10)  # 'and then?' costs 6 and has density 0; the assistant message (13) cannot fit
    assert [m.content for m in window.messages] == ["and then?"]
    assert window.scores[1].pinned and window.scores[1].density == 0.0
    with pytest.raises(ContextBudgetError):
        wm.window(budget=5)


def test_time_moves_the_window():
    """Same messages, same budget: a long pause makes turn order matter more than clock time."""
    clock = FrozenClock(T0)
    config = PriorityConfig(recency_weight=1.0, relevance_weight=0.0, density_weight=0.0, half_life_turns=2,
                            half_life_seconds=1800)
    wm = WorkingMemory("s", tokenizer=WordTokenizer(), clock=clock, priority=config, context_limit=100,
                       reserve_ratio=0.0)
    wm.append("assistant", "older but long ago")                 # t0
    clock.advance(hours=3)
    wm.append("assistant", "newer by turns")                     # t0 + 3 h
    wm.append("user", "now")                                     # t0 + 3 h
    scores = wm.window(budget=100).scores
    # recency = 2^(-turns/2) · 2^(-seconds/1800): 2^-1 · 2^-6 and 2^-0.5 · 2^0
    assert scores[0].recency == pytest.approx(2 ** -7) and scores[1].recency == pytest.approx(2 ** -0.5)
    clock.advance(hours=1)
    later = wm.window(budget=100).scores
    assert later[1].recency == pytest.approx(2 ** -0.5 * 2 ** -2)


# -- token counts ------------------------------------------------------------------------------------

def test_chinese_and_english_are_counted_exactly_with_framing():
    wm = WorkingMemory("s", embedder=FakeEmbedder(), context_limit=1000)
    english = wm.append("user", "hello world")
    chinese = wm.append("user", "以后所有报表都用A4纸横向打印")
    cats = wm.append("user", "我喜欢猫")
    # cl100k_base: 2, 18 and 8 tokens (我喜欢猫 is 4 characters but 8 byte-level tokens), plus 4 per message
    assert [wm.tokens_of(m) for m in (english, chinese, cats)] == [6, 22, 12]
    assert wm.window().tokens == 40


def test_a_different_tokenizer_can_be_plugged_in():
    class Chars:
        name = "chars"

        def count(self, text: str) -> int:
            return len(text)

    wm = WorkingMemory("s", embedder=FakeEmbedder(), tokenizer=Chars(), message_overhead=0)
    assert wm.tokens_of(wm.append("user", "我喜欢猫")) == 4
    assert WorkingMemory("t", tokenizer=TiktokenTokenizer("o200k_base")).tokenizer.name == "o200k_base"


# -- the confirmed parameter from turn 2 at turn 20 ---------------------------------------------------

CONVERSATION = [
    ("user", "Can you get the bakery's spring brochure ready for the print shop this week?"),
    ("assistant", "Confirmed: the brochure will print at 300 dpi on A3 glossy paper, 500 copies."),   # turn 2
    ("user", "Haha, great, thanks! How's your day going so far?"),                                     # turn 3
    ("assistant", "Pretty good, thanks for asking!"),
    ("user", "Next thing: the team offsite. Can you find a venue near the lake for twelve people?"),
    ("assistant", "There is a lodge by the lake with a meeting room for up to fifteen people."),
    ("user", "Does the lodge have vegetarian catering and a projector?"),
    ("assistant", "Yes, they offer a vegetarian menu, and the meeting room has a projector and a whiteboard."),
    ("user", "What would two nights cost for the whole group?"),
    ("assistant", "Two nights with full board for twelve people come to about 4,800 euros."),
    ("user", "That is over our budget. Are there cheaper options in the hills?"),
    ("assistant", "A guesthouse in the hills charges 3,100 euros for the same two nights."),
    ("user", "How far is the guesthouse from the train station?"),
    ("assistant", "About twenty minutes by shuttle bus, which runs every hour."),
    ("user", "Can they arrange a hiking guide for the Saturday morning?"),
    ("assistant", "Yes, a local guide leads a three-hour walk on Saturday mornings."),
    ("user", "Please hold the guesthouse for the first weekend of May."),
    ("assistant", "I have asked the guesthouse to hold the first weekend of May for your group."),
    ("user", "Lovely, the team will enjoy that."),
    ("user", "Before I send the brochure file to the print shop: which paper and resolution did we settle on?"),
]


def chat(embedder, clock: FrozenClock, context_limit: int) -> WorkingMemory:
    wm = WorkingMemory("bakery", user_id="ana", embedder=embedder, clock=clock, context_limit=context_limit)
    for role, text in CONVERSATION:
        wm.append(role, text)
        clock.advance(minutes=1)
    return wm


@pytest.mark.parametrize("which", ["fake", "real"])
def test_turn_2_parameter_survives_to_turn_20_and_turn_3_chit_chat_does_not(which, request):
    embedder = FakeEmbedder() if which == "fake" else request.getfixturevalue("real_embedder")
    wm = chat(embedder, FrozenClock(T0), context_limit=150)  # available 120 of the 370 the 20 messages cost
    total = sum(wm.tokens_of(m) for m in wm.messages())
    window = wm.window()
    kept = [m.content for m in window.messages]
    assert total == 370 and window.budget == 120
    assert CONVERSATION[1][1] in kept, window.explain()
    assert CONVERSATION[2][1] not in kept, window.explain()
    assert kept[-1] == CONVERSATION[-1][1]
    assert window.tokens <= 120
    # emitted in the order they were said
    order = [s.position for s in window.scores if s.kept]
    assert order == sorted(order) and len(order) == len(kept)


@pytest.mark.parametrize("model", ["minilm", "e5"])  # relevance on each model's own scale (priority.relevance)
def test_turn_2_parameter_yields_to_recent_turns_when_the_question_is_elsewhere(model, request):
    embedder = request.getfixturevalue("minilm_embedder" if model == "minilm" else "real_embedder")
    wm = chat(embedder, FrozenClock(T0), context_limit=150)
    window = wm.window("Which weekend is the guesthouse holding for the team, and is there a hiking guide?")
    kept = [m.content for m in window.messages]
    assert CONVERSATION[1][1] not in kept, window.explain()
    assert CONVERSATION[16][1] in kept and CONVERSATION[14][1] in kept


# -- the budget and the reserve are never exceeded -----------------------------------------------------

WORDS = ["the", "print", "brochure", "A4", "300", "dpi", "Priya", "2026-03-15", "Confirmed:", "No,", "ok", "thanks",
         "报表", "打印", "以后", "天气", "不对，应该是", "😀", "$120", "XJ-99210", "lake", "weekend", "\n"]
MESSAGES = st.tuples(st.sampled_from(["user", "assistant", "system", "tool"]),
                     st.lists(st.sampled_from(WORDS), min_size=1, max_size=40).map(" ".join)
                     .filter(lambda s: s.strip() != ""),
                     st.integers(min_value=0, max_value=7200))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversation=st.lists(MESSAGES, max_size=30), context_limit=st.integers(min_value=1, max_value=800),
       reserve=st.floats(min_value=0.0, max_value=0.9), query=st.one_of(st.none(), st.sampled_from(WORDS[:12])))
def test_window_never_exceeds_the_budget_or_eats_the_reserve(conversation, context_limit, reserve, query):
    clock = FrozenClock(T0)
    wm = WorkingMemory("s", embedder=FakeEmbedder(), clock=clock, context_limit=context_limit, reserve_ratio=reserve)
    for role, text, gap in conversation:
        clock.advance(seconds=gap)
        wm.append(role, text)
    budget = ContextBudget(context_limit, reserve)
    users = [m for m in wm.messages() if m.role == "user"]
    encoder = TiktokenTokenizer()
    try:
        window = wm.window(query)
    except ContextBudgetError:
        assert encoder.count(users[-1].content) + 4 > budget.available
        return
    assert window.tokens == sum(encoder.count(m.content) + 4 for m in window.messages)
    assert window.tokens <= budget.available and window.tokens + budget.reserved <= context_limit
    if users:
        assert users[-1] in window.messages
    assert list(window.messages) == [m for m in wm.messages() if m in window.messages]  # chronological


# -- input and async ---------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda wm: wm.append("human", "hi there"),
    lambda wm: wm.append("user", "   "),
    lambda wm: wm.append("user", 42),
    lambda wm: wm.append("user", "hi", metadata={"x": object()}),
    lambda wm: wm.append("user", "hi", timestamp=datetime(2026, 1, 1)),
    lambda wm: wm.append("user", "x" * 40_000),
    lambda wm: wm.extend([{"role": "user"}]),
    lambda wm: wm.window(budget=-1),
    lambda wm: wm.window(pin="abc"),
])
def test_bad_input_is_refused_with_a_clear_error(call):
    wm = WorkingMemory("s", embedder=FakeEmbedder())
    with pytest.raises(InvalidInputError):
        call(wm)
    assert wm.messages() == []


@pytest.mark.parametrize("ids", [dict(session_id=""), dict(session_id="*"), dict(session_id="s", user_id=" a")])
def test_bad_ids(ids):
    with pytest.raises(InvalidInputError):
        WorkingMemory(**ids)


def test_async_faces_match_the_sync_ones():
    clock = FrozenClock(T0)
    wm = WorkingMemory("s", embedder=FakeEmbedder(), clock=clock, context_limit=500)

    async def run():
        await wm.aappend("user", "Confirmed: 300 dpi on A3.")
        await wm.aextend([{"role": "assistant", "content": "Noted.", "timestamp": T0 + timedelta(minutes=1)}])
        return await wm.amessages(), await wm.awindow()

    messages, window = asyncio.run(run())
    assert [m.content for m in messages] == ["Confirmed: 300 dpi on A3.", "Noted."]
    assert window == wm.window()
