"""The prompt block carries what recall found: the turn a memory answers, attributed; a budget shortens it first."""

from __future__ import annotations

import json

import pytest

from hindsight_core import Hindsight, Source, count_tokens, format_for_prompt
from hindsight_core.recall.formatting import ANSWERS_KEY, OTHERS_SECTION, USER_SECTION, USER_SECTION_WITH_CONTEXT
from hindsight_core.session.context import fit_block, memory_block, shorten_block
from hindsight_core.session.turns import ANSWERS_FIELD, Turn, TurnLog
from hindsight_core.testing import FakeEmbedder

PAINTERS = ("For a start, study the Renaissance painters: Leonardo da Vinci, Michelangelo and Raphael, "
            "and look closely at how each of them handles light.")
REPLY = "That's really useful. The key point I want to learn is composition."


@pytest.fixture
def chat(clock):
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        TurnLog(memory).offer([Turn("Which painters should I study to learn composition?", Source.USER),
                               Turn(PAINTERS, Source.AGENT), Turn(REPLY, Source.USER)],
                              user_id="u", session_id="s")
        yield memory


def reply_of(memory):
    return next(r for r in memory.memories(user_id="u") if r.raw_content == REPLY)


def test_the_policy_records_who_said_the_turn_a_memory_answers(chat):
    reply = reply_of(chat)
    assert reply.context == PAINTERS and reply.metadata[ANSWERS_FIELD] == "agent"
    first = next(r for r in chat.memories(user_id="u") if r.raw_content.startswith("Which painters"))
    assert ANSWERS_FIELD not in first.metadata and first.context is None


def test_a_reply_shows_the_turn_it_answers_quoted_and_attributed_to_the_assistant(chat):
    reply = reply_of(chat)
    results = [r for r in chat.recall("composition", user_id="u", k=5) if r.memory.id == reply.id]
    block = format_for_prompt(results)
    lines = block.splitlines()
    assert USER_SECTION_WITH_CONTEXT in lines and OTHERS_SECTION not in lines
    at = lines.index(next(line for line in lines if line.endswith(REPLY)))
    assert lines[at + 1] == f"  ↳ answering the assistant: {json.dumps(PAINTERS)}"
    # the assistant's words are never a line of the user's own: they only appear quoted, after the arrow
    assert not any(line.startswith("- ") and "Leonardo" in line for line in lines)


def test_no_context_line_when_the_turn_answered_is_itself_in_the_block(chat):
    results = chat.recall("Renaissance painters composition", user_id="u", k=5)
    assert {r.memory.raw_content for r in results} >= {PAINTERS, REPLY}
    block = format_for_prompt(results)
    assert block.count("Leonardo da Vinci") == 1 and "↳" not in block
    assert USER_SECTION in block.splitlines()


def test_without_a_record_of_the_speaker_the_turn_is_an_earlier_one_and_width_zero_shows_none(clock):
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        memory.write("Yes, the blue one.", user_id="u", context="Should the banner be red or blue?", force=True)
        results = memory.recall("banner colour", user_id="u")
    assert '↳ answering an earlier turn: "Should the banner be red or blue?"' in format_for_prompt(results)
    assert "↳" not in format_for_prompt(results, context_chars=0)
    assert ANSWERS_KEY not in results[0].memory.metadata


def test_a_budget_shortens_the_context_before_it_drops_a_memory(chat):
    def not_the_assistant(record):
        return record.source is Source.USER

    full = memory_block(chat, "composition", user_id="u", k=5, where=not_the_assistant)
    assert json.dumps(PAINTERS) in full.text
    shown = len(full.memories)
    tighter = memory_block(chat, "composition", user_id="u", k=5, max_tokens=full.tokens - 5,
                           where=not_the_assistant)
    assert len(tighter.memories) == shown and tighter.context_chars < full.context_chars
    assert tighter.tokens <= full.tokens - 5 and REPLY in tighter.text
    assert tighter.tokens == count_tokens(tighter.text)
    freed = shorten_block(full, 5)
    assert freed.memories == full.memories and freed.tokens <= full.tokens - 5


def test_fit_block_drops_the_weakest_only_once_no_context_fits():
    costs = {(2, 300): 50, (2, 150): 40, (2, 75): 35, (2, 0): 30, (1, 300): 20, (1, 150): 15, (1, 75): 12, (1, 0): 10}
    memories = ["strong", "weak"]

    def cost(chosen, width):
        return costs[(len(chosen), width)]

    assert fit_block(memories, cost, 45) == (memories, 150)
    assert fit_block(memories, cost, 30) == (memories, 0)
    assert fit_block(memories, cost, 25) == (["strong"], 300)
    assert fit_block(memories, cost, 5) == ([], 0)
    assert fit_block(memories, cost, None) == (memories, 300)


def test_a_line_gives_the_event_type_and_only_knowledge_its_layer_and_confidence(fake_memory):
    from hindsight_core.types import Layer

    fake_memory.write("Prefers printing reports in landscape.", user_id="u", force=True, layer=Layer.SEMANTIC)
    fake_memory.write("Print the Orion report in landscape.", user_id="u", force=True)
    lines = format_for_prompt(fake_memory.recall("printing landscape", user_id="u")).splitlines()
    assert lines[3].startswith("- [2026-03-15] (semantic, ") and "confidence" in lines[3]
    assert lines[3].endswith("Prefers printing reports in landscape.")
    assert lines[4].startswith("- [2026-03-15] ") and "episodic" not in lines[4] and "confidence" not in lines[4]
