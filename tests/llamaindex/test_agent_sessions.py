"""LlamaIndex workflow agents (`FunctionAgent`, `AgentWorkflow`) carrying a fact from one session to the next,
and a chat that is only written (`put`/`aput`, never read) being recalled in the next session.

The LLMs are LlamaIndex's own function-calling mock, so everything runs offline; the memory is real.
"""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core.agent.workflow import AgentWorkflow, FunctionAgent
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.llms.mock import MockFunctionCallingLLMWithChatMemoryOfLastCall

from hindsight_core import Source
from hindsight_llamaindex import HindsightChatMemory, hindsight_memory

from .helpers import ScriptedLLM, run_agent, settled, system_text

PREFERENCE = "From now on, print all my reports in A4 landscape."
NOTED = "Noted: A4 landscape for every report."
REQUEST = "Get the sales summary ready for the board handout."
SYSTEM = "You are an office assistant."


def said(role: str, text: str) -> ChatMessage:
    return ChatMessage(role=role, content=text)


def next_session_prompt(memory) -> str:
    """The system text the LLM of a new session's first call receives (a new FunctionAgent, a new Memory)."""
    llm = MockFunctionCallingLLMWithChatMemoryOfLastCall()
    run_agent(FunctionAgent(tools=[], llm=llm, system_prompt=SYSTEM), REQUEST,
              hindsight_memory(user_id="alice", memory=memory))
    return system_text(llm.last_chat_messages)


@pytest.mark.model
def test_a_chat_that_is_only_put_is_recalled_in_the_next_session(memory, clock):
    chat = hindsight_memory(user_id="alice", memory=memory)
    chat.put(said("user", PREFERENCE))
    chat.put(said("assistant", NOTED))  # never read: Memory keeps both in its short-term history
    settled(memory)
    assert [r.source for r in memory.memories(user_id="alice")] == [Source.USER, Source.AGENT]

    clock.advance(days=2)
    assert PREFERENCE in next_session_prompt(memory)


@pytest.mark.model
def test_the_same_with_aput_messages_inside_an_event_loop(memory, clock):
    async def chat():
        written = hindsight_memory(user_id="alice", memory=memory)
        await written.aput_messages([said("user", PREFERENCE), said("assistant", NOTED)])
        await written.aclose()  # in its own loop: its chat store's connection is bound to this loop

    asyncio.run(chat())
    settled(memory)
    clock.advance(days=2)
    assert PREFERENCE in next_session_prompt(memory)


def test_a_message_still_waiting_for_its_answer_is_held_until_answered_or_flushed(fake_memory):
    chat = hindsight_memory(user_id="alice", memory=fake_memory)
    assert isinstance(chat, HindsightChatMemory)
    chat.put(said("user", "My passport expires on 2 August 2027."))
    assert settled(fake_memory).memories(user_id="alice") == []  # a read may still come: recall goes first
    chat.flush()
    assert [r.raw_content for r in fake_memory.memories(user_id="alice")] == ["My passport expires on 2 August 2027."]
    chat.put(said("assistant", "I will remind you a month before it expires."))
    chat.flush()  # each message once, whichever way it arrives
    assert [r.source for r in fake_memory.memories(user_id="alice")] == [Source.USER, Source.AGENT]


@pytest.mark.model
def test_an_agent_turn_is_never_recalled_into_its_own_prompt(memory):
    scripted = ScriptedLLM(reply=NOTED)
    run_agent(FunctionAgent(tools=[], llm=scripted.llm, system_prompt=SYSTEM), PREFERENCE,
              hindsight_memory(user_id="alice", memory=memory))
    assert PREFERENCE not in system_text(scripted.calls[0])  # the agent put it before reading
    assert [r.source for r in settled(memory).memories(user_id="alice")] == [Source.USER, Source.AGENT]


@pytest.mark.model
def test_agent_workflow_sessions_run_inside_one_event_loop(memory, clock):
    async def sessions() -> str:
        first = ScriptedLLM(reply=NOTED)
        monday = AgentWorkflow(agents=[FunctionAgent(name="assistant", description="office assistant", tools=[],
                                                     llm=first.llm, system_prompt=SYSTEM)])
        await monday.run(user_msg=PREFERENCE, memory=hindsight_memory(user_id="alice", memory=memory))
        await asyncio.to_thread(settled, memory)
        clock.advance(days=3)
        llm = MockFunctionCallingLLMWithChatMemoryOfLastCall()
        thursday = AgentWorkflow(agents=[FunctionAgent(name="assistant", description="office assistant", tools=[],
                                                       llm=llm, system_prompt=SYSTEM)])
        await thursday.run(user_msg=REQUEST, memory=hindsight_memory(user_id="alice", memory=memory))
        return system_text(llm.last_chat_messages)

    prompt = asyncio.run(sessions())
    assert SYSTEM in prompt and PREFERENCE in prompt
