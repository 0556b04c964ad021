"""Fakes for testing code that uses hindsight: a fast deterministic embedder and a frozen clock."""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

from .clock import FrozenClock
from .text import keyword_tokens

__all__ = ["FakeEmbedder", "FrozenClock"]


class FakeEmbedder:
    """Hashes keyword tokens into a fixed-size vector: texts sharing words are similar.

    Deterministic, instant and dependency-free; not a semantic model (synonyms
    are not similar), so use the real embedder where meaning matters.
    """

    def __init__(self, dimension: int = 64, name: str = "fake-hash-embedder") -> None:
        self.dimension = dimension
        self.name = name

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in keyword_tokens(text) or [text]:
                digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest[:4], "little") % self.dimension] += 1.0 if digest[4] % 2 else -1.0
            norm = np.linalg.norm(out[row])
            out[row] = out[row] / norm if norm else out[row]
            if not norm:
                out[row, 0] = 1.0
        return out
