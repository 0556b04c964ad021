"""A `hindsight serve` that goes down does not fail the agent's turns: the adapters recall nothing (one warning
per outage), the turns' writes stay in the client's local journal, and they are stored once the server is back
(red team finding 13, second half)."""

from __future__ import annotations

import logging

import pytest

from hindsight_core import Hindsight
from hindsight_core.remote import HindsightClient
from hindsight_core.remote.runner import BackgroundServer, ServeOptions
from hindsight_core.session.queue_journal import QueueJournal
from hindsight_core.session.write_queue import write_queue
from hindsight_core.testing import FakeEmbedder

pytestmark = pytest.mark.timeout(300)

BEFORE = "I prefer window seats on short flights."
SAID = ["My locker code at the gym is 3141.", "I prefer aisle seats on long flights."]
BACK = "Book the 9:40 train to Leeds."
OUTAGE = "memory cannot be reached"


def journaled(client: HindsightClient) -> list[str]:
    journal = QueueJournal(client.local_journal())
    try:
        return [text for _, entry in journal.pending() for text in entry["texts"]]
    finally:
        journal.close()


def stored(memory: Hindsight, user: str) -> set[str]:
    return {r.raw_content for r in memory.memories(user_id=user)}


def outage_warnings(caplog) -> int:
    return sum(OUTAGE in r.getMessage() for r in caplog.records)


@pytest.fixture
def memory(tmp_path):
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder()) as memory:
        yield memory


def test_a_langchain_agent_goes_on_while_its_server_is_down(tmp_path, memory, caplog):
    from langchain.agents import create_agent

    from hindsight_langchain import HindsightMiddleware
    from hindsight_langchain.testing import RecordingChatModel

    def turn(text: str) -> str:
        return agent.invoke({"messages": [{"role": "user", "content": text}]},
                            context={"user_id": "alice"})["messages"][-1].content

    with BackgroundServer(memory, ServeOptions(port=0)) as server:
        port = server.port
        client = HindsightClient(server.url, queue_journal=tmp_path / "journal")
        model = RecordingChatModel(responses=["Noted.", "Noted too.", "And that.", "Booked."])
        agent = create_agent(model, system_prompt="You help.", middleware=[HindsightMiddleware(client)])
        assert turn(BEFORE) == "Noted."
        write_queue(client).flush()
    with caplog.at_level(logging.WARNING):
        assert [turn(text) for text in SAID] == ["Noted too.", "And that."]  # before: StoreUnavailableError
    assert outage_warnings(caplog) == 1  # once for the outage, not once a turn
    assert all("<memories>" not in prompt for prompt in model.system_prompts()[1:])  # nothing recalled meanwhile
    assert set(SAID) <= set(journaled(client))  # handed over, and kept on this machine
    with BackgroundServer(memory, ServeOptions(port=port)):
        assert turn(BACK) == "Booked."
        assert "<memories>" in model.system_prompts()[-1]  # recalls again once the server is back
        write_queue(client).flush()
        assert {BEFORE, *SAID} <= stored(memory, "alice")
        client.close()


def test_a_llamaindex_chat_goes_on_while_its_server_is_down(tmp_path, memory, caplog):
    from llama_index.core.chat_engine import SimpleChatEngine
    from llama_index.core.llms.mock import MockLLMWithChatMemoryOfLastCall

    from hindsight_llamaindex import hindsight_memory

    with BackgroundServer(memory, ServeOptions(port=0)) as server:
        port = server.port
        client = HindsightClient(server.url, queue_journal=tmp_path / "journal")
        chat = SimpleChatEngine.from_defaults(llm=MockLLMWithChatMemoryOfLastCall(max_tokens=3),
                                              memory=hindsight_memory(user_id="alice", memory=client))
        chat.chat(BEFORE)
    with caplog.at_level(logging.WARNING):
        for text in SAID:
            chat.chat(text)  # before: StoreUnavailableError out of chat
    assert outage_warnings(caplog) == 1
    with BackgroundServer(memory, ServeOptions(port=port)):
        chat.chat(BACK)
        write_queue(client).flush()
        assert {BEFORE, SAID[0]} <= stored(memory, "alice")  # the block offers a turn once it is answered
        client.close()


def test_an_agent_started_while_its_server_is_down_still_answers_and_keeps_its_turns(tmp_path, memory, caplog):
    from langchain.agents import create_agent

    from hindsight_langchain import HindsightMiddleware
    from hindsight_langchain.testing import RecordingChatModel

    from ..mcp._process import free_port

    port = free_port()
    client = HindsightClient(f"http://127.0.0.1:{port}", queue_journal=tmp_path / "journal")
    model = RecordingChatModel(responses=["Noted.", "Booked."])
    agent = create_agent(model, system_prompt="You help.", middleware=[HindsightMiddleware(client)])
    with caplog.at_level(logging.WARNING):
        agent.invoke({"messages": [{"role": "user", "content": SAID[0]}]}, context={"user_id": "alice"})
    assert outage_warnings(caplog) == 1 and SAID[0] in journaled(client)  # before: StoreUnavailableError (config)
    with BackgroundServer(memory, ServeOptions(port=port)):
        agent.invoke({"messages": [{"role": "user", "content": BACK}]}, context={"user_id": "alice"})
        write_queue(client).flush()
        assert SAID[0] in stored(memory, "alice")
        client.close()
