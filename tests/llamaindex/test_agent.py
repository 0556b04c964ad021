"""FunctionAgent with the hindsight memory block and tool spec, judged by what the LLM receives."""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import MessageRole
from llama_index.core.llms.mock import MockFunctionCallingLLMWithChatMemoryOfLastCall
from llama_index.core.memory import Memory

from hindsight_core import InvalidInputError, InvalidUserIdError, Source
from hindsight_llamaindex import HindsightToolSpec, hindsight_memory
from hindsight_llamaindex.tools import NOTHING_FOUND

from .helpers import ScriptedLLM, run_agent, settled, system_text

PREFERENCE = "From now on, print all my reports in A4 landscape."
REQUEST = "Get the sales summary ready for the board handout."


def tool_messages(messages) -> str:
    return "\n".join(m.content or "" for m in messages if m.role == MessageRole.TOOL)


@pytest.mark.model
def test_function_agent_new_session_sees_an_earlier_preference(memory, clock):
    first = ScriptedLLM(reply="Understood: your reports will be printed in A4 landscape from now on.")
    agent = FunctionAgent(tools=[], llm=first.llm, system_prompt="You are an office assistant.")
    run_agent(agent, PREFERENCE, hindsight_memory(user_id="alice", memory=memory))
    # the agent reads its memory after the run, so its own reply is offered too
    assert [r.source for r in settled(memory).memories(user_id="alice")] == [Source.USER, Source.AGENT]

    clock.advance(days=3)
    llm = MockFunctionCallingLLMWithChatMemoryOfLastCall()
    agent = FunctionAgent(tools=[], llm=llm, system_prompt="You are an office assistant.")
    run_agent(agent, REQUEST, hindsight_memory(user_id="alice", memory=memory))

    assert llm.last_called_chat_function == ["astream_chat"]  # one call (agents stream): the first
    system = system_text(llm.last_chat_messages)
    assert "You are an office assistant." in system
    assert "print all my reports in A4 landscape" in system
    assert llm.last_chat_messages[-1].content == REQUEST


def test_agent_turns_are_stored_once_and_trivial_ones_skipped(fake_memory):
    memory = hindsight_memory(user_id="alice", memory=fake_memory)
    scripted = ScriptedLLM(reply="ok")
    agent = FunctionAgent(tools=[], llm=scripted.llm)
    for text in ["hello", "My passport expires on 2 August 2027.", "thanks"]:
        run_agent(agent, text, memory)
    assert [(r.source, r.raw_content) for r in settled(fake_memory).memories(user_id="alice")] == [
        (Source.USER, "My passport expires on 2 August 2027.")]
    assert asyncio.run(memory.aget_all()) != []  # the agent did keep its short-term history


@pytest.mark.model
def test_the_search_tool_finds_only_its_own_users_memories(memory):
    memory.remember("I prefer quarterly reports as PDF files.", user_id="alice")
    memory.remember("I prefer quarterly reports as Excel workbooks.", user_id="bob")

    scripted = ScriptedLLM(reply="Here you go.", script=[
        ("memory_search", {"what_am_i_looking_for": "which file format for the quarterly report",
                           "how_many_results": 3})])
    agent = FunctionAgent(tools=HindsightToolSpec(memory, user_id="bob").to_tool_list(), llm=scripted.llm)
    run_agent(agent, "Send me the quarterly report.", Memory.from_defaults())

    assert len(scripted.calls) == 2
    found = tool_messages(scripted.calls[1])
    assert "Excel workbooks" in found and "PDF" not in found


def test_the_save_tool_goes_through_the_gate_for_its_user_only(fake_memory):
    scripted = ScriptedLLM(reply="Saved.", script=[
        ("memory_write", {"what_to_remember": "I prefer vegetarian restaurants for team dinners."}),
        ("memory_write", {"what_to_remember": "hi"})])
    tools = HindsightToolSpec(fake_memory, user_id="alice", session_id="s-9").to_tool_list()
    run_agent(FunctionAgent(tools=tools, llm=scripted.llm), "Remember I only eat vegetarian.", Memory.from_defaults())

    outputs = tool_messages(scripted.calls[1]) + tool_messages(scripted.calls[2])
    # the tool writes as the agent: what it saves is data, never the user's preference (issue 21)
    assert "Saved as a fact memory" in outputs and "Not saved: small talk" in outputs
    [saved] = settled(fake_memory).memories(user_id="alice")
    assert (saved.source, saved.session_id) == (Source.AGENT, "s-9")
    assert fake_memory.users() == ["alice"]


def test_tool_schemas_have_natural_parameters_and_no_user_id(fake_memory):
    tools = {t.metadata.name: t for t in HindsightToolSpec(fake_memory, user_id="alice").to_tool_list()}
    assert set(tools) == {"memory_search", "memory_write"}  # the names every framework gives them

    search = tools["memory_search"].metadata.get_parameters_dict()
    assert list(search["properties"]) == ["what_am_i_looking_for", "how_many_results", "time_range"]
    assert search["required"] == ["what_am_i_looking_for"]
    assert all(p.get("description") for p in search["properties"].values())
    save = tools["memory_write"].metadata.get_parameters_dict()
    assert list(save["properties"]) == ["what_to_remember", "kind_of_memory"]
    assert all("user" not in name for t in (search, save) for name in t["properties"])
    assert tools["memory_search"].metadata.description.startswith("Look up what you know about the user")


def test_tools_called_directly(fake_memory, clock):
    spec = HindsightToolSpec(fake_memory, user_id="alice")
    assert spec.memory_search("anything at all") == NOTHING_FOUND
    for fact in ["I run the Berlin marathon in September.", "I run 40 km a week.", "I run in Asics shoes."]:
        fake_memory.remember(fact, user_id="alice")
    clock.advance(days=10)
    fake_memory.remember("I run with my friend Omar on Sundays.", user_id="alice")

    assert spec.memory_search("run", how_many_results=2).count("\n- [") == 2
    with pytest.raises(InvalidInputError, match="how_many_results must be an integer within 1..20, got 50"):
        spec.memory_search("run", how_many_results=50)  # refused as every face refuses it, never clamped
    recent = asyncio.run(spec.amemory_search("run", time_range="last_7_days"))
    assert "Omar" in recent and "marathon" not in recent
    with pytest.raises(InvalidInputError, match="how_many_results"):
        spec.memory_search("run", how_many_results=0)
    with pytest.raises(InvalidInputError, match="unknown time range"):
        spec.memory_search("run", time_range="the nineties")
    assert asyncio.run(spec.amemory_write("ok")).startswith("Not saved")


def test_tool_spec_bad_arguments(fake_memory):
    with pytest.raises(InvalidUserIdError):
        HindsightToolSpec(fake_memory, user_id="")
    with pytest.raises(InvalidInputError, match="Hindsight"):
        HindsightToolSpec(None, user_id="alice")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="agent_id"):
        HindsightToolSpec(fake_memory, user_id="alice", agent_id="*")
