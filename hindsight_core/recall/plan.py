"""The recall plan: what the engine is asked, and how its answer becomes results.

One query, run inside the engine (Qdrant Edge or a Qdrant server):

1. two prefetches over the user's memories in scope: dense (cosine of the
   embeddings, at least `min_similarity`) and keyword (BM25 with IDF), each
   `candidates_per_channel` deep;
2. weighted reciprocal-rank fusion of the two, Σ w_c / (rrf_k + rank_c) with
   ranks counted from 0 as Qdrant does (`rrf_k`, per-language weights:
   a dense channel that cannot read the query's language is turned down);
3. rescoring by `ranking_formula`: retention, recall weight and the time prior
   multiply the fused score, so the top-k comes back already ranked.

Two probes in the same batch return each channel's own top `cue_rank`. Then,
on the few results only (`select`): a memory whose retention has faded below
the threshold is kept only if it is strongly cued, i.e. in a channel's top
`cue_rank` *and* holding at least `cue_coverage` of the query's keywords
or at least `cue_similarity` close to it by meaning (Bjork's retrieval strength: a faded memory needs a strong cue);
a superseded memory never stands above the one that replaced it; standing
knowledge comes before episodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable, Sequence

import numpy as np

from ..config import DecayConfig, RecallConfig
from ..store import points as pts
from ..errors import InvalidInputError
from ..store.base import Channel, Hit, Scope, SearchRequest, SearchResult
from ..text import validate_id
from ..types import Explanation, Layer, MemoryRecord, ScoredMemory
from . import formula as f


@dataclass(frozen=True)
class TimePrior:
    """A soft preference for memories dated near `center` (a gaussian of width `scale_days`)."""

    center_days: float
    scale_days: float
    strength: float = 1.0


def ranking_formula(now: datetime, decay: DecayConfig, recall: RecallConfig, episode_weight: float,
                    priors: Sequence[TimePrior] = ()) -> f.Expr:
    """final = fused · weight · (1 − ρ + ρ·retention) · time, computed by the engine per point.

        elapsed   = max(0, now − reinforced_days)                 (days)
        λ_eff     = decay_rate / (1 + β · spaced_recalls)
        retention = confidence · exp(−λ_eff · elapsed)
        weight    = 1 − (1 − e)·is_consolidated − (1 − σ)·is_superseded
        time      = 1 + τ · Σ_h s_h · exp(−½ · ((ts_days − c_h) / w_h)²)

    with ρ = `recall.retention_influence`, β = `decay.reinforcement`,
    e = `episode_weight` (episodes already consolidated into knowledge),
    σ = `recall.superseded_weight`, τ = `recall.time_prior_weight` and one
    term per time prior h (centre c_h, width w_h, strength s_h).
    """
    elapsed = f.maximum(f.const(0.0), f.add(f.const(pts.epoch_days(now)), f.neg(f.var("reinforced_days"))))
    rate = f.div(f.var("decay_rate"), f.add(f.const(1.0), f.mul(f.const(decay.reinforcement),
                                                                  f.var("spaced_recalls"))))
    retention = f.mul(f.var("confidence"), f.exp(f.neg(f.mul(rate, elapsed))))
    rho = recall.retention_influence
    terms = [f.var(f.SCORE),
             f.add(f.const(1.0), f.mul(f.const(-(1.0 - episode_weight)), f.var("is_consolidated")),
                   f.mul(f.const(-(1.0 - recall.superseded_weight)), f.var("is_superseded"))),
             f.add(f.const(1.0 - rho), f.mul(f.const(rho), retention))]
    if priors and recall.time_prior_weight > 0:
        bumps = []
        for prior in priors:
            z = f.div(f.add(f.var("ts_days"), f.const(-prior.center_days)), f.const(max(prior.scale_days, 1e-3)))
            bumps.append(f.mul(f.const(recall.time_prior_weight * prior.strength),
                               f.exp(f.mul(f.const(-0.5), z, z))))
        terms.append(f.add(f.const(1.0), *bumps))
    return f.mul(*terms)


def has_cjk(text: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" for ch in text)


def channel_weights(query: str, recall: RecallConfig, multilingual_dense: bool) -> tuple[float, float]:
    """(dense, keyword) fusion weights: an English-only embedder is turned down for CJK queries."""
    dense = recall.dense_weight
    if has_cjk(query) and not multilingual_dense:
        dense *= recall.foreign_dense_factor
    return dense, recall.keyword_weight


def build_request(query_vector: np.ndarray, query_text: str, *, recall: RecallConfig, decay: DecayConfig,
                  episode_weight: float, now: datetime, scope: Scope, limit: int, min_similarity: float,
                  multilingual_dense: bool, priors: Sequence[TimePrior] = ()) -> SearchRequest:
    dense_w, keyword_w = channel_weights(query_text, recall, multilingual_dense)
    terms = pts.query_terms(query_text)
    depth = recall.candidates_per_channel
    channels = [Channel(pts.DENSE, np.asarray(query_vector, dtype=np.float32).tolist(), depth, min_similarity)]
    weights = [dense_w]
    probes = [Channel(pts.DENSE, channels[0].vector, recall.cue_rank, min_similarity)]
    if terms[0]:
        channels.append(Channel(pts.SPARSE, terms, depth))
        weights.append(keyword_w)
        probes.append(Channel(pts.SPARSE, terms, recall.cue_rank))
    return SearchRequest(channels=tuple(channels), weights=tuple(weights), rrf_k=recall.rrf_k,
                         formula=ranking_formula(now, decay, recall, episode_weight, priors),
                         limit=limit, scope=scope, probes=tuple(probes))


def retention_now(hit: Hit, now: datetime, decay: DecayConfig) -> float:
    """The record's retention at `now`, the same as the formula's (see `hindsight_core.decay`)."""
    r = hit.record
    elapsed = max(0.0, pts.epoch_days(now) - pts.epoch_days(r.last_accessed or r.timestamp))
    rate = r.decay_rate / (1.0 + decay.reinforcement * r.spaced_recalls)
    return float(r.confidence * np.exp(-rate * elapsed))


def notes(record: MemoryRecord) -> tuple[str, ...]:
    """Why a result's standing differs from its scores alone, for explanations."""
    out = []
    if record.layer is Layer.SEMANTIC:
        out.append(f"knowledge from {len(record.derived_from)} episodes")
    if record.consolidated_into:
        out.append(f"consolidated into {record.consolidated_into}")
    if record.superseded_by:
        out.append(f"superseded by {record.superseded_by}")
    if record.confirmations > 1:
        out.append(f"said {record.confirmations} times")
    return tuple(out)


def select(result: SearchResult, request: SearchRequest, query_vector: np.ndarray, query_text: str, *,
           now: datetime, decay: DecayConfig, recall: RecallConfig, episode_weight: float, k: int,
           include_faded: bool) -> list[ScoredMemory]:
    """The engine's ranked hits as results: cue check on faded memories, explanations, final order."""
    dense_probe = result.probes[0] if result.probes else []
    keyword_probe = result.probes[1] if len(result.probes) > 1 else []
    dense_rank = {m: i + 1 for i, m in enumerate(dense_probe)}
    keyword_rank = {m: i + 1 for i, m in enumerate(keyword_probe)}
    query_terms = set(pts.query_terms(query_text)[0])
    qv = np.asarray(query_vector, dtype=np.float32)
    out: list[ScoredMemory] = []
    for hit in result.hits:
        record = hit.record
        retention = retention_now(hit, now, decay)
        cosine = float(hit.vector @ qv) if hit.vector is not None else 0.0
        coverage = len(query_terms & hit.terms) / len(query_terms) if query_terms else 0.0
        strongly_cued = (record.id in keyword_rank and coverage >= recall.cue_coverage) or \
                        (record.id in dense_rank and cosine >= recall.cue_similarity)
        if retention < decay.retention_threshold and not include_faded and not strongly_cued:
            continue  # faded and only weakly cued: it stays stored, but out of results and prompts
        weight = (1.0 - (1.0 - episode_weight) * (1.0 if record.consolidated_into else 0.0)
                  - (1.0 - recall.superseded_weight) * (1.0 if record.superseded_by else 0.0))
        prior = weight * (1.0 - recall.retention_influence + recall.retention_influence * retention)
        explanation = Explanation(
            dense_rank=dense_rank.get(record.id), dense_similarity=cosine,
            keyword_rank=keyword_rank.get(record.id), keyword_score=coverage, recency_rank=None,
            fused=hit.score / prior if prior > 0 else 0.0, retention=retention, layer=record.layer.value,
            final=hit.score, weight=weight, notes=tuple(notes(record)) + (("strongly cued",) if retention <
                                                                          decay.retention_threshold else ()))
        out.append(ScoredMemory(record, hit.score, retention, explanation))
    return out


def cued(result: ScoredMemory, recall: RecallConfig) -> bool:
    """Whether the query cued this result (a shared keyword, or at least `cue_similarity` close by meaning).

    Only a cued recall reinforces a memory: retrieval to a cue strengthens it, a
    memory that merely filled a slot among the results is not strengthened.
    """
    return result.explanation.keyword_score > 0 or result.explanation.dense_similarity >= recall.cue_similarity


def final_order(results: list[ScoredMemory], k: int) -> list[ScoredMemory]:
    """The top k, a replacement always above what it superseded, standing knowledge first."""
    top = results[:k]
    position = {r.memory.id: i for i, r in enumerate(top)}
    for i, r in enumerate(list(top)):
        newer = r.memory.superseded_by
        if newer in position and position[newer] > position[r.memory.id]:
            j = position[newer]
            top[i], top[j] = top[j], top[i]
            position = {x.memory.id: n for n, x in enumerate(top)}
    return sorted(top, key=lambda r: not (r.memory.layer is Layer.SEMANTIC and not r.memory.superseded_by))


def time_priors(query: str, now: datetime, told_later_days: float = 31.0) -> list[TimePrior]:
    """Soft date priors from the times a query names ("last June", "上个月"); see `hindsight_core.timeparse`.

    A memory is often written after what it tells happened, so each window is
    stretched `told_later_days` past its end before it becomes a gaussian.
    """
    from ..timeparse import gaussian_prior, time_hints

    priors = []
    for hint in time_hints(query, now):
        center, scale = gaussian_prior(hint, told_later_days=told_later_days)
        priors.append(TimePrior(center, scale, float(hint.strength)))
    return priors


def scope_for(*, layers: Iterable[Layer | str] | None, event_types: Iterable[str] | None, session_id: str | None,
           agent_id: str | None, window: Any, max_chars: int) -> Scope:
    """Recall's filters as a `Scope`, each checked (a bare string is not a list of layers)."""
    try:
        if layers is not None and isinstance(layers, (str, bytes)):
            raise ValueError("layers must be a list, e.g. ['semantic']")
        layer_set = frozenset(Layer(x) for x in layers) if layers is not None else None
    except ValueError as exc:
        raise InvalidInputError(f"{exc}; layers are {[x.value for x in Layer]}") from None
    if event_types is not None:
        if isinstance(event_types, (str, bytes)) or not all(isinstance(t, str) for t in event_types):
            raise InvalidInputError("event_types must be a list of strings, e.g. ['preference']")
        event_types = frozenset(event_types)
    return Scope(layers=layer_set, event_types=event_types,
                 session_id=validate_id(session_id, what="session_id", max_chars=max_chars, required=False),
                 agent_id=validate_id(agent_id, what="agent_id", max_chars=max_chars, required=False),
                 start=window.start if window else None, end=window.end if window else None)
