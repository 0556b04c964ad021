"""Argument checks shared by the adapter's constructors, raising from the HindsightError tree."""

from __future__ import annotations

from hindsight_core import Hindsight, InvalidInputError


def check_memory(memory: object) -> Hindsight:
    if not isinstance(memory, Hindsight):
        raise InvalidInputError(f"memory must be a hindsight_core.Hindsight, got {type(memory).__name__}")
    return memory


def check_k(memory: Hindsight, k: object, *, what: str = "k") -> int:
    max_k = memory.config.limits.max_k
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= max_k:
        raise InvalidInputError(f"{what} must be an integer within 1..{max_k}, got {k!r}")
    return k
