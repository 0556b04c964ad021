"""Argument checks shared by the adapter's constructors, raising from the HindsightError tree."""

from __future__ import annotations

from hindsight_core import InvalidInputError, MemoryAPI
from hindsight_core.recall.request import check_k as _check_k


def check_memory(memory: object) -> MemoryAPI:
    if not isinstance(memory, MemoryAPI):
        raise InvalidInputError("memory must be a hindsight_core.Hindsight or HindsightClient, "
                                f"got {type(memory).__name__}")
    return memory


def check_k(memory: MemoryAPI, k: object, *, what: str = "k") -> int:
    """`k` checked as recall checks it (`RecallOptions.checked`), when the adapter is built rather than at its
    first recall."""
    return _check_k(k, memory.config.limits.max_k, what)
