"""Argument checks shared by the adapter's constructors, raising from the HindsightError tree."""

from __future__ import annotations

from hindsight_core import InvalidInputError, MemoryAPI
from hindsight_core.contract import options

#: how this adapter's calls are named (a server's recall log shows who asked)
ASKER = "hindsight_llamaindex"


def check_memory(memory: object) -> MemoryAPI:
    if not isinstance(memory, MemoryAPI):
        raise InvalidInputError("memory must be a hindsight_core.Hindsight or HindsightClient, "
                                f"got {type(memory).__name__}")
    return memory


def check_k(memory: MemoryAPI, k: object, *, what: str = "k") -> int:
    """`k` checked as recall checks it (`RecallOptions.checked`), when the adapter is built rather than at its
    first recall."""
    return options.check_k(k, memory.config.limits.max_k, what)
