"""HindsightMemoryBlock in LlamaIndex's Memory and SimpleChatEngine, judged by what the LLM receives."""

from __future__ import annotations

import asyncio
import logging

import pytest
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import ChatMessage
from llama_index.core.llms.mock import MockLLMWithChatMemoryOfLastCall
from llama_index.core.memory import Memory
from llama_index.core.storage.chat_store.sql import MessageStatus

from hindsight_core import Hindsight, InvalidInputError, InvalidUserIdError, Source, StoreUnavailableError
from hindsight_core.testing import FakeEmbedder
from hindsight_llamaindex import HindsightMemoryBlock, hindsight_memory

from .helpers import RecordingGate, ScriptedLLM, settled, system_text

PREFERENCE = "From now on, print all my reports in A4 landscape."
REQUEST = "Get the sales summary ready for the board handout."  # shares no content word with PREFERENCE


def engine(memory: Hindsight, llm, user_id: str = "alice", **options) -> SimpleChatEngine:
    return SimpleChatEngine.from_defaults(llm=llm, memory=hindsight_memory(user_id=user_id, memory=memory, **options))


def stored(memory: Hindsight, user_id: str) -> list[tuple[str, str]]:
    return [(r.source.value, r.raw_content) for r in settled(memory).memories(user_id=user_id)]


@pytest.mark.model
def test_a_new_session_sees_a_preference_from_an_earlier_one(memory, clock):
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=3)
    engine(memory, llm).chat(PREFERENCE)
    assert "A4 landscape" not in system_text(llm.last_chat_messages)  # nothing to recall on day one

    clock.advance(days=3)
    llm.reset_memory()
    engine(memory, llm).chat(REQUEST)

    assert llm.last_called_chat_function == ["chat"]  # the new session's first and only call
    system = system_text(llm.last_chat_messages)
    assert "print all my reports in A4 landscape" in system
    assert "<memories>" in system and "preference" in system
    assert llm.last_chat_messages[-1].content == REQUEST


def test_the_async_face_and_a_system_prompt_keep_the_memories(fake_memory):
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=3)
    asyncio.run(engine(fake_memory, llm).achat("I prefer window seats when I fly."))
    chat = SimpleChatEngine.from_defaults(llm=llm, system_prompt="You are a travel assistant.",
                                          memory=hindsight_memory(user_id="alice", memory=fake_memory))
    asyncio.run(chat.achat("Book my seats for the flight to Lisbon."))
    assert llm.last_called_chat_function[-1] == "achat"
    system = system_text(llm.last_chat_messages)
    assert "You are a travel assistant." in system and "window seats" in system


def test_turns_are_stored_although_the_fifo_never_flushes(fake_memory):
    scripted = ScriptedLLM(reply="Noted: your deadline for the Q3 budget review is Friday 14 March.")
    chat = engine(fake_memory, scripted.llm)
    chat.chat("My manager Dana asked for the Q3 budget review by Friday.")
    chat.chat("I prefer spreadsheets over slides for budget reviews.")

    archived = asyncio.run(chat._memory.aget_all(status=MessageStatus.ARCHIVED))
    assert archived == []  # nothing ever left the short-term FIFO, so _aput was never called
    assert stored(fake_memory, "alice") == [
        ("user", "My manager Dana asked for the Q3 budget review by Friday."),
        ("agent", "Noted: your deadline for the Q3 budget review is Friday 14 March."),
        ("user", "I prefer spreadsheets over slides for budget reviews."),
    ]
    session = chat._memory.session_id
    assert {r.session_id for r in settled(fake_memory).memories(user_id="alice")} == {session}


def test_trivial_turns_are_not_stored(fake_memory):
    chat = engine(fake_memory, MockLLMWithChatMemoryOfLastCall(max_tokens=3))  # replies "text text text"
    for text in ["hi", "thanks!", "what time is it?", "ok", "I always use metric units, never imperial."]:
        chat.chat(text)
    assert stored(fake_memory, "alice") == [("user", "I always use metric units, never imperial.")]


@pytest.fixture
def gated_memory(clock):
    gate = RecordingGate()
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, gate=gate) as memory:
        yield memory, gate


def test_each_turn_is_offered_once_though_it_is_read_every_turn(gated_memory):
    memory, gate = gated_memory
    chat = engine(memory, MockLLMWithChatMemoryOfLastCall(max_tokens=3))
    texts = ["I live in Porto with my dog Biscuit.", "My sister Ana visits in June.",
             "I am learning Portuguese on weekday evenings."]
    for text in texts:
        chat.chat(text)
    settled(memory)
    assert gate.offered == [("user", texts[0]), ("agent", "text text text"), ("user", texts[1]), ("user", texts[2])]
    records = settled(memory).memories(user_id="alice")
    assert [r.raw_content for r in records] == texts
    assert all(r.confirmations == 1 for r in records)  # a re-offer would have counted as a confirmation


def test_a_persisted_history_is_not_written_again_after_a_restart(gated_memory):
    fake_memory, gate = gated_memory
    first = hindsight_memory(user_id="alice", memory=fake_memory, session_id="s-1")
    SimpleChatEngine.from_defaults(llm=MockLLMWithChatMemoryOfLastCall(max_tokens=3), memory=first).chat(
        "My flight to Tokyo leaves on 3 May.")
    history = first.get_all()

    # a new process: a new block, the same session and its history reloaded from the chat store
    again = hindsight_memory(user_id="alice", memory=fake_memory, session_id="s-1", chat_history=history)
    SimpleChatEngine.from_defaults(llm=MockLLMWithChatMemoryOfLastCall(max_tokens=3), memory=again).chat(
        "I booked the hotel near Shinjuku station.")
    assert [text for _, text in stored(fake_memory, "alice")] == [
        "My flight to Tokyo leaves on 3 May.", "I booked the hotel near Shinjuku station."]
    # what was stored before the restart is known by its key; only the declined reply is judged again
    assert gate.offered.count(("user", "My flight to Tokyo leaves on 3 May.")) == 1


def test_put_messages_are_stored_when_the_memory_is_never_read(fake_memory):
    memory = hindsight_memory(user_id="alice", memory=fake_memory, token_limit=40, token_flush_size=10)
    turns = ["I moved to Lyon in January for a job at Airbus.", "Sounds exciting, welcome to Lyon!",
             "My daughter Zoe starts school there in September.", "Great, I will remember that."]
    for i, text in enumerate(turns):
        memory.put(ChatMessage(role="user" if i % 2 == 0 else "assistant", content=text))

    archived = [m.content for m in memory.get_all(status=MessageStatus.ARCHIVED)]
    assert archived  # the FIFO overflowed and called the block's _aput
    written = [text for _, text in stored(fake_memory, "alice")]
    assert "I moved to Lyon in January for a job at Airbus." in written
    # never read: each put offered the answered history, so what is still short-term is stored as well
    assert "My daughter Zoe starts school there in September." in written and set(written) <= set(turns)
    assert len(written) == len(set(written))  # each message once, whether flushed out or put


def test_two_users_never_see_each_others_memories(fake_memory):
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=3)
    engine(fake_memory, llm, "alice").chat("I prefer my coffee reports as PDF files.")
    engine(fake_memory, llm, "bob").chat("I prefer my coffee reports as Excel files.")

    engine(fake_memory, llm, "bob").chat("Send me the coffee reports.")
    system = system_text(llm.last_chat_messages)
    assert "Excel" in system and "PDF" not in system
    engine(fake_memory, llm, "alice").chat("Send me the coffee reports.")
    system = system_text(llm.last_chat_messages)
    assert "PDF" in system and "Excel" not in system
    assert all("Excel" not in text for _, text in stored(fake_memory, "alice"))


def test_the_memorys_session_id_stands_in_for_a_missing_user_id(fake_memory):
    block = HindsightMemoryBlock(memory=fake_memory)
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=3)
    for _ in range(2):
        memory = Memory.from_defaults(session_id="carol", memory_blocks=[block])
        SimpleChatEngine.from_defaults(llm=llm, memory=memory).chat("I am vegetarian and allergic to peanuts.")
    assert stored(fake_memory, "carol") == [("user", "I am vegetarian and allergic to peanuts.")]
    assert "allergic to peanuts" in system_text(llm.last_chat_messages)


def test_an_oversized_message_is_answered_and_skipped_with_a_warning(fake_memory, caplog):
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=3)
    chat = engine(fake_memory, llm)
    chat.chat("I prefer short answers.")
    huge = "I pasted the whole log file. " * 2000  # ~58 KB, over the core's 32 KB limit
    with caplog.at_level(logging.WARNING, logger="hindsight_llamaindex"):
        response = chat.chat(huge)
    assert str(response) == "text text text"
    assert stored(fake_memory, "alice") == [("user", "I prefer short answers.")]
    assert any("32,768" in record.getMessage() for record in caplog.records)


def test_the_block_shrinks_instead_of_vanishing_when_the_prompt_is_too_long(fake_memory):
    facts = ["I prefer tea over coffee in the morning.", "My project Falcon ships on 12 June.",
             "I work at Contoso in the Berlin office.", "My manager is Priya Shah.",
             "I prefer meetings after 10 am."]
    for fact in facts:
        fake_memory.remember(fact, user_id="alice")
    history = [ChatMessage(role="user", content="Tell me about my morning tea, project Falcon, Contoso, "
                                                 "Priya and meetings. " + "Please be thorough. " * 40)]

    roomy = hindsight_memory(user_id="alice", memory=fake_memory, chat_history=history, k=6)
    system_text(roomy.get())  # the first call also offers the turn to memory, so the block grows by it
    full = system_text(roomy.get())  # the block shows each memory's own words (issue 21): measure it as it is
    assert sum(fact in full for fact in facts) == 5

    tight_limit = roomy._estimate_token_count(history) + roomy._estimate_token_count(full) - 60
    tight = hindsight_memory(user_id="alice", memory=fake_memory, chat_history=history, token_limit=tight_limit,
                             k=6)
    shown = system_text(tight.get())
    kept = sum(fact in shown for fact in facts)
    assert 1 <= kept < 5
    assert "<memories>" in shown and "</memories>" in shown  # still a well-formed block


def test_bad_arguments_are_hindsight_errors(fake_memory):
    with pytest.raises(InvalidInputError, match="Hindsight"):
        HindsightMemoryBlock(memory="not a memory")
    with pytest.raises(InvalidInputError, match="k must be"):
        HindsightMemoryBlock(memory=fake_memory, user_id="alice", k=0)
    with pytest.raises(InvalidUserIdError):
        HindsightMemoryBlock(memory=fake_memory, user_id="*")
    with pytest.raises(InvalidUserIdError):
        hindsight_memory(user_id="", memory=fake_memory)
    with pytest.raises(InvalidInputError, match="needs a user id"):
        asyncio.run(HindsightMemoryBlock(memory=fake_memory).aget([ChatMessage(role="user", content="hi")]))


def test_write_turns_false_only_reads(fake_memory):
    fake_memory.remember("I prefer dark mode in every app.", user_id="alice")
    block = HindsightMemoryBlock(memory=fake_memory, user_id="alice", write_turns=False)
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=3)
    SimpleChatEngine.from_defaults(llm=llm, memory=Memory.from_defaults(memory_blocks=[block])).chat(
        "My new phone is a Pixel 9; set it up in dark mode.")
    assert "dark mode in every app" in system_text(llm.last_chat_messages)
    assert [r.source for r in settled(fake_memory).memories(user_id="alice")] == [Source.USER]
    assert len(settled(fake_memory).memories(user_id="alice")) == 1


def test_a_turn_whose_write_failed_is_offered_again(clock):
    class FailingOnceGate(RecordingGate):
        def __call__(self, text, source):
            if not self.offered:
                self.offered.append(("failed", text))
                raise StoreUnavailableError("qdrant is restarting")
            return super().__call__(text, source)

    gate = FailingOnceGate()
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, gate=gate) as memory:
        chat = engine(memory, MockLLMWithChatMemoryOfLastCall(max_tokens=3))
        chat.chat("My new address is 12 Rue Cler, Paris.")  # written behind the conversation: it is not held up
        try:  # the reply's put may already have started the writer again (then the retry was quicker)
            settled(memory)
        except StoreUnavailableError as exc:
            assert "next hand-over tries them again" in str(exc)
        assert gate.offered[0] == ("failed", "My new address is 12 Rue Cler, Paris.")  # the write did fail once
        chat.chat("I prefer deliveries in the morning.")  # the next turn starts the writer again
        assert stored(memory, "alice") == [("user", "My new address is 12 Rue Cler, Paris."),
                                           ("user", "I prefer deliveries in the morning.")]


@pytest.mark.model
def test_an_answer_echoing_a_forgotten_fact_is_not_stored_after_the_forget(memory):
    """The block offers an answer at the next read: after a forget, an answer to a forgotten turn is not stored."""
    scripted = ScriptedLLM(reply="Noted: your card PIN 4921 is saved for the bank form.")
    chat = engine(memory, scripted.llm)
    chat.chat("My card PIN is 4921, keep it for the bank form.")
    settled(memory).forget(user_id="alice", everything=True)
    scripted.reply = "Booked: Friday at 8 pm, a table for two."
    chat.chat("Book me a table for two at the harbour restaurant on Friday.")
    records = settled(memory).memories(user_id="alice")
    # the answer is handed over when it is put (HindsightChatMemory): the forgotten exchange went with the
    # forget, and the exchange after it is stored whole, with nothing of the PIN in its text or context
    assert sorted(r.raw_content for r in records) == ["Book me a table for two at the harbour restaurant on Friday.",
                                                      "Booked: Friday at 8 pm, a table for two."]
    assert all("4921" not in r.raw_content and "4921" not in (r.context or "") for r in records)


def test_closing_a_chat_memory_closes_its_sqlite_connection_and_thread(fake_memory):
    import threading

    def sqlite_threads() -> set[threading.Thread]:
        return {t for t in threading.enumerate() if "_connection_worker_thread" in t.name}

    before = sqlite_threads()
    chat = engine(fake_memory, MockLLMWithChatMemoryOfLastCall(max_tokens=3))
    chat.chat("I always use metric units, never imperial.")
    opened = sqlite_threads() - before
    assert len(opened) == 1  # LlamaIndex's short-term history: one aiosqlite connection, one thread
    chat._memory.close()
    chat._memory.close()  # closing twice is harmless
    for thread in opened:
        thread.join(timeout=10)
        assert not thread.is_alive()
