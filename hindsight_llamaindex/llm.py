"""Any LlamaIndex LLM as the text-in/text-out callable that hindsight's evaluators take.

    from hindsight_core import Hindsight
    from hindsight_llamaindex import llm_gate, llm_summarizer

    memory = Hindsight(gate=llm_gate(llm))            # the LLM decides what is worth keeping
    memory = Hindsight(knowledge_judge=llm_judge(llm), config=knowledge_on())  # and what replaces what
    text_fn = llm_summarizer(llm)                     # for the core's summariser hook
"""

from __future__ import annotations

from typing import Callable, Optional

from llama_index.core.base.llms.base import BaseLLM

from hindsight_core import InvalidInputError, LLMGate, ModelJudge, WriteGate
from hindsight_core.session.answers import answer_text


def as_text_function(llm: BaseLLM) -> Callable[[str], str]:
    """A `prompt -> answer text` function backed by `llm.complete` (chat models included).

    The function is synchronous: hindsight calls its evaluators from worker
    threads, so it is safe to use from async code too. An answer with no text
    raises `EvaluatorError`, as the core's `answer_text` decides for every adapter.
    """
    if not isinstance(llm, BaseLLM):
        raise InvalidInputError(f"llm must be a LlamaIndex LLM (llama_index.core.llms.LLM), got {type(llm).__name__}")

    def complete(prompt: str) -> str:
        return answer_text(llm.complete(prompt).text, model=type(llm).__name__)

    complete.__qualname__ = f"as_text_function({type(llm).__name__})"
    return complete


def llm_gate(llm: BaseLLM, *, fallback: Optional[WriteGate] = None) -> LLMGate:
    """The core's `LLMGate` asking `llm` whether a turn is worth keeping (rules as the fallback)."""
    return LLMGate(as_text_function(llm), fallback=fallback)


def llm_judge(llm: BaseLLM) -> ModelJudge:
    """The core's `ModelJudge` asking `llm` whether a new statement replaces an older one and whether statements
    say one thing (rules as the fallback): for `Hindsight(knowledge_judge=...)` with supersession or consolidation on."""
    return ModelJudge(as_text_function(llm))


def llm_summarizer(llm: BaseLLM) -> Callable[[str], str]:
    """A summariser for `Hindsight(summarizer=...)`: the core writes the prompt, `llm` answers it."""
    return as_text_function(llm)
