"""The memory block the middleware and the classic memory put into a prompt.

The one place that decides how recalled memories become prompt text: the core's
context builder (`hindsight_core.session.context.memory_block`: top-k, semantic first,
within an optional token budget).
"""

from __future__ import annotations

from typing import Any

from hindsight_core import MemoryAPI
from hindsight_core.session import context
from hindsight_core.session.asking import asking_as


#: how this adapter's calls are named (a server's recall log shows who asked)
ASKER = "hindsight_langchain"


def memory_block(memory: MemoryAPI, query: str, *, user_id: str, k: int, **recall_options: Any) -> str:
    """The delimited block of the `k` memories most worth recalling for `query` ('' if none)."""
    with asking_as(ASKER):
        return context.memory_block(memory, query, user_id=user_id, k=k, **recall_options).text


async def amemory_block(memory: MemoryAPI, query: str, *, user_id: str, k: int, **recall_options: Any) -> str:
    """Async twin of `memory_block`."""
    with asking_as(ASKER):
        return (await context.amemory_block(memory, query, user_id=user_id, k=k, **recall_options)).text
