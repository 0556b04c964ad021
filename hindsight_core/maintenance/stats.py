"""Store statistics: counts by user, layer and status, and the retention histogram (`hindsight stats`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

from ..clock import ensure_utc
from ..write.validation import check_users
from ..store.base import ARCHIVE
from ..types import Layer, Status

if TYPE_CHECKING:
    from ..memory import Hindsight

from .common import RETENTION_EDGES, _users, maintainable


# -- statistics -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StoreStats:
    """Counts per layer and status, the retention of every memory, and the store's size."""

    users: dict[str, int]
    layers: dict[str, int]
    statuses: dict[str, int]
    archived: int
    #: retention now of every memory in the hot store (for histograms and plots)
    retention: tuple[float, ...]
    threshold: float
    store_bytes: int | None

    @property
    def memories(self) -> int:
        return sum(self.users.values())

    def retention_histogram(self, edges: Sequence[float] = RETENTION_EDGES) -> list[tuple[str, int]]:
        """(label, count) per retention bin, the first bin being below the retention threshold (faded)."""
        values = np.asarray(self.retention, dtype=np.float64)
        bounds = [0.0, *edges]
        out = []
        for i, (low, high) in enumerate(zip(bounds, bounds[1:])):
            last = i == len(bounds) - 2
            inside = (values >= low) & ((values <= high) if last else (values < high))
            out.append((f"{low:.1f}-{high:.1f}", int(inside.sum())))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"memories": self.memories, "users": dict(self.users), "layers": dict(self.layers),
                "statuses": dict(self.statuses), "archived": self.archived, "store_bytes": self.store_bytes,
                "retention_threshold": self.threshold,
                "below_threshold": sum(r < self.threshold for r in self.retention),
                "retention_histogram": dict(self.retention_histogram())}


def stats(memory: Hindsight, *, users: Iterable[str] | None = None, at: datetime | None = None,
          include_store: bool = True) -> StoreStats:
    """Statistics of the whole store, or of some users; retention is computed at `at` (default: now).

    Memories are read through `memory` (so this is safe while it serves requests);
    `include_store=False` leaves out what needs the store itself: the archive count
    and the size on disk.
    """
    moment = ensure_utc(at) if at is not None else memory.now()
    store = maintainable(memory.store) if include_store else None
    per_user: dict[str, int] = {}
    layers: Counter[str] = Counter({layer.value: 0 for layer in Layer if layer is not Layer.WORKING})
    statuses: Counter[str] = Counter({status.value: 0 for status in Status})
    retention: list[float] = []
    archived = 0
    for user in (_users(store, users) if store is not None else check_users(users) or []):
        records = memory.memories(user_id=user)
        per_user[user] = len(records)
        for record in records:
            layers[record.layer.value] += 1
            statuses[record.status.value] += 1
            retention.append(memory.retention_of(record, moment))
        if store is not None:
            archived += store.count_space(user, ARCHIVE)
    statuses[Status.ARCHIVED.value] += archived
    return StoreStats(per_user, dict(layers), dict(statuses), archived, tuple(retention),
                      memory.config.decay.retention_threshold, store.disk_usage() if store is not None else None)


