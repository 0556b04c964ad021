"""Capturing LLM mocks and small helpers for the LlamaIndex adapter tests."""

from __future__ import annotations

import asyncio
from typing import Any, Sequence

from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLMWithChatMemoryOfLastCall

from hindsight_core.session.write_queue import write_queue
from hindsight_core.testing import RecordingGate  # noqa: F401  (the shipped fake; the tests import it from here)


def settled(memory):
    """`memory` once the turns handed to it are stored (the block writes behind the conversation)."""
    write_queue(memory).flush()
    return memory


def system_text(messages: Sequence[ChatMessage]) -> str:
    """All system messages an LLM received, joined."""
    return "\n".join(m.content or "" for m in messages if m.role == MessageRole.SYSTEM)


class ScriptedLLM:
    """A `MockFunctionCallingLLMWithChatMemoryOfLastCall` that records every call and follows a script.

    `script` lists tool calls (tool name, kwargs), one per LLM call, made before
    the final answer `reply`. `calls` holds a copy of the messages of each call.
    """

    def __init__(self, reply: str = "Done.", script: list[tuple[str, dict]] | None = None) -> None:
        self.calls: list[list[ChatMessage]] = []
        self.reply = reply
        self.script = list(script or [])
        self.llm = MockFunctionCallingLLMWithChatMemoryOfLastCall(response_generator=self._respond)

    def _respond(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        self.calls.append([m.model_copy(deep=True) for m in messages])
        if self.script:
            name, args = self.script.pop(0)
            return ChatMessage(role="assistant", blocks=[
                ToolCallBlock(tool_call_id=f"call-{len(self.calls)}", tool_name=name, tool_kwargs=args)])
        return ChatMessage(role="assistant", content=self.reply)


def run_agent(agent: Any, user_msg: str, memory: Any) -> Any:
    """Run a workflow agent to completion from sync test code."""
    async def go() -> Any:
        return await agent.run(user_msg=user_msg, memory=memory)

    return asyncio.run(go())
