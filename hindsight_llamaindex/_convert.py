"""Type translation between LlamaIndex and hindsight_core: messages to turns, memories to nodes."""

from __future__ import annotations

from typing import Iterable

from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock
from llama_index.core.schema import NodeWithScore, TextNode

from hindsight_core import ScoredMemory, Source
from hindsight_core.recall.formatting import neutralise
from hindsight_core.session.turns import Turn

#: the metadata field this adapter's stored turns have kept their digest under since before the core's TurnLog
TURN_FIELD = "llamaindex_turn"

# only what a person or the model said is a turn; system prompts and tool output are not
_SOURCES = {MessageRole.USER: Source.USER, MessageRole.ASSISTANT: Source.AGENT}

# metadata the model gains nothing from seeing in a context window
_HIDDEN_FROM_LLM = ["id", "layer", "confidence", "retention", "score", "source", "session_id", "explanation"]


def message_text(message: ChatMessage) -> str:
    """The text blocks of a message joined together (images, audio and tool calls are skipped)."""
    return "".join(block.text for block in message.blocks if isinstance(block, TextBlock)).strip()


def turn_from_message(message: ChatMessage) -> Turn | None:
    """The core's `Turn` for a user or assistant message with text; None for anything else."""
    source = _SOURCES.get(message.role)
    text = message_text(message)
    if source is None or not text:
        return None
    return Turn(text, source)


def turns_from_messages(messages: Iterable[ChatMessage]) -> list[Turn]:
    return [turn for turn in map(turn_from_message, messages) if turn is not None]


def latest_user_text(messages: Iterable[ChatMessage]) -> str | None:
    """The text of the last user message that has any, or None."""
    for message in reversed(list(messages)):
        if message.role == MessageRole.USER:
            text = message_text(message)
            if text:
                return text
    return None


def node_from_result(result: ScoredMemory) -> NodeWithScore:
    """A `NodeWithScore` for one recalled memory, its text defused like `format_for_prompt` does."""
    record = result.memory
    metadata = result.metadata()
    node = TextNode(
        id_=record.id, text=neutralise(record.raw_content), metadata=metadata,
        excluded_llm_metadata_keys=list(_HIDDEN_FROM_LLM), excluded_embed_metadata_keys=list(metadata),
    )
    return NodeWithScore(node=node, score=result.score)
