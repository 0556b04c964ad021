"""LangMem's memory tools, unchanged, on HindsightStore."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("langmem")

from langchain.agents import create_agent  # noqa: E402
from langmem import create_manage_memory_tool, create_search_memory_tool  # noqa: E402

from hindsight_langchain import HindsightMiddleware, HindsightStore  # noqa: E402
from hindsight_langchain.testing import RecordingChatModel  # noqa: E402

from .helpers import PREFERENCE, says, tool_call  # noqa: E402

NAMESPACE = ("memories", "{langgraph_user_id}")
ALICE = {"configurable": {"langgraph_user_id": "alice"}}


def memory_id(answer: str) -> str:
    """The id in LangMem's 'created memory <id>' answer."""
    return answer.rsplit(" ", 1)[-1]


def test_manage_and_search_tools_create_find_update_and_delete(memory):
    store = HindsightStore(memory)
    manage = create_manage_memory_tool(namespace=NAMESPACE, store=store)
    search = create_search_memory_tool(namespace=NAMESPACE, store=store)

    key = memory_id(manage.invoke({"content": PREFERENCE, "action": "create"}, ALICE))
    manage.invoke({"content": "The user's dog Rex is afraid of thunderstorms.", "action": "create"}, ALICE)
    found = json.loads(search.invoke({"query": "how to print the quarterly report", "limit": 1}, ALICE))
    assert [(f["key"], f["value"]["content"], f["namespace"]) for f in found] == [
        (key, PREFERENCE, ["memories", "alice"])]

    manage.invoke({"content": "From now on, print all my reports in A3 portrait.", "action": "update", "id": key},
                  ALICE)
    updated = store.get(("memories", "alice"), key)
    assert updated.value == {"content": "From now on, print all my reports in A3 portrait."}
    assert len(memory.memories(user_id="alice")) == 2

    manage.invoke({"action": "delete", "id": key}, ALICE)
    assert store.get(("memories", "alice"), key) is None
    assert [r.raw_content for r in memory.memories(user_id="alice")] == [
        "The user's dog Rex is afraid of thunderstorms."]
    assert json.loads(search.invoke({"query": "dog"}, {"configurable": {"langgraph_user_id": "bob"}})) == []


def test_the_async_tools(fake_memory):
    store = HindsightStore(fake_memory)
    manage = create_manage_memory_tool(namespace=NAMESPACE, store=store)
    search = create_search_memory_tool(namespace=NAMESPACE, store=store)

    async def scenario():
        await manage.ainvoke({"content": PREFERENCE}, ALICE)
        return json.loads(await search.ainvoke({"query": "print reports"}, ALICE))

    assert [f["value"]["content"] for f in asyncio.run(scenario())] == [PREFERENCE]


def test_langmem_tools_in_an_agent_with_the_store_and_the_middleware(fake_memory):
    store = HindsightStore(fake_memory)
    tools = [create_manage_memory_tool(namespace=NAMESPACE), create_search_memory_tool(namespace=NAMESPACE)]
    model = RecordingChatModel(responses=[
        tool_call("manage_memory", {"content": PREFERENCE, "action": "create"}), "Saved.",
        tool_call("search_memory", {"query": "printing reports"}, "call-2"), "You want A4 landscape.",
    ])
    agent = create_agent(model, tools, store=store, middleware=[HindsightMiddleware(fake_memory, remember=False)])

    agent.invoke(says("Remember: reports go out in A4 landscape."), ALICE)
    assert [i.value for i in store.search(("memories", "alice"))] == [{"content": PREFERENCE}]

    result = agent.invoke(says("How do I like my reports printed?"), ALICE)
    tool_answer = json.loads(result["messages"][-2].content)
    assert [f["value"]["content"] for f in tool_answer] == [PREFERENCE]
    assert PREFERENCE in model.system_prompts()[-1]  # the middleware recalls what LangMem stored
