"""Fakes for testing code that uses hindsight: a fast deterministic embedder, a frozen clock, a recording gate.

`hindsight_core.testing.conformance` holds the behavioural suite every `MemoryAPI` implementation passes (it
needs pytest).
"""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

from ..clock import FrozenClock
from ..language.text import keyword_tokens
from ..types import GateDecision, Source
from ..write.gate import RuleBasedGate, WriteGate

__all__ = ["FakeEmbedder", "FrozenClock", "RecordingGate"]


class FakeEmbedder:
    """Hashes keyword tokens into a fixed-size vector: texts sharing words are similar.

    Deterministic, instant and dependency-free; not a semantic model (synonyms are not similar).
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


class RecordingGate:
    """A write gate that keeps every (source, text) it was offered, and lets `gate` (default: the rules) decide.

        gate = RecordingGate()
        memory = Hindsight(location=":memory:", embedder=FakeEmbedder(), gate=gate)
        assert gate.offered == [("user", "I live in Porto.")]     # after the agent's turn
    """

    def __init__(self, gate: WriteGate | None = None) -> None:
        self.gate = gate or RuleBasedGate()
        self.offered: list[tuple[str, str]] = []

    def __call__(self, text: str, source: Source = Source.USER) -> GateDecision:
        decision = self.gate(text, source)
        self.offered.append((Source(source).value, text))
        return decision
