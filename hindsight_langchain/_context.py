"""The memory block the middleware and the classic memory put into a prompt.

The one place that decides how recalled memories become prompt text: today a
recall plus `format_for_prompt`; when the core's working-memory context
builder lands, only these two functions change.
"""

from __future__ import annotations

from typing import Any

from hindsight_core import Hindsight


def memory_block(memory: Hindsight, query: str, *, user_id: str, k: int, **recall_options: Any) -> str:
    """The delimited block of the `k` memories most worth recalling for `query` ('' if none)."""
    return memory.format_for_prompt(memory.recall(query, user_id=user_id, k=k, **recall_options))


async def amemory_block(memory: Hindsight, query: str, *, user_id: str, k: int, **recall_options: Any) -> str:
    """Async twin of `memory_block`."""
    return memory.format_for_prompt(await memory.arecall(query, user_id=user_id, k=k, **recall_options))
