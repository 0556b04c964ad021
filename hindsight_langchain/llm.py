"""Any LangChain chat model as hindsight's LLM evaluator (write gate), judge of knowledge, and summariser.

hindsight's LLM hooks take a plain `prompt -> text` function:

    from langchain.chat_models import init_chat_model
    from hindsight_langchain import llm_gate, llm_judge, llm_summarizer

    model = init_chat_model("openai:gpt-4.1-mini")
    memory = Hindsight(gate=llm_gate(model), summarizer=llm_summarizer(model),
                       knowledge_judge=llm_judge(model), config=knowledge_on())
"""

from __future__ import annotations

from typing import Any, Callable

from langchain_core.language_models import BaseLanguageModel
from langchain_core.messages import BaseMessage

from hindsight_core import InvalidInputError, LLMGate, ModelJudge, WriteGate
from hindsight_core.session.answers import answer_text

from ._convert import message_text


def as_text_function(model: BaseLanguageModel[Any]) -> Callable[[str], str]:
    """A `prompt -> answer text` function that sends the prompt to `model` as one user message.

    Works with chat models (the answer's text blocks are joined) and plain LLMs.
    It is synchronous: hindsight calls its evaluators from worker threads, so it
    is safe to use from async code too. An answer with no text raises
    `EvaluatorError`, as the core's `answer_text` decides for every adapter.
    """
    if not isinstance(model, BaseLanguageModel):
        raise InvalidInputError(f"model must be a LangChain chat model or LLM, got {type(model).__name__}")

    def ask(prompt: str) -> str:
        answer = model.invoke(prompt)
        return answer_text(message_text(answer) if isinstance(answer, BaseMessage) else answer,
                           model=type(model).__name__)

    ask.__qualname__ = f"as_text_function({type(model).__name__})"
    return ask


def llm_gate(model: BaseLanguageModel[Any], *, fallback: WriteGate | None = None) -> LLMGate:
    """The core's `LLMGate` asking `model` whether a turn is worth keeping (rules as the fallback)."""
    return LLMGate(as_text_function(model), fallback=fallback)


def llm_judge(model: BaseLanguageModel[Any]) -> ModelJudge:
    """The core's `ModelJudge` asking `model` whether a new statement replaces an older one and whether statements
    say one thing (rules as the fallback): for `Hindsight(knowledge_judge=...)` with supersession or consolidation on."""
    return ModelJudge(as_text_function(model))


def llm_summarizer(model: BaseLanguageModel[Any]) -> Callable[[str], str]:
    """A summariser for `Hindsight(summarizer=...)`: the core writes the prompt, `model` answers it."""
    return as_text_function(model)
