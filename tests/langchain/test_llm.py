"""A LangChain chat model as hindsight's write-gate evaluator and consolidation summariser."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake import FakeListLLM
from langchain_core.messages import AIMessage, HumanMessage

from hindsight_core import EvaluatorError, Hindsight, HindsightConfig, InvalidInputError, Layer, Source
from hindsight_core.config import SemanticConfig
from hindsight_core.testing import FakeEmbedder
from hindsight_langchain import as_text_function, llm_gate, llm_judge, llm_summarizer
from hindsight_langchain.testing import RecordingChatModel

from .helpers import PREFERENCE


def test_as_text_function_sends_the_prompt_as_one_user_message_and_returns_the_text():
    model = RecordingChatModel(responses=[AIMessage(content=[{"type": "text", "text": "first"},
                                                             {"type": "text", "text": "second"}])])
    assert as_text_function(model)("Summarise this.") == "first\nsecond"
    assert model.received == [[HumanMessage(content="Summarise this.")]]


def test_as_text_function_takes_plain_llms_and_refuses_what_is_not_a_model():
    assert as_text_function(FakeListLLM(responses=["  plain text  "]))("hi") == "plain text"
    with pytest.raises(InvalidInputError, match="LangChain chat model"):
        as_text_function(lambda prompt: prompt)
    with pytest.raises(EvaluatorError, match="no text"):
        as_text_function(RecordingChatModel(responses=[""]))("hi")


def test_llm_gate_follows_the_models_verdict(clock):
    model = RecordingChatModel(responses=[
        '{"store": false, "event_type": "dialogue", "reason": "a joke, nothing to keep"}',
        'Sure! {"store": true, "event_type": "fact", "reason": "names the user\'s manager"}',
    ])
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, gate=llm_gate(model)) as memory:
        declined = memory.write(PREFERENCE, user_id="alice")  # the rules would keep it; the model says no
        kept = memory.write("my boss is called Dana", user_id="alice", source=Source.AGENT)
    assert not declined.stored and declined.decision.reasons == ("LLM: a joke, nothing to keep",)
    assert kept.stored and kept.record.event_type == "fact"
    assert "Message (from the user)" in model.received[0][0].content
    assert "Message (from the agent)" in model.received[1][0].content


def test_llm_gate_falls_back_to_the_rules_when_the_model_talks_nonsense():
    gate = llm_gate(RecordingChatModel(responses=["I would rather not say."]))
    decision = gate(PREFERENCE, Source.USER)
    assert decision.store and decision.event_type == "preference"
    assert any("LLM evaluator unusable" in reason for reason in decision.reasons)


def test_the_model_writes_consolidated_knowledge(clock, real_embedder):
    writer = RecordingChatModel(responses=['{"summary": "The user prefers A4 landscape printing."}'])
    config = HindsightConfig(semantic=SemanticConfig(auto_consolidate=False))
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=config,
                   summarizer=llm_summarizer(writer)) as memory:
        for text in ["Print this report on A4 in landscape.", "Please print the sales report in landscape on A4.",
                     "Print the budget report on A4, landscape please.", "Print the team report in A4 landscape.",
                     "A4 landscape for this printout too, please."]:
            memory.write(text, user_id="alice")
            clock.advance(days=1)
        report = memory.consolidate(user_id="alice")
    assert report.ok and [k.summary for k in report.created] == ["The user prefers A4 landscape printing."]
    assert report.created[0].layer is Layer.SEMANTIC
    assert "Print the team report in A4 landscape." in writer.received[0][0].content


def test_the_chat_model_judges_what_a_new_statement_replaces(clock):
    model = RecordingChatModel(responses=['{"1": ["a"]}'])
    config = HindsightConfig(semantic=SemanticConfig(detect_conflicts=True))
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, config=config,
                   knowledge_judge=llm_judge(model)) as memory:
        old = memory.write("Our stand-up is at 9 every day.", user_id="alice").record
        clock.advance(days=3)
        new = memory.write("Our stand-up is at 9 every day at 9:30 now.", user_id="alice").record
        assert memory.get(old.id, user_id="alice").superseded_by == new.id
    [prompt] = [str(m.content) for call in model.received for m in call]
    assert "Our stand-up is at 9 every day." in prompt and "2026-03-18" in prompt
