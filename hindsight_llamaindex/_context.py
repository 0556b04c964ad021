"""How the memory block turns a user message into prompt text, and how it shortens that text.

The block comes from the core's context builder (`hindsight_core.context.memory_block`:
top-k, semantic first); shortening drops the weakest memories first.
"""

from __future__ import annotations

from dataclasses import dataclass

from hindsight_core import Hindsight, ScoredMemory, count_tokens, format_for_prompt
from hindsight_core.context import amemory_block


@dataclass(frozen=True)
class PromptContext:
    """The rendered block and the memories it shows, best first."""

    text: str
    results: tuple[ScoredMemory, ...]


async def build_context(memory: Hindsight, query: str, *, user_id: str, k: int) -> PromptContext:
    """Recall the top `k` memories for `query` and render them for a system message."""
    block = await amemory_block(memory, query, user_id=user_id, k=k)
    return PromptContext(block.text, block.memories)


def shorten(context: PromptContext, tokens_to_free: int) -> str | None:
    """The block with its weakest memories dropped until `tokens_to_free` tokens are saved.

    Keeps at least the best memory; None only when there was nothing to show.
    """
    if not context.results:
        return None
    if tokens_to_free <= 0:
        return context.text
    full = count_tokens(context.text)
    for n in range(len(context.results) - 1, 0, -1):
        text = format_for_prompt(context.results[:n])
        if full - count_tokens(text) >= tokens_to_free:
            return text
    # the best memory alone still overflows: hand it back and let LlamaIndex decide by priority
    return format_for_prompt(context.results[:1])
