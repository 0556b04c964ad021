"""Rank fusion, as pure functions.

Weighted reciprocal-rank fusion (Cormack et al., 2009):

    fused(d) = Σ_c  w_c / (k + rank_c(d))

over the channels c in which d was ranked (ranks are 1-based; a channel that
did not rank d adds nothing). RRF needs no score calibration between channels,
which is why it is the default for mixing cosine similarities with BM25 scores.
"""

from __future__ import annotations

from typing import Hashable, Mapping, Sequence, TypeVar

K = TypeVar("K", bound=Hashable)


def ranks(ordered: Sequence[K]) -> dict[K, int]:
    """1-based rank of each item in an ordered sequence (first occurrence wins)."""
    out: dict[K, int] = {}
    for position, item in enumerate(ordered, 1):
        out.setdefault(item, position)
    return out


def reciprocal_rank_fusion(
    channels: Mapping[str, Sequence[K]], weights: Mapping[str, float], k: int = 60
) -> dict[K, float]:
    """Fused score per item; `channels` maps a channel name to its items, best first."""
    fused: dict[K, float] = {}
    for name, ordered in channels.items():
        weight = weights.get(name, 1.0)
        if weight == 0:
            continue
        for item, rank in ranks(ordered).items():
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
    return fused
