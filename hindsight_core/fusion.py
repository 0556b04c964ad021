"""Rank fusion, as a pure function over numpy arrays.

Weighted reciprocal-rank fusion (Cormack et al., 2009):

    fused(d) = Σ_c  w_c / (k + rank_c(d))

over the channels c in which d was ranked (ranks are 1-based; a channel that
did not rank d adds nothing). RRF needs no score calibration between channels,
which is why it is the default for mixing cosine similarities with BM25 scores.
It runs vectorised because it sits on the hot recall path.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np


def reciprocal_rank_fusion(
    channels: Mapping[str, np.ndarray], weights: Mapping[str, float], k: int = 60
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Fuse ranked id lists (best first, no repeats within a channel).

    Returns (ids, fused, ranks): the union of ids (ascending), each id's fused
    score, and per channel each id's 1-based rank there (0 where it is absent).
    """
    lists = {name: np.asarray(ids, dtype=np.int64) for name, ids in channels.items()}
    pool = np.unique(np.concatenate(list(lists.values()))) if lists else np.zeros(0, dtype=np.int64)
    fused = np.zeros(len(pool), dtype=np.float64)
    rank_of: dict[str, np.ndarray] = {}
    for name, ids in lists.items():
        positions = np.searchsorted(pool, ids)
        ranks = np.zeros(len(pool), dtype=np.int64)
        ranks[positions] = np.arange(1, len(ids) + 1)
        rank_of[name] = ranks
        weight = weights.get(name, 1.0)
        if weight:
            fused[positions] += weight / (k + np.arange(1, len(ids) + 1))
    return pool, fused, rank_of
