"""A week with a LangChain agent, as a new user would have it (defaults, `HindsightMiddleware`, a scripted model):
a change of mind leads over what it changed, in the block and in direct recalls, in English and in Chinese, and the
agent's acknowledgement neither outranks nor demotes the user's words."""

from __future__ import annotations

from datetime import timedelta

import pytest
from langchain.agents import create_agent

from hindsight_core import Hindsight
from hindsight_core.session.write_queue import write_queue
from hindsight_langchain import HindsightMiddleware
from hindsight_langchain.testing import RecordingChatModel

from .helpers import says

#: (day, what the user says, what the scripted model answers), then the two requests of day 7
WEEK = {
    "en": [(1, "I love a good ribeye steak, medium rare.", "Noted: ribeye, medium rare."),
           (2, "Any ideas for Friday night out?", "How about a steakhouse? There's a good one near the river."),
           (3, "I've gone vegetarian, no more steak.", "Understood, vegetarian from now on."),
           (5, "I'm allergic to peanuts.", "Got it, I'll keep peanuts out of everything."),
           (7, "What do I eat these days? Plan my dinners for next week.", "Here is a plan."),
           (7, "Book a steakhouse for my birthday dinner.", "Let me look.")],
    "zh": [(1, "我特别爱吃牛排，五分熟的肋眼。", "记下了：肋眼牛排，五分熟。"),
           (2, "周五晚上出去吃点什么好？", "去牛排馆怎么样？河边有家不错的。"),
           (3, "我现在吃素了，不再吃牛排了。", "明白，以后按素食安排。"),
           (5, "我对花生过敏。", "好的，以后饭菜里都不放花生。"),
           (7, "我最近吃什么？帮我安排下周的晚饭。", "这是安排。"),
           (7, "帮我订一家牛排馆过生日。", "我来看看。")],
}
#: (the old value, the change, the fact said since) in each language
SAID = {"en": ("ribeye", "vegetarian", "peanuts"), "zh": ("肋眼", "吃素", "花生")}


def live_the_week(memory: Hindsight, lang: str) -> RecordingChatModel:
    model = RecordingChatModel(responses=[answer for _, _, answer in WEEK[lang]])
    agent = create_agent(model, system_prompt="You are a helpful assistant.", middleware=[HindsightMiddleware(memory)])
    start = memory.now()
    for day, text, _ in WEEK[lang]:
        memory.clock.set(start + timedelta(days=day, hours=len(model.system_prompts())))
        agent.invoke(says(text), {"configurable": {"thread_id": f"day-{day}"}}, context={"user_id": "alice"})
        write_queue(memory).flush()
    return model


def block_of(prompt: str) -> str:
    return prompt[prompt.index("<memories>"):]


@pytest.mark.model
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_change_leads_in_the_block_and_in_direct_recalls(real_embedder, clock, lang):
    old, new, _ = SAID[lang]
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock) as memory:
        model = live_the_week(memory, lang)
        plan, steakhouse = (block_of(p) for p in model.system_prompts()[-2:])
        for block in (plan, steakhouse):  # the change is in the block, above what it changed if that is too
            assert new in block and block.index(new) < (block.index(old) if old in block else len(block)), block
        for _, request, _ in WEEK[lang][-2:]:
            found = memory.recall(request, user_id="alice", reinforce=False)
            # the user's words, or the turn of theirs an answer carries
            said = [r.memory.raw_content if r.memory.source.value == "user" else r.memory.context or "" for r in found]
            mine = [text for text in said if new in text or old in text]
            assert mine and new in mine[0], said
            assert not any("superseded" in n for r in found if new in r.memory.raw_content for n in r.explanation.notes)
