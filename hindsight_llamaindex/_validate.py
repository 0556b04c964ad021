"""Argument checks shared by the adapter's constructors, raising from the HindsightError tree."""

from __future__ import annotations

from hindsight_core import InvalidInputError, MemoryAPI


def check_memory(memory: object) -> MemoryAPI:
    if not isinstance(memory, MemoryAPI):
        raise InvalidInputError("memory must be a hindsight_core.Hindsight or HindsightClient, "
                                f"got {type(memory).__name__}")
    return memory


def check_k(memory: MemoryAPI, k: object, *, what: str = "k") -> int:
    max_k = memory.config.limits.max_k
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= max_k:
        raise InvalidInputError(f"{what} must be an integer within 1..{max_k}, got {k!r}")
    return k
