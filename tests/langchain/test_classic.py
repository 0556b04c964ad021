"""HindsightMemory: a langchain_classic BaseMemory for legacy chains."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import warnings

import pytest

pytest.importorskip("langchain_classic")

from langchain_core.prompts import PromptTemplate  # noqa: E402

from hindsight_core import InvalidInputError  # noqa: E402
from hindsight_langchain.testing import RecordingChatModel  # noqa: E402

from .helpers import LATER_REQUEST, PREFERENCE  # noqa: E402


def make(memory, **options):
    from hindsight_langchain.classic import HindsightMemory

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # BaseMemory itself is deprecated upstream
        return HindsightMemory(memory=memory, user_id="alice", **options)


def test_save_context_writes_the_turn_and_load_returns_the_block(memory):
    chat = make(memory)
    chat.save_context({"input": PREFERENCE}, {"output": "Understood, A4 landscape for every report from now on."})
    assert [r.source.value for r in memory.memories(user_id="alice")] == ["user", "agent"]

    variables = chat.load_memory_variables({"input": LATER_REQUEST})
    assert list(variables) == ["memories"] == chat.memory_variables
    assert variables["memories"].startswith("<memories>") and PREFERENCE in variables["memories"]


def test_trivial_turns_are_not_stored_and_nothing_recalled_is_an_empty_string(fake_memory):
    chat = make(fake_memory)
    chat.save_context({"question": "what time is it?"}, {"answer": "It is 10:42 in the morning."})
    assert fake_memory.memories(user_id="alice") == []
    assert chat.load_memory_variables({"question": "anything about printing?"}) == {"memories": ""}
    assert chat.load_memory_variables({"question": "  "}) == {"memories": ""}


def test_async_twins_and_clear_keeps_long_term_memory(fake_memory):
    chat = make(fake_memory, memory_key="history")

    async def scenario():
        await chat.asave_context({"input": PREFERENCE}, {"output": "Noted."})
        loaded = await chat.aload_memory_variables({"input": "print my reports"})
        await chat.aclear()
        return loaded

    assert PREFERENCE in asyncio.run(scenario())["history"]
    chat.clear()
    assert PREFERENCE in [r.raw_content for r in fake_memory.memories(user_id="alice")]


def test_keys_are_found_or_named(fake_memory):
    chat = make(fake_memory, input_key="question", output_key="text")
    chat.save_context({"question": PREFERENCE, "language": "en"}, {"text": "Noted.", "tokens": 3})
    assert fake_memory.memories(user_id="alice")[0].raw_content == PREFERENCE
    with pytest.raises(InvalidInputError, match="output_key"):
        make(fake_memory).save_context({"input": PREFERENCE}, {"a": "1", "b": "2"})
    with pytest.raises(ValueError, match="One input key expected"):
        make(fake_memory).load_memory_variables({"a": "1", "b": "2"})


def test_a_legacy_chain_sees_the_memories_in_its_prompt(fake_memory):
    from langchain_classic.chains import LLMChain

    fake_memory.remember(PREFERENCE, user_id="alice")
    model = RecordingChatModel(responses=["The summary will be printed in A4 landscape."])
    prompt = PromptTemplate.from_template("{memories}\n\nUser: {input}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chain = LLMChain(llm=model, prompt=prompt, memory=make(fake_memory))
        chain.invoke({"input": "Print the sales summary report for the board."})
    assert PREFERENCE in model.received[0][0].content
    assert fake_memory.memories(user_id="alice")[-1].raw_content == "The summary will be printed in A4 landscape."


def test_the_package_does_not_import_langchain_classic():
    code = "import sys, hindsight_langchain; print('langchain_classic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
