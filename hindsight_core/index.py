"""The in-process index of one user's memories: what makes recall fast.

Qdrant keeps the memories durable; this index keeps, for the user being served,
the unit vectors in one numpy matrix, an incremental BM25 index, and the few
fields recall filters and decays on, as arrays. A recall is then one matrix-
vector product, one BM25 pass over the query's postings and a handful of
vectorised masks, whatever the store (Qdrant's embedded mode would evaluate
payload filters point by point in Python).

Slots freed by forgetting are reused, so the arrays never need compaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable
from datetime import datetime

import numpy as np

from .bm25 import BM25Index
from .config import DecayConfig
from .text import keyword_tokens
from .types import Layer, MemoryRecord, Status

_LAYERS = {layer: i for i, layer in enumerate(Layer)}
_STATUSES = {status: i for i, status in enumerate(Status)}


def _epoch_days(moment: datetime) -> float:
    return moment.timestamp() / 86400.0


def keyword_text(record: MemoryRecord) -> str:
    """What the keyword channel indexes: the text plus its entities."""
    return record.raw_content + " " + " ".join(record.entities)


@dataclass
class Candidates:
    """Per-channel rankings (slots, best first) for one query, restricted to the eligible slots."""

    dense: np.ndarray
    keyword: np.ndarray
    similarity: np.ndarray
    keyword_scores: np.ndarray
    retention: np.ndarray


class UserIndex:
    def __init__(self, dimension: int, consolidated_weight: float = 1.0) -> None:
        self.dimension = dimension
        self.consolidated_weight = consolidated_weight
        self.records: list[MemoryRecord | None] = []
        self.slot_of: dict[str, int] = {}
        self._free: list[int] = []
        self.bm25 = BM25Index()
        cap = 64
        self.vectors = np.zeros((cap, dimension), dtype=np.float32)
        self.alive = np.zeros(cap, dtype=bool)
        self.timestamp = np.zeros(cap, dtype=np.float64)  # epoch days
        self.reinforced = np.zeros(cap, dtype=np.float64)  # epoch days of last reinforcement
        self.confidence = np.zeros(cap, dtype=np.float32)
        self.rate = np.zeros(cap, dtype=np.float32)
        self.spaced = np.zeros(cap, dtype=np.float32)
        self.layer = np.zeros(cap, dtype=np.int8)
        self.status = np.zeros(cap, dtype=np.int8)
        self.active = np.zeros(cap, dtype=bool)  # alive and status active: the base recall mask
        self.weight = np.zeros(cap, dtype=np.float32)  # recall weight: lower for consolidated episodes

    def __len__(self) -> int:
        return len(self.slot_of)

    @property
    def size(self) -> int:
        return len(self.records)

    def _grow(self, needed: int) -> None:
        cap = len(self.alive)
        if needed <= cap:
            return
        new_cap = max(needed, cap * 2)
        for name in ("vectors", "alive", "timestamp", "reinforced", "confidence", "rate", "spaced", "layer", "status",
                     "active", "weight"):
            old = getattr(self, name)
            grown = np.zeros((new_cap,) + old.shape[1:], dtype=old.dtype)
            grown[:cap] = old
            setattr(self, name, grown)

    def add(self, record: MemoryRecord, vector: np.ndarray) -> None:
        if record.id in self.slot_of:
            slot = self.slot_of[record.id]
        elif self._free:
            slot = self._free.pop()
        else:
            slot = len(self.records)
            self.records.append(None)
            self._grow(slot + 1)
        self.slot_of[record.id] = slot
        self.vectors[slot] = vector
        self.alive[slot] = True
        self.bm25.add(slot, keyword_tokens(keyword_text(record)))
        self.update(record)

    def update(self, record: MemoryRecord) -> None:
        """Refresh the arrays from a changed record (same id, same text)."""
        slot = self.slot_of[record.id]
        self.records[slot] = record
        self.timestamp[slot] = _epoch_days(record.timestamp)
        self.reinforced[slot] = _epoch_days(record.last_accessed or record.timestamp)
        self.confidence[slot] = record.confidence
        self.rate[slot] = record.decay_rate
        self.spaced[slot] = record.spaced_recalls
        self.layer[slot] = _LAYERS[record.layer]
        self.status[slot] = _STATUSES[record.status]
        self.active[slot] = record.status is Status.ACTIVE
        self.weight[slot] = self.consolidated_weight if record.consolidated_into else 1.0

    def remove(self, memory_id: str) -> MemoryRecord | None:
        slot = self.slot_of.pop(memory_id, None)
        if slot is None:
            return None
        record = self.records[slot]
        self.records[slot] = None
        self.alive[slot] = False
        self.active[slot] = False
        self.vectors[slot] = 0.0
        self.bm25.remove(slot)
        self._free.append(slot)
        return record

    def get(self, memory_id: str) -> MemoryRecord | None:
        slot = self.slot_of.get(memory_id)
        return None if slot is None else self.records[slot]

    def all_records(self) -> list[MemoryRecord]:
        return [r for r in self.records if r is not None]

    def retention(self, now: datetime, decay: DecayConfig) -> np.ndarray:
        """Retention of every slot at `now` (see `hindsight_core.decay` for the formula)."""
        n = self.size
        elapsed = np.maximum(0.0, _epoch_days(now) - self.reinforced[:n])
        rate = self.rate[:n] / (1.0 + decay.reinforcement * self.spaced[:n])
        return (np.exp(-rate * elapsed) * self.confidence[:n]).astype(np.float32)

    def eligible(
        self,
        now: datetime,
        decay: DecayConfig,
        *,
        layers: set[Layer] | None = None,
        event_types: set[str] | None = None,
        start: datetime | None = None,
        end: datetime | None = None,
        session_id: str | None = None,
        agent_id: str | None = None,
        include_faded: bool = False,
        where: Callable[[MemoryRecord], bool] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(mask, retention) for the slots a recall may return."""
        n = self.size
        mask = self.active[:n].copy()
        if layers:
            mask &= np.isin(self.layer[:n], [_LAYERS[layer] for layer in layers])
        if start is not None:
            mask &= self.timestamp[:n] >= _epoch_days(start)
        if end is not None:
            mask &= self.timestamp[:n] < _epoch_days(end)
        if event_types or session_id is not None or agent_id is not None or where is not None:
            for slot in np.flatnonzero(mask):
                record = self.records[slot]
                if (event_types and record.event_type not in event_types) or \
                   (session_id is not None and record.session_id != session_id) or \
                   (agent_id is not None and record.agent_id != agent_id) or \
                   (where is not None and not where(record)):
                    mask[slot] = False
        retention = self.retention(now, decay)
        if not include_faded:
            mask &= retention >= decay.retention_threshold
        return mask, retention

    def rank_channels(self, query_vector: np.ndarray, query_text: str, mask: np.ndarray,
                      retention: np.ndarray, per_channel: int, min_similarity: float = 0.0) -> Candidates:
        n = self.size
        similarity = self.vectors[:n] @ query_vector
        keyword = self.bm25.scores(keyword_tokens(query_text), n)
        hits = np.flatnonzero(keyword)
        return Candidates(
            dense=_top_masked(similarity, mask, per_channel, floor=min_similarity),
            keyword=_top_of(hits[mask[hits]], keyword, per_channel),
            similarity=similarity,
            keyword_scores=keyword,
            retention=retention,
        )

    def by_recency(self, slots: np.ndarray) -> np.ndarray:
        """The given slots, newest first."""
        return slots[np.argsort(-self.timestamp[slots], kind="stable")]


def _top_masked(scores: np.ndarray, mask: np.ndarray, k: int, floor: float) -> np.ndarray:
    """Slots of the k highest masked scores at or above `floor`, best first."""
    masked = np.where(mask, scores, -np.inf)
    if len(masked) > k:
        part = np.argpartition(-masked, k - 1)[:k]
    else:
        part = np.arange(len(masked))
    part = part[masked[part] >= floor]
    return part[np.argsort(-masked[part], kind="stable")]


def _top_of(slots: np.ndarray, scores: np.ndarray, k: int) -> np.ndarray:
    """The k of `slots` with the highest scores, best first."""
    values = scores[slots]
    if len(slots) > k:
        part = np.argpartition(-values, k - 1)[:k]
        slots, values = slots[part], values[part]
    return slots[np.argsort(-values, kind="stable")]
