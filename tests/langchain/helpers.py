"""Shared helpers for the LangChain adapter tests."""

from __future__ import annotations

from langchain_core.messages import AIMessage

PREFERENCE = "From now on, print all my reports in A4 landscape."
LATER_REQUEST = "Get the sales summary ready for the board handout."


def says(text: str) -> dict:
    """The input of one agent turn: a single user message."""
    return {"messages": [{"role": "user", "content": text}]}


def tool_call(name: str, args: dict, call_id: str = "call-1") -> AIMessage:
    """An AI message asking for one tool call, as a tool-calling model would answer."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])
