"""Caches keyed by a statement's text: a user's words, so they live in one registry that a forget empties.

The rules remember what they read of the last few thousand texts (a batch compares each text with many others); each
such cache is made here with `per_text`, and `forget_cached_texts()`, which `Hindsight.forget` calls, drops them all.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, TypeVar

_T = TypeVar("_T")

#: texts longer than this are read again each time (they would fill memory)
LONGEST_CACHED = 1024
#: how many texts each cache remembers (a store's neighbourhoods and a batch fit)
CACHED_TEXTS = 8192

_CACHES: list[Any] = []


def per_text(fn: Callable[[str], _T]) -> Callable[[str], _T]:
    """`fn` remembered for the last `CACHED_TEXTS` short texts, in a cache that `forget_cached_texts` empties."""
    cached = lru_cache(maxsize=CACHED_TEXTS)(fn)
    _CACHES.append(cached)

    def read(text: str) -> _T:
        return cached(text) if len(text) <= LONGEST_CACHED else fn(text)
    read.__doc__, read.__name__ = fn.__doc__, fn.__name__
    return read


def forget_cached_texts() -> None:
    """Empty every text-keyed cache in the process (after a forget, none keeps a forgotten text)."""
    for cache in _CACHES:
        cache.cache_clear()
