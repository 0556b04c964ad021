"""Embedding with the checks every caller needs: the shape the embedder promised, finite numbers, unit length.

`embed_passages` for what is stored, `embed_queries` for what is asked (the
query side, for models trained with one: e5).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..errors import EvaluatorError, InvalidInputError
from .embedder import Embedder, normalize_rows


def check_vectors(vectors: Any, embedder_name: str) -> Any:
    """The embedder's vectors, if every number is finite; NaN or infinity would poison every later search."""
    if not np.isfinite(vectors).all():
        raise EvaluatorError(f"embedder {embedder_name} returned NaN or infinite numbers; nothing was stored. "
                             "Check the model (a broken download, a half-precision overflow) or use another")
    return vectors


def _checked(raw: Any, embedder: Embedder, count: int) -> np.ndarray:
    vectors = np.asarray(raw, dtype=np.float32)
    if vectors.shape != (count, embedder.dimension):
        raise InvalidInputError(f"embedder {embedder.name} returned shape {vectors.shape}, expected "
                                f"({count}, {embedder.dimension})")
    return normalize_rows(check_vectors(vectors, embedder.name))


def embed_passages(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Unit vectors for texts to store, one row each."""
    return _checked(embedder.embed(list(texts)), embedder, len(texts))


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Unit vectors for queries, through the embedder's query side where it has one (e5)."""
    embed_query = getattr(embedder, "embed_query", None)
    if embed_query is None:
        return embed_passages(embedder, texts)
    return _checked(embed_query(list(texts)), embedder, len(texts))
