"""Testing helpers: a fake chat model for agents that use hindsight, offline and deterministic, and the
LangGraph store conformance suite (`check_store`, usable on any `BaseStore`: see `conformance`)."""

from __future__ import annotations

from typing import Any, Sequence

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.outputs import ChatResult
from pydantic import Field

from .conformance import Difference, Report, check_store, conformance_steps

__all__ = ["Difference", "RecordingChatModel", "Report", "check_store", "conformance_steps"]


class RecordingChatModel(GenericFakeChatModel):
    """LangChain's `GenericFakeChatModel` that also records every message list it is sent.

    `RecordingChatModel(responses=["Noted.", AIMessage(...)])` answers with the
    responses in order (and raises once they run out); `received` holds the
    messages of each call, so a test can read the system prompt the model saw.
    `bind_tools` accepts any tools and returns the model itself, so it can stand
    in for a tool-calling model in `create_agent`.
    """

    received: list[list[BaseMessage]] = Field(default_factory=list)

    def __init__(self, responses: Sequence[AIMessage | str] = (), **kwargs: Any) -> None:
        kwargs.setdefault("messages", iter(list(responses)))
        super().__init__(**kwargs)

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.received.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> "RecordingChatModel":
        return self

    def system_prompts(self) -> list[str]:
        """The system prompt text of each call, in order ('' for a call without one)."""
        return [next((str(m.content) for m in call if isinstance(m, SystemMessage)), "") for call in self.received]
