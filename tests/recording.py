"""A fake embedder that keeps what it was asked to embed, for tests of what is embedded and how often."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from hindsight_core.testing import FakeEmbedder


class RecordingEmbedder(FakeEmbedder):
    """A `FakeEmbedder` that keeps every batch it embeds (`calls`)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return super().embed(texts)
