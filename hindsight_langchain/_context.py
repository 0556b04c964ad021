"""The memory block the middleware and the classic memory put into a prompt.

The one place that decides how recalled memories become prompt text: the core's
context builder (`hindsight_core.session.context.memory_block`: top-k, semantic first,
within an optional token budget).
"""

from __future__ import annotations

from typing import Any

from hindsight_core import MemoryAPI
from hindsight_core.session.context import amemory_block as _amemory_block
from hindsight_core.session.context import memory_block as _memory_block


def memory_block(memory: MemoryAPI, query: str, *, user_id: str, k: int, **recall_options: Any) -> str:
    """The delimited block of the `k` memories most worth recalling for `query` ('' if none)."""
    return _memory_block(memory, query, user_id=user_id, k=k, **recall_options).text


async def amemory_block(memory: MemoryAPI, query: str, *, user_id: str, k: int, **recall_options: Any) -> str:
    """Async twin of `memory_block`."""
    return (await _amemory_block(memory, query, user_id=user_id, k=k, **recall_options)).text
