"""Translation between LangChain's types (messages, documents, configs) and hindsight's."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from hindsight_core import InvalidUserIdError, ScoredMemory, Source


def message_text(message: BaseMessage) -> str:
    """The text of a message; text blocks of a multi-part content are joined by newlines."""
    content = message.content
    if isinstance(content, str):
        return content.strip()
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "\n".join(p for p in parts if p.strip()).strip()


def latest_user_text(messages: Sequence[BaseMessage]) -> str | None:
    """The text of the last human message, or None if there is none (or it has no text)."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message_text(message) or None
    return None


def turn_texts(messages: Sequence[BaseMessage]) -> list[tuple[str, Source]]:
    """The last exchange: the last human message and the final AI answer after it, with their sources.

    Tool calls and tool results in between are left out: the answer the user saw
    is the last AI message that has text and asks for no tool.
    """
    start = next((i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], HumanMessage)), None)
    if start is None:
        return []
    out: list[tuple[str, Source]] = []
    question = message_text(messages[start])
    if question:
        out.append((question, Source.USER))
    answers = [m for m in messages[start + 1:] if isinstance(m, AIMessage) and not m.tool_calls and message_text(m)]
    if answers:
        out.append((message_text(answers[-1]), Source.AGENT))
    return out


def with_memory_block(system_message: SystemMessage | None, block: str) -> SystemMessage | None:
    """The system message with the memory block appended (a new message; the original is untouched)."""
    if not block:
        return system_message
    if system_message is None:
        return SystemMessage(content=block)
    content = system_message.content
    if isinstance(content, str):
        new_content: Any = f"{content}\n\n{block}" if content.strip() else block
    else:
        new_content = [*content, {"type": "text", "text": block}]
    return system_message.model_copy(update={"content": new_content})


def document_from_scored(result: ScoredMemory) -> Document:
    """A recalled memory as a LangChain `Document`: its text, and why it was recalled in the metadata."""
    record = result.memory
    return Document(
        id=record.id,
        page_content=record.raw_content,
        metadata=result.metadata(),
    )


def _lookup(holder: Any, name: str) -> Any:
    if holder is None:
        return None
    if isinstance(holder, Mapping):
        return holder.get(name)
    return getattr(holder, name, None)


#: configurable keys read for the user id; `langgraph_user_id` is the one LangMem's tools use
USER_ID_KEYS = ("user_id", "langgraph_user_id")


def resolve_user_id(context: Any, config: Mapping[str, Any] | None, default: str | None, *, who: str) -> str:
    """The user id for this run: runtime context first, then the config's configurable, then `default`."""
    configurable = (config or {}).get("configurable") or {}
    candidates = [_lookup(context, key) for key in USER_ID_KEYS]
    candidates += [configurable.get(key) for key in USER_ID_KEYS]
    candidates.append(default)
    for value in candidates:
        if value is not None:
            user: str = value  # checked by the caller (`validate_id`): a number here is refused, not turned to text
            return user
    raise InvalidUserIdError(
        f"{who} needs a user id and found none: pass context={{'user_id': ...}} (or a context object with a "
        "user_id attribute) or config={'configurable': {'user_id': ...}} to invoke, or give the user_id "
        "argument when you create it. hindsight never mixes the memories of different users.")


def thread_id(config: Mapping[str, Any] | None) -> str | None:
    """The LangGraph thread id (hindsight's session id), if the run has one."""
    value = ((config or {}).get("configurable") or {}).get("thread_id")
    return None if value is None else str(value)
