"""The recall plan: what the engine is asked, and how its answer becomes results.

One query, run inside the engine (Qdrant Edge or a Qdrant server): a dense and a BM25 prefetch over the user's
memories in scope (no similarity floor by default, so a store that holds k memories in scope answers k), weighted
reciprocal-rank fusion of the two (`channel_weights`), and rescoring by `ranking_formula`'s bounded, positive
priors, so the top k comes back already ranked (equal scores: `in_order`). Recall never hides a memory in scope:
decay, consolidation and supersession change where it ranks, not whether it can come back. Then, on the few
results only: explanations (`select`) and knowledge collapsed with its episodes (`final_order`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Sequence

import numpy as np

from ..config import DecayConfig, RecallConfig
from ..language.asked_time import asks_about_past, last_utterance
from ..language.text_cache import per_text
from ..store import points as pts
from ..store.base import Channel, Hit, Scope, SearchRequest, SearchResult
from ..types import Explanation, Layer, MemoryRecord, ScoredMemory
from . import formula as f


@dataclass(frozen=True)
class TimePrior:
    """A soft preference for memories dated near `center` (a gaussian of width `scale_days`)."""

    center_days: float
    scale_days: float
    strength: float = 1.0


def retention_expr(now: datetime, decay: DecayConfig) -> f.Expr:
    """retention = confidence · exp(−λ_eff · elapsed), λ_eff = decay_rate / (1 + β·spaced_recalls),
    elapsed = max(0, now − reinforced_days): `hindsight_core.decay`'s rule over the payload's fields."""
    elapsed = f.maximum(f.const(0.0), f.add(f.const(pts.epoch_days(now)), f.neg(f.var("reinforced_days"))))
    rate = f.div(f.var("decay_rate"), f.add(f.const(1.0), f.mul(f.const(decay.reinforcement), f.var("spaced_recalls"))))
    return f.mul(f.var("confidence"), f.exp(f.neg(f.mul(rate, elapsed))))


def weight_terms(recall: RecallConfig, episode_weight: float) -> tuple[f.Expr, f.Expr]:
    """(1 − (1 − e)·is_consolidated, 1 − (1 − σ)·is_superseded): the recall weight's two factors, each in (0, 1]."""
    return (f.add(f.const(1.0), f.mul(f.const(-(1.0 - episode_weight)), f.var("is_consolidated"))),
            f.add(f.const(1.0), f.mul(f.const(-(1.0 - recall.superseded_weight)), f.var("is_superseded"))))


def prior_terms(now: datetime, decay: DecayConfig, recall: RecallConfig, episode_weight: float,
                priors: Sequence[TimePrior] = ()) -> list[f.Expr]:
    """The factors the fused score is multiplied by (see `ranking_formula`), in the order the engine multiplies."""
    rho = recall.retention_influence
    terms = [*weight_terms(recall, episode_weight),
             f.add(f.const(1.0 - rho), f.mul(f.const(rho), retention_expr(now, decay)))]
    if priors and recall.time_prior_weight > 0:
        terms.append(time_factor(priors, recall.time_prior_weight))
    return terms


def ranking_formula(now: datetime, decay: DecayConfig, recall: RecallConfig, episode_weight: float,
                    priors: Sequence[TimePrior] = ()) -> f.Expr:
    """final = fused · weight · (1 − ρ + ρ·retention) · time, computed by the engine per point.

        elapsed   = max(0, now − reinforced_days)                 (days)
        λ_eff     = decay_rate / (1 + β · spaced_recalls)
        retention = confidence · exp(−λ_eff · elapsed)
        weight    = (1 − (1 − e)·is_consolidated) · (1 − (1 − σ)·is_superseded)
        time      = 1 + τ · Σ_h s_h · exp(−½ · ((ts_days − c_h) / w_h)²)

    with ρ = `recall.retention_influence`, β = `decay.reinforcement`, e = `episode_weight`, σ =
    `recall.superseded_weight`, τ = `recall.time_prior_weight` and one term per time prior h (centre c_h, width w_h,
    strength s_h). Every factor is positive (checked by the config): a prior moves a memory down, never out. These trees
    are the only statement of the rule: the engines run them compiled (`compile_formula`, after `formula.simplify`), and
    explanations evaluate them in numpy (`select`).
    """
    return f.simplify(f.mul(f.var(f.SCORE), *prior_terms(now, decay, recall, episode_weight, priors)))


def time_factor(priors: Sequence[TimePrior], weight: float) -> f.Expr:
    """1 + τ · Σ_h s_h · exp(−½ · ((ts_days − c_h) / w_h)²): at least 1."""
    bumps = []
    for prior in priors:
        z = f.div(f.add(f.var("ts_days"), f.const(-prior.center_days)), f.const(max(prior.scale_days, 1e-3)))
        bumps.append(f.mul(f.const(weight * prior.strength), f.exp(f.mul(f.const(-0.5), z, z))))
    return f.add(f.const(1.0), *bumps)


def has_cjk(text: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" for ch in text)


def channel_weights(query: str, recall: RecallConfig, multilingual_dense: bool,
                    foreign_keywords: bool = False) -> tuple[float, float]:
    """(dense, keyword) fusion weights: a channel that cannot read across the languages involved is turned down.

    An English-only embedder is turned down for CJK queries; the keyword channel is left out when the memories found are
    in the other script than the query (`foreign_keywords`): BM25 finds only names and numbers there.
    """
    dense = recall.dense_weight
    if has_cjk(query) and not multilingual_dense:
        dense *= recall.foreign_dense_factor
    return dense, (0.0 if foreign_keywords else recall.keyword_weight)


@per_text
def mostly_cjk(text: str) -> bool:
    """Whether most of a text's letters are CJK characters (cached: recall after recall reads the same memories)."""
    letters = [ch for ch in text if ch.isalpha()]
    return bool(letters) and sum(has_cjk(ch) for ch in letters) * 2 > len(letters)


def keywords_cross_scripts(query: str, found: SearchResult) -> bool:
    """Whether most memories found are in the other script than the query (a Latin query over CJK memories, or
    the reverse): then the keyword channel cannot match them, and recall is asked again with it turned down."""
    if not found.hits:
        return False
    other = sum(mostly_cjk(hit.record.raw_content) != mostly_cjk(query) for hit in found.hits)
    return other * 2 > len(found.hits)


def build_request(query_vector: np.ndarray, query_text: str, *, recall: RecallConfig, decay: DecayConfig,
                  episode_weight: float, now: datetime, scope: Scope, limit: int, min_similarity: float | None,
                  multilingual_dense: bool, priors: Sequence[TimePrior] = (),
                  foreign_keywords: bool = False) -> SearchRequest:
    """One fused query: a dense and (when the query has keywords) a BM25 prefetch, ranked by the formula."""
    dense_w, keyword_w = channel_weights(query_text, recall, multilingual_dense, foreign_keywords)
    terms = pts.query_terms(query_text)
    depth = recall.candidates_per_channel
    channels = [Channel(pts.DENSE, np.asarray(query_vector, dtype=np.float32).tolist(), depth, min_similarity)]
    weights = [dense_w]
    if terms[0] and keyword_w > 0:
        channels.append(Channel(pts.SPARSE, terms, depth))
        weights.append(keyword_w)
    return SearchRequest(channels=tuple(channels), weights=tuple(weights), rrf_k=recall.rrf_k,
                         formula=ranking_formula(now, decay, recall, episode_weight, priors),
                         limit=limit, scope=scope)


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


def _ranks(values: Sequence[float]) -> list[int | None]:
    """1-based rank of each value among the candidates (highest first); None where the value is 0."""
    order = sorted(range(len(values)), key=lambda i: -values[i])
    ranks: list[int | None] = [None] * len(values)
    for position, i in enumerate(order):
        ranks[i] = position + 1 if values[i] > 0 else None
    return ranks


def in_order(hits: Sequence[Hit]) -> list[Hit]:
    """The engine's hits best first, equal scores the newer memory first (then the later written): the engine
    breaks a tie by point id, which is random, and reciprocal-rank fusion ties often."""
    return sorted(hits, key=lambda h: (-h.score, -h.record.timestamp.timestamp(), -h.seq))


def select(result: SearchResult, request: SearchRequest, query_vector: np.ndarray, query_text: str, *,
           now: datetime, decay: DecayConfig, recall: RecallConfig, episode_weight: float) -> list[ScoredMemory]:
    """The engine's ranked hits as results, each with its explanation; nothing is taken out.

    Channel ranks are among the candidates the engine returned; retention, weight and the prior (`fused` = final /
    prior) come from the expression trees the engine ran (`request.formula`).
    """
    hits = in_order(result.hits)
    query_terms = set(pts.query_terms(query_text)[0])
    qv = np.asarray(query_vector, dtype=np.float32)
    cosines = [float(hit.vector @ qv) if hit.vector is not None else 0.0 for hit in hits]
    coverages = [len(query_terms & hit.terms) / len(query_terms) if query_terms else 0.0 for hit in hits]
    dense_ranks, keyword_ranks = _ranks(cosines), _ranks(coverages)
    # the prior is the formula the engine ran, with the fused score at 1
    values = {**pts.ranking_values([hit.record for hit in hits]), f.SCORE: np.asarray(1.0)}
    n = len(hits)
    retention = np.broadcast_to(f.evaluate(retention_expr(now, decay), values), (n,))
    weight = np.broadcast_to(f.evaluate(f.mul(*weight_terms(recall, episode_weight)), values), (n,))
    prior = np.broadcast_to(f.evaluate(request.formula, values), (n,))
    out: list[ScoredMemory] = []
    for i, hit in enumerate(hits):
        record = hit.record
        faded = ("faded",) if retention[i] < decay.retention_threshold else ()
        explanation = Explanation(
            dense_rank=dense_ranks[i], dense_similarity=cosines[i], keyword_rank=keyword_ranks[i],
            keyword_score=coverages[i], fused=float(hit.score / prior[i]) if prior[i] > 0 else 0.0,
            retention=float(retention[i]), layer=record.layer.value, final=hit.score, weight=float(weight[i]),
            notes=tuple(notes(record)) + faded)
        out.append(ScoredMemory(record, hit.score, float(retention[i]), explanation))
    return out


def cued(result: ScoredMemory, recall: RecallConfig) -> bool:
    """Whether the query cued this result (a shared keyword, or at least `cue_similarity` close by meaning): only
    a cued recall reinforces a memory, not one that merely filled a slot among the results."""
    return result.explanation.keyword_score > 0 or result.explanation.dense_similarity >= recall.cue_similarity


def final_order(results: list[ScoredMemory], k: int) -> list[ScoredMemory]:
    """The top k, knowledge and its episodes collapsed.

    Where a semantic memory and episodes it was drawn from are both among the results, the knowledge stands for them at
    the place of the best of those episodes; otherwise it keeps its own place. It carries the episodes it stands for
    that rank above the last result shown (`ScoredMemory.episodes`, best first), for the block to show under it.
    """
    by_id = {r.memory.id: r for r in results}
    drawn_from_found = {r.memory.consolidated_into for r in results if r.memory.consolidated_into in by_id}
    kept: list[ScoredMemory] = []
    placed: set[str] = set()
    behind: dict[str, list[tuple[int, ScoredMemory]]] = {}
    last_shown = len(results)
    for i, r in enumerate(results):
        if r.memory.id in drawn_from_found and r.memory.layer is Layer.SEMANTIC:
            continue  # placed with the best of its episodes
        knowledge = by_id.get(r.memory.consolidated_into or "")
        chosen = knowledge if knowledge is not None and knowledge.memory.layer is Layer.SEMANTIC else r
        if chosen is not r:
            behind.setdefault(chosen.memory.id, []).append((i, r))
        if chosen.memory.id in placed:
            continue
        placed.add(chosen.memory.id)
        kept.append(chosen)
        if len(kept) == k:
            last_shown = i
    return [_with_episodes(r, behind.get(r.memory.id, []), last_shown) for r in kept[:k]]


def _with_episodes(knowledge: ScoredMemory, episodes: list[tuple[int, ScoredMemory]], last_shown: int) -> ScoredMemory:
    """`knowledge` carrying the episodes it stands for that rank up to `last_shown` (its best one always does)."""
    above = tuple(e for i, e in episodes if i <= last_shown)
    return replace(knowledge, episodes=above) if above else knowledge


def asked(query: str, priors: Sequence[TimePrior]) -> str:
    """What a query asks about in time (`language.asked_time`): "date" when it names one (`priors`), "past" in the
    past tense, else "present"."""
    if priors:
        return "date"
    return "past" if asks_about_past(last_utterance(query)) else "present"


def weights_for(query: str, recall: RecallConfig, priors: Sequence[TimePrior]) -> RecallConfig:
    """`recall` as it weighs this query: a question about the past or a named date (`asked`) wants what was true
    then, so a superseded memory keeps its full weight (σ = 1); one about the present lets it step back for the
    value that replaced it."""
    if recall.supersede_in_present_only and recall.superseded_weight < 1 and asked(query, priors) != "present":
        return replace(recall, superseded_weight=1.0)
    return recall


def time_priors(query: str, now: datetime, told_later_days: float = 31.0) -> list[TimePrior]:
    """Soft date priors from the times a query names ("last June", "上个月"); see `language.timeparse`.

    Only the query's last line, the turn being answered, is read. Each window is stretched `told_later_days` past its
    end (a memory is often written after what it tells) before it becomes a gaussian.
    """
    from ..language.timeparse import gaussian_prior, time_hints

    priors = []
    for hint in time_hints(last_utterance(query), now):
        center, scale = gaussian_prior(hint, told_later_days=told_later_days)
        priors.append(TimePrior(center, scale, float(hint.strength)))
    return priors
