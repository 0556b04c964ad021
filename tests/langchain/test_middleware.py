"""HindsightMiddleware in real create_agent agents, checked by the messages the model receives."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest
from langchain.agents import create_agent
from langchain_core.messages import SystemMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from hindsight_core import InvalidInputError, InvalidUserIdError, Source
from hindsight_core.recall.formatting import OPEN_TAG
from hindsight_core.session.write_queue import write_queue
from hindsight_langchain import HindsightMiddleware
from hindsight_langchain._convert import with_memory_block
from hindsight_langchain.testing import RecordingChatModel

from .helpers import LATER_REQUEST, PREFERENCE, says, tool_call

SYSTEM = "You are a helpful assistant."


def settle(memory):
    """Wait until the turns the middleware handed to memory are stored (they are written behind the agent)."""
    write_queue(memory).flush()


def agent_for(memory, responses, **options):
    model = RecordingChatModel(responses=responses)
    checkpointer = options.pop("checkpointer", None)
    agent = create_agent(model, system_prompt=SYSTEM, checkpointer=checkpointer,
                         middleware=[HindsightMiddleware(memory, **options)])
    return agent, model


def test_preference_from_an_earlier_session_is_in_the_first_system_prompt_of_a_new_one(memory):
    monday, monday_model = agent_for(memory, ["Noted: A4 landscape from now on."])
    monday.invoke(says(PREFERENCE), context={"user_id": "alice"})
    settle(memory)
    assert OPEN_TAG not in monday_model.system_prompts()[0]  # nothing was known before

    thursday, model = agent_for(memory, ["Here is the sales summary, ready to print."])
    thursday.invoke(says(LATER_REQUEST), context={"user_id": "alice"})
    settle(memory)

    first_prompt = model.system_prompts()[0]
    assert first_prompt.startswith(SYSTEM)
    assert OPEN_TAG in first_prompt and PREFERENCE in first_prompt


def test_the_same_with_ainvoke(memory):
    async def sessions():
        monday, _ = agent_for(memory, ["Noted: A4 landscape from now on."])
        await monday.ainvoke(says(PREFERENCE), context={"user_id": "alice"})
        settle(memory)
        thursday, model = agent_for(memory, ["Here is the sales summary, ready to print."])
        await thursday.ainvoke(says(LATER_REQUEST), context={"user_id": "alice"})
        settle(memory)
        return model

    model = asyncio.run(sessions())
    assert PREFERENCE in model.system_prompts()[0]
    assert [r.raw_content for r in memory.memories(user_id="alice") if r.source is Source.USER][0] == PREFERENCE


def test_a_trivial_turn_stores_nothing(fake_memory):
    agent, _ = agent_for(fake_memory, ["It is 10:42 in the morning."])
    agent.invoke(says("what time is it?"), context={"user_id": "alice"})
    settle(fake_memory)
    assert fake_memory.memories(user_id="alice") == []


def test_a_bare_acknowledgement_from_the_agent_is_not_stored(fake_memory):
    agent, _ = agent_for(fake_memory, ["Noted."])
    agent.invoke(says("ok"), context={"user_id": "alice"})
    settle(fake_memory)
    assert fake_memory.memories(user_id="alice") == []


def test_the_agents_acknowledgement_does_not_supersede_what_the_user_said(memory):
    agent, _ = agent_for(memory, ["Noted: A4 landscape from now on."])
    agent.invoke(says(PREFERENCE), context={"user_id": "alice"})
    settle(memory)
    [said] = [r for r in memory.memories(user_id="alice") if r.source is Source.USER]
    assert said.superseded_by is None and said.confidence == 0.9


def test_a_turn_writes_the_users_message_and_the_final_answer_with_their_sources(fake_memory):
    agent, _ = agent_for(fake_memory, ["Understood, every report will be printed in A4 landscape from now on."],
                         agent_id="report-bot", checkpointer=InMemorySaver())
    agent.invoke(says(PREFERENCE), {"configurable": {"thread_id": "t-42"}}, context={"user_id": "alice"})
    settle(fake_memory)

    stored = fake_memory.memories(user_id="alice")
    assert [(r.raw_content, r.source) for r in stored] == [
        (PREFERENCE, Source.USER),
        ("Understood, every report will be printed in A4 landscape from now on.", Source.AGENT)]
    assert {r.session_id for r in stored} == {"t-42"} and {r.agent_id for r in stored} == {"report-bot"}
    assert stored[0].event_type == "preference"


def test_two_users_never_see_each_others_memories(memory):
    for user, text in (("alice", PREFERENCE), ("bob", "I'm allergic to peanuts, never book restaurants with nuts.")):
        agent, _ = agent_for(memory, ["Noted, I will keep that in mind."])
        agent.invoke(says(text), context={"user_id": user})
        settle(memory)

    prompts = {}
    for user in ("alice", "bob"):
        agent, model = agent_for(memory, ["Done."])
        agent.invoke(says("Print my reports and book a restaurant for the team lunch."), context={"user_id": user})
        settle(memory)
        prompts[user] = model.system_prompts()[0]

    assert PREFERENCE in prompts["alice"] and "peanuts" not in prompts["alice"]
    assert "peanuts" in prompts["bob"] and PREFERENCE not in prompts["bob"]
    assert all("peanuts" not in r.raw_content for r in memory.memories(user_id="alice"))


def test_the_memory_block_never_enters_the_checkpointed_state(fake_memory):
    fake_memory.remember(PREFERENCE, user_id="alice")
    saver = InMemorySaver()
    agent, model = agent_for(fake_memory, ["Printing the reports in A4 landscape.", "Sure, in A4 landscape again."],
                             checkpointer=saver)
    config = {"configurable": {"thread_id": "thread-1"}}
    agent.invoke(says("Print my reports"), config, context={"user_id": "alice"})
    settle(fake_memory)
    agent.invoke(says("Print the reports again please"), config, context={"user_id": "alice"})
    settle(fake_memory)

    assert all(OPEN_TAG in prompt for prompt in model.system_prompts())  # the model did see it, twice
    checkpoints = list(saver.list(config))
    assert checkpoints
    for checkpoint in checkpoints:
        for message in checkpoint.checkpoint["channel_values"].get("messages", []):
            assert OPEN_TAG not in str(message.content)
            assert not isinstance(message, SystemMessage)
    # the second model call was sent the first turn from the checkpoint, but only one system message
    assert sum(isinstance(m, SystemMessage) for m in model.received[1]) == 1


def test_user_id_from_the_config_and_a_clear_error_without_one(fake_memory):
    fake_memory.remember(PREFERENCE, user_id="carol")
    agent, model = agent_for(fake_memory, ["In A4 landscape."])
    agent.invoke(says("Print my reports"), {"configurable": {"langgraph_user_id": "carol"}})
    settle(fake_memory)
    assert PREFERENCE in model.system_prompts()[0]

    agent, _ = agent_for(fake_memory, ["unused"])
    with pytest.raises(InvalidUserIdError, match="context=.*user_id"):
        agent.invoke(says("Print my reports"))


def test_context_object_wins_over_the_default_user(fake_memory):
    @dataclass
    class Context:
        user_id: str

    fake_memory.remember(PREFERENCE, user_id="dave")
    model = RecordingChatModel(responses=["In A4 landscape."])
    agent = create_agent(model, context_schema=Context, middleware=[HindsightMiddleware(fake_memory, user_id="eve")])
    agent.invoke(says("Print my reports"), context=Context(user_id="dave"))
    settle(fake_memory)
    assert PREFERENCE in model.system_prompts()[0]  # no system prompt of its own: the block is the whole prompt
    assert {r.user_id for r in fake_memory.memories(user_id="dave")} == {"dave"}
    assert fake_memory.memories(user_id="eve") == []


def test_a_tool_loop_recalls_for_every_model_call_and_stores_only_the_exchange(fake_memory):
    fake_memory.remember(PREFERENCE, user_id="alice")

    @tool
    def print_report(name: str) -> str:
        """Send a report to the printer."""
        return f"queued {name} for printing in A4 landscape"

    model = RecordingChatModel(responses=[tool_call("print_report", {"name": "sales summary"}),
                                          "The sales summary is queued for printing in A4 landscape."])
    agent = create_agent(model, [print_report], system_prompt=SYSTEM, middleware=[HindsightMiddleware(fake_memory)])
    agent.invoke(says("Print the sales summary report for Friday's board meeting."), context={"user_id": "alice"})
    settle(fake_memory)

    assert len(model.received) == 2 and all(PREFERENCE in p for p in model.system_prompts())
    texts = [r.raw_content for r in fake_memory.memories(user_id="alice")]
    assert texts[1:] == ["Print the sales summary report for Friday's board meeting.",
                         "The sales summary is queued for printing in A4 landscape."]
    assert not any("queued sales summary" in t for t in texts)  # the tool's output is not the answer


def test_a_bad_k_is_refused_when_the_middleware_is_made(fake_memory):
    for k in (0, -1, 2.5, True):
        with pytest.raises(InvalidInputError, match="k must be"):
            HindsightMiddleware(fake_memory, k=k)


def test_read_only_middleware_writes_nothing(fake_memory):
    agent, _ = agent_for(fake_memory, ["Noted."], remember=False)
    agent.invoke(says(PREFERENCE), context={"user_id": "alice"})
    settle(fake_memory)
    assert fake_memory.memories(user_id="alice") == []


def test_the_answer_can_be_left_out(fake_memory):
    agent, _ = agent_for(fake_memory, ["Understood, every report in A4 landscape from now on."],
                         remember_answers=False)
    agent.invoke(says(PREFERENCE), context={"user_id": "alice"})
    settle(fake_memory)
    assert [(r.raw_content, r.source) for r in fake_memory.memories(user_id="alice")] == [(PREFERENCE, Source.USER)]


def test_memory_block_is_appended_to_every_kind_of_system_message():
    block = "<memories>\n- x\n</memories>"
    assert with_memory_block(None, block).content == block
    assert with_memory_block(SystemMessage(content="Be brief."), block).content == f"Be brief.\n\n{block}"
    blocks = SystemMessage(content=[{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}])
    merged = with_memory_block(blocks, block)
    assert merged.content == [blocks.content[0], {"type": "text", "text": block}]
    assert blocks.content == [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]
    original = SystemMessage(content="Be brief.")
    assert with_memory_block(original, "") is original


def test_the_turn_is_written_behind_the_agent_and_flush_waits_for_it(clock):
    import threading

    from hindsight_core import Hindsight
    from hindsight_core.testing import FakeEmbedder

    class HeldEmbedder(FakeEmbedder):
        go = threading.Event()

        def embed(self, texts):  # the write's embedding waits; the recall's (embed_query) does not
            assert self.go.wait(30)
            return super().embed(texts)

        def embed_query(self, texts):
            return super().embed(texts)

    with Hindsight(location=":memory:", embedder=HeldEmbedder(), clock=clock) as memory:
        middleware = HindsightMiddleware(memory)
        agent = create_agent(RecordingChatModel(responses=["Noted."]), middleware=[middleware])
        agent.invoke(says(PREFERENCE), context={"user_id": "alice"})  # returns while the embedder is held
        assert memory.memories(user_id="alice") == []
        HeldEmbedder.go.set()
        middleware.flush()
        assert [r.raw_content for r in memory.memories(user_id="alice")] == [PREFERENCE]


PIN = "My card PIN is 4921, keep it for the bank form."
PIN_ANSWER = "Noted: your card PIN 4921 is saved for the bank form."
AFTER = "Book me a table for two at the harbour restaurant on Friday."


def pin_then_forget(memory, target):
    """The PIN said in one turn, forgotten, then one more turn in the same thread; what memory holds after."""
    agent, _ = agent_for(memory, [PIN_ANSWER, "Booked: Friday at 8 pm, a table for two."],
                         checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "thread-1"}}
    agent.invoke(says(PIN), config, context={"user_id": "alice"})
    settle(memory)
    memory.forget(user_id="alice", **target)
    agent.invoke(says(AFTER), config, context={"user_id": "alice"})
    settle(memory)
    return memory.memories(user_id="alice")


@pytest.mark.model
@pytest.mark.parametrize("target", [{"everything": True}, {"about": "my card PIN"}], ids=["everything", "about"])
def test_a_forgotten_pin_never_comes_back_as_the_next_turns_context(memory, target):
    records = pin_then_forget(memory, target)
    assert AFTER in [r.raw_content for r in records]  # the next turn was stored ...
    assert all("4921" not in r.raw_content and "4921" not in (r.context or "") for r in records)  # ... without it
    recalled = memory.recall("what is my card PIN for the bank form", user_id="alice", k=10)
    assert all("4921" not in (hit.memory.context or "") + hit.memory.raw_content for hit in recalled)
