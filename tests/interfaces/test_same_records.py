"""One conversation policy: the LangChain middleware and the LlamaIndex block store the same records for the same
conversation (`hindsight_core.session.turns.TurnLog`: each turn once, with the turn it answers, its speaker's source)."""

from __future__ import annotations

import itertools

from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms.mock import MockFunctionCallingLLMWithChatMemoryOfLastCall

from hindsight_core import Hindsight
from hindsight_core.session.write_queue import write_queue
from hindsight_core.testing import FakeEmbedder
from hindsight_langchain import HindsightMiddleware
from hindsight_langchain.testing import RecordingChatModel
from hindsight_llamaindex import hindsight_memory

CONVERSATION = [
    ("From now on, print all my reports in A4 landscape.", "Noted: A4 landscape for every report."),
    ("Yes, and send them to Maria in accounting.", "I will send every report to Maria in accounting."),
]


def stored(memory: Hindsight) -> list[tuple[str, str, str | None]]:
    write_queue(memory).flush()
    return sorted((r.raw_content, r.source.value, r.context) for r in memory.memories(user_id="alice"))


def through_langchain(clock) -> list[tuple[str, str, str | None]]:
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        model = RecordingChatModel(responses=[answer for _, answer in CONVERSATION])
        agent = create_agent(model, checkpointer=InMemorySaver(), middleware=[HindsightMiddleware(memory)])
        for said, _ in CONVERSATION:
            agent.invoke({"messages": [{"role": "user", "content": said}]},
                         {"configurable": {"thread_id": "t-1"}}, context={"user_id": "alice"})
        return stored(memory)


def through_llamaindex(clock) -> list[tuple[str, str, str | None]]:
    answers = itertools.cycle([answer for _, answer in CONVERSATION])
    llm = MockFunctionCallingLLMWithChatMemoryOfLastCall(
        response_generator=lambda messages, **_: ChatMessage(role="assistant", content=next(answers)))
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        chat_memory = hindsight_memory(user_id="alice", memory=memory, session_id="t-1")
        engine = SimpleChatEngine.from_defaults(llm=llm, memory=chat_memory)
        for said, _ in CONVERSATION:
            engine.chat(said)
        chat_memory.get()  # the block offers the history it is shown: the last answer too
        chat_memory.close()
        return stored(memory)


def test_both_adapters_store_the_same_records_for_the_same_conversation(clock):
    langchain, llamaindex = through_langchain(clock), through_llamaindex(clock)
    assert [text for text, _, _ in langchain] == sorted(t for pair in CONVERSATION for t in pair)
    assert langchain == llamaindex
    # each turn is stored with the turn it answers
    contexts = {text: context for text, _, context in langchain}
    assert contexts[CONVERSATION[0][1]] == CONVERSATION[0][0]
    assert contexts[CONVERSATION[1][0]] == CONVERSATION[0][1]
