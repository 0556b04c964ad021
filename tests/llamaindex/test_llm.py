"""A LlamaIndex LLM as hindsight's write-gate evaluator and consolidation summariser."""

from __future__ import annotations

from typing import Any, List

import pytest
from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen, LLMMetadata
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import CustomLLM
from llama_index.core.llms.mock import MockLLM, MockLLMWithChatMemoryOfLastCall

from hindsight_core import Hindsight, HindsightConfig, InvalidInputError, Layer
from hindsight_core.config import SemanticConfig
from hindsight_core.testing import FakeEmbedder
from hindsight_llamaindex import as_text_function, hindsight_memory, llm_gate, llm_judge, llm_summarizer

from .helpers import settled


class AnsweringLLM(CustomLLM):
    """A LlamaIndex LLM that gives one fixed answer and keeps every prompt it was sent."""

    answer: str
    prompts: List[str] = []

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata()

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.prompts.append(prompt)
        return CompletionResponse(text=self.answer)

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        yield self.complete(prompt)


def test_as_text_function_returns_the_llms_answer():
    llm = AnsweringLLM(answer="forty-two")
    ask = as_text_function(llm)
    assert ask("What is six times seven?") == "forty-two"
    assert llm.prompts == ["What is six times seven?"]
    assert as_text_function(MockLLM(is_chat_model=True))("echo me") == "echo me"


def test_the_llm_decides_what_the_gate_keeps(clock):
    verdict = AnsweringLLM(answer='Sure. {"store": false, "event_type": "dialogue", "reason": "hypothetical"}')
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, gate=llm_gate(verdict)) as memory:
        result = memory.write("I prefer to imagine living on Mars someday.", user_id="alice")
    assert not result.stored
    assert result.decision.reasons == ("LLM: hypothetical",)
    assert "I prefer to imagine living on Mars someday." in verdict.prompts[0]


def test_an_unusable_answer_falls_back_to_the_rules(clock):
    echo = MockLLM()  # answers with its prompt: JSON-shaped but not valid JSON
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, gate=llm_gate(echo)) as memory:
        kept = memory.write("From now on, reply to me in Spanish.", user_id="alice")
        skipped = memory.write("thanks", user_id="alice")
    assert kept.stored and kept.decision.event_type == "preference"
    assert not skipped.stored
    assert any("LLM evaluator unusable" in r for r in kept.decision.reasons)


def test_the_llm_gate_judges_chat_turns(clock):
    verdict = AnsweringLLM(answer='{"store": false, "event_type": "dialogue", "reason": "nothing lasting"}')
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, gate=llm_gate(verdict)) as memory:
        chat = SimpleChatEngine.from_defaults(llm=MockLLMWithChatMemoryOfLastCall(max_tokens=3),
                                              memory=hindsight_memory(user_id="alice", memory=memory))
        chat.chat("My favourite colour is green and I live in Leeds.")  # the rules would keep this
        settled(memory)
        assert memory.memories(user_id="alice") == []
    assert any("favourite colour is green" in p for p in verdict.prompts)


@pytest.mark.model
def test_the_llm_writes_consolidated_knowledge(clock, real_embedder):
    writer = AnsweringLLM(answer='{"summary": "The user prefers A4 landscape printing."}')
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
    assert "Print the team report in A4 landscape." in writer.prompts[0]


def test_something_that_is_not_an_llm_is_refused():
    with pytest.raises(InvalidInputError, match="LlamaIndex LLM"):
        as_text_function("gpt-4o")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        llm_gate(lambda prompt: "{}")  # type: ignore[arg-type]


def test_the_llm_judges_what_a_new_statement_replaces(clock):
    llm = AnsweringLLM(answer='{"1": ["a"]}', prompts=[])
    config = HindsightConfig(semantic=SemanticConfig(detect_conflicts=True))
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, config=config,
                   knowledge_judge=llm_judge(llm)) as memory:
        old = memory.write("Our stand-up is at 9 every day.", user_id="alice").record
        clock.advance(days=3)
        new = memory.write("Our stand-up is at 9 every day at 9:30 now.", user_id="alice").record
        assert memory.get(old.id, user_id="alice").superseded_by == new.id
    [prompt] = llm.prompts
    assert "Our stand-up is at 9 every day." in prompt and "2026-03-18" in prompt
