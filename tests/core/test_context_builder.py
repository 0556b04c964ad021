"""The context builder: long-term memories plus the working-memory window, within one budget."""

from __future__ import annotations

import asyncio
import json
import math
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hindsight_core import Hindsight, InvalidInputError, Layer
from hindsight_core.language.tokens import TiktokenTokenizer
from hindsight_core.session.context import ContextBuilder, memory_block
from hindsight_core.testing import FakeEmbedder, FrozenClock
from hindsight_core.working import ContextBudgetError, WorkingMemory

T0 = datetime(2026, 3, 15, 9, 0, tzinfo=timezone.utc)
ENCODER = TiktokenTokenizer()


def recount(context) -> int:
    """Tokens of the messages a chat API would receive, counted from scratch: content + 4 framing each."""
    return sum(ENCODER.count(m["content"]) + 4 for m in context.to_messages())


@pytest.fixture
def printing(fake_memory):
    """A user with one semantic and two episodic memories about printing, and one about food."""
    fake_memory.write("Ana prints every board report in A4 landscape.", user_id="ana", layer="semantic", force=True)
    fake_memory.remember("From now on, print all my reports in A4 landscape with page numbers.", user_id="ana")
    fake_memory.remember("The print shop on Elm Street closes at 6 pm on Fridays.", user_id="ana")
    fake_memory.remember("I'm vegetarian, so please never suggest meat dishes.", user_id="ana")
    return fake_memory


def session(memory, clock, **options) -> WorkingMemory:
    wm = WorkingMemory("chat-9", user_id="ana", memory=memory, clock=clock, **options)
    wm.append("user", "Morning! I have a few errands today.")
    clock.advance(minutes=1)
    wm.append("assistant", "Happy to help. What is first?")
    clock.advance(minutes=1)
    wm.append("user", "Please print the quarterly report for the board.")
    return wm


def test_memories_go_into_the_system_prompt_semantic_first(printing, clock):
    wm = session(printing, clock)
    context = ContextBuilder(printing, system_prompt="You are Ana's assistant.", context_limit=2000).build(wm)
    layers = [r.memory.layer for r in context.long_term]
    assert layers and layers[0] is Layer.SEMANTIC and Layer.EPISODIC in layers
    assert layers == sorted(layers, key=lambda layer: layer is not Layer.SEMANTIC)
    prompt = context.system_prompt
    assert prompt.startswith("You are Ana's assistant.\n\n<memories>") and prompt.endswith("</memories>")
    assert prompt.index("board report in A4") < prompt.index("page numbers")
    assert context.query == "Please print the quarterly report for the board."
    messages = context.to_messages()
    assert messages[0] == {"role": "system", "content": prompt}
    assert messages[-1] == {"role": "user", "content": "Please print the quarterly report for the board."}


def test_token_report_adds_up_exactly_and_stays_in_budget(printing, clock):
    wm = session(printing, clock)
    context = ContextBuilder(printing, system_prompt="You are Ana's assistant.", context_limit=2000).build(wm)
    t = context.tokens
    assert (t.context_limit, t.reserved, t.available) == (2000, 400, 1600)
    assert t.total == t.system + t.long_term + t.working == recount(context)
    assert t.system == ENCODER.count("You are Ana's assistant.") + 4
    assert t.working == sum(ENCODER.count(m["content"]) + 4 for m in context.messages)
    assert t.total <= t.available and t.to_dict()["total"] == t.total


def test_the_memory_block_is_capped_and_loses_its_last_memories_first(printing, clock):
    wm = session(printing, clock)
    full = ContextBuilder(printing, context_limit=2000).build(wm)
    capped = ContextBuilder(printing, context_limit=2000, long_term_share=0.05).build(wm)  # 80 of 1600 tokens
    assert len(capped.long_term) < len(full.long_term)
    assert [r.memory.id for r in capped.long_term] == [r.memory.id for r in full.long_term][:len(capped.long_term)]
    assert capped.tokens.long_term + capped.tokens.system <= 80  # no system prompt: the block carries the framing
    assert capped.tokens.working == full.tokens.working  # the window is small enough either way


def test_a_memory_already_in_the_window_is_not_repeated(fake_memory, clock):
    wm = WorkingMemory("chat-1", user_id="ana", memory=fake_memory, clock=clock, context_limit=1000)
    wm.append("user", "From now on, print all my reports in A4 landscape.")
    fake_memory.remember("From now on, print all my reports in A4 landscape.", user_id="ana", force=True)
    wm.append("user", "Print the report for the board, please.")
    context = ContextBuilder(fake_memory).build(wm)
    assert context.long_term == () and context.tokens.long_term == 0 and context.system_prompt == ""
    assert [m["content"] for m in context.messages] == ["From now on, print all my reports in A4 landscape.",
                                                        "Print the report for the board, please."]


def test_duplicate_removal_keeps_the_message_when_the_window_is_rebuilt(fake_memory, clock):
    wm = WorkingMemory("chat-1", user_id="ana", memory=fake_memory, clock=clock, context_limit=100, reserve_ratio=0)
    fact = "Priya Raman approves the travel budget of $4,000 for the Lisbon trip."
    wm.append("user", fact)
    for i in range(6):
        wm.append("assistant", f"Filler message number {i} about nothing in particular at all.")
    fake_memory.remember(fact, user_id="ana", force=True)
    wm.append("user", "Who approves the Lisbon travel budget?")
    context = ContextBuilder(fake_memory, long_term_share=0.5).build(wm)
    assert fact in [m["content"] for m in context.messages]
    assert all(r.memory.raw_content != fact for r in context.long_term)
    assert context.tokens.total == recount(context) <= 100


def test_working_memory_alone(clock):
    wm = WorkingMemory("chat-1", embedder=FakeEmbedder(), clock=clock, context_limit=500)
    wm.append("user", "What did we decide about the brochure?")
    context = ContextBuilder().build(wm)
    assert context.long_term == () and context.system_prompt == ""
    assert (context.tokens.system, context.tokens.long_term) == (0, 0)
    assert context.to_messages() == [{"role": "user", "content": "What did we decide about the brochure?"}]
    assert context.tokens.total == recount(context)


def test_what_must_fit_is_checked(printing, clock):
    wm = session(printing, clock)
    with pytest.raises(ContextBudgetError, match="system prompt and the latest user message"):
        ContextBuilder(printing, system_prompt="Be brief. " * 100, context_limit=200).build(wm)
    anonymous = WorkingMemory("chat-2", memory=printing, clock=clock)
    anonymous.append("user", "Print the report.")
    with pytest.raises(InvalidInputError, match="user_id"):
        ContextBuilder(printing).build(anonymous)
    assert ContextBuilder(printing).build(anonymous, user_id="ana").long_term  # named per call instead
    for bad in (dict(k=-1), dict(long_term_share=1.5), dict(system_prompt=None), dict(context_limit=0)):
        with pytest.raises(InvalidInputError):
            ContextBuilder(printing, **bad)


def test_async_build_matches_sync(printing, clock):
    wm = session(printing, clock)
    builder = ContextBuilder(printing, system_prompt="You are Ana's assistant.", reinforce=False)
    assert asyncio.run(builder.abuild(wm)) == builder.build(wm)


def test_memory_block_for_callers_without_working_memory(printing):
    block = memory_block(printing, "print the board report", user_id="ana", k=3, reinforce=False)
    assert block.text.startswith("<memories>") and len(block.memories) <= 3
    assert block.memories[0].memory.layer is Layer.SEMANTIC
    assert block.tokens == ENCODER.count(block.text)
    small = memory_block(printing, "print the board report", user_id="ana", k=3, max_tokens=60, reinforce=False)
    assert small.tokens <= 60 and len(small.memories) < len(block.memories)


def test_real_model_a_session_handed_over_comes_back_in_the_next_one(real_embedder):
    clock = FrozenClock(T0)
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock) as memory:
        first = WorkingMemory("monday", user_id="ana", memory=memory, context_limit=4000)
        first.append("user", "Just so you know, I'm vegetarian and I never eat meat or fish.")
        first.append("assistant", "Thanks, I'll keep that in mind for any food suggestions.")
        first.append("user", "ok thanks")
        results = first.end_session()
        assert len(results) == 3 and results[0].stored and not results[2].stored  # the gate skips "ok thanks"
        clock.advance(days=3)
        second = WorkingMemory("thursday", user_id="ana", memory=memory, context_limit=4000)
        second.append("user", "Which restaurant would suit my diet for dinner with my sister tonight?")
        context = ContextBuilder(memory, system_prompt="You are a helpful assistant.").build(second)
        assert "vegetarian" in context.system_prompt
        assert context.long_term[0].memory.session_id == "monday"
        assert context.tokens.total == recount(context) <= context.tokens.available


WORDS = ["print", "report", "A4", "landscape", "board", "Priya", "$4,000", "Lisbon", "报表", "打印", "以后", "ok",
         "budget", "brochure", "300 dpi", "不对，应该是", "\n"]
TEXT = st.lists(st.sampled_from(WORDS), min_size=1, max_size=30).map(" ".join).filter(lambda s: s.strip() != "")


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(conversation=st.lists(st.tuples(st.sampled_from(["user", "assistant", "tool"]), TEXT), max_size=20),
       system=st.one_of(st.just(""), TEXT), context_limit=st.integers(min_value=20, max_value=1500),
       reserve=st.floats(min_value=0.0, max_value=0.5), share=st.floats(min_value=0.0, max_value=1.0))
def test_context_never_exceeds_the_budget_or_eats_the_reserve(memories_for_property, conversation, system,
                                                              context_limit, reserve, share):
    memory, clock = memories_for_property
    wm = WorkingMemory("s", user_id="ana", memory=memory, clock=clock)  # a fresh in-process backend each time
    for role, text in conversation:
        wm.append(role, text)
    builder = ContextBuilder(memory, system_prompt=system, context_limit=context_limit, reserve_ratio=reserve,
                             long_term_share=share, reinforce=False)
    try:
        context = builder.build(wm)
    except ContextBudgetError:
        users = [text for role, text in conversation if role == "user"]
        must = (ENCODER.count(system.strip()) + 4 if system.strip() else 0) + \
            (ENCODER.count(users[-1].strip()) + 4 if users else 0)
        assert must > builder.budget.available
        return
    t = context.tokens
    assert t.total == recount(context) and t.total <= t.available
    assert t.total + t.reserved <= context_limit
    if context.long_term:  # with no system prompt, the block also carries the system message's framing
        assert t.long_term + (0 if system.strip() else t.system) <= math.floor(share * t.available)


@pytest.fixture
def memories_for_property(clock):
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        for text in ["Ana prints every board report in A4 landscape.", "以后所有报表都用A4纸横向打印",
                     "Priya approves the Lisbon travel budget of $4,000.", "The brochure prints at 300 dpi."]:
            memory.remember(text, user_id="ana", force=True)
        yield memory, clock


# -- the LoCoMo benchmark script, on a tiny LoCoMo-shaped file ---------------------------------------

def test_benchmark_script_runs_on_a_tiny_locomo_file(tmp_path, capsys):
    turns = [("Ana", "I just adopted a grey cat called Miso from the shelter!"), ("Ben", "Congrats! How old is she?"),
             ("Ana", "She is two years old and loves tuna."), ("Ben", "I started learning the cello last week.")]
    later = [("Ana", "Miso knocked my plant off the shelf again."), ("Ben", "My cello teacher says I improve fast."),
             ("Ana", "Which instrument are you learning again?")]
    sample = {"sample_id": "tiny-1", "conversation": {
        "speaker_a": "Ana", "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": s, "dia_id": f"D1:{i}", "text": t} for i, (s, t) in enumerate(turns, 1)],
        "session_2_date_time": "10:02 am on 20 June, 2023",
        "session_2": [{"speaker": s, "dia_id": f"D2:{i}", "text": t} for i, (s, t) in enumerate(later, 1)]},
        "qa": [{"question": "What is the name of Ana's cat?", "answer": "Miso", "evidence": ["D1:1"], "category": 4},
               {"question": "What instrument is Ben learning?", "answer": "cello", "evidence": ["D1:4; D2:2"],
                "category": 1},
               {"question": "What does Ana think?", "answer": "?", "evidence": [], "category": 3}]}
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([sample]))
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        import working_memory as bench
    finally:
        sys.path.pop(0)
    out = tmp_path / "result.json"
    summary = bench.main(["--data", str(data), "--budgets", "40", "200", "--limit", "3", "--embedder", "fake",
                          "--out", str(out)])
    assert json.loads(out.read_text()) == json.loads(json.dumps(summary))
    assert summary["questions"] == 2 and summary["skipped"] == 1
    big = summary["budgets"]["200"]
    assert set(big) == set(bench.STRATEGIES)
    for name in ("last_n", "full_truncated", "window", "window_ltm"):
        assert big[name]["all_evidence"] == 1.0  # 200 tokens hold the whole tiny conversation
        assert big[name]["max_tokens"] <= 200
    small = summary["budgets"]["40"]
    assert all(s["max_tokens"] <= 40 for s in small.values())
    assert small["last_n"]["all_evidence"] == 0.0  # only the last turn or two fit; the evidence is older
    assert "last_n" in capsys.readouterr().out
