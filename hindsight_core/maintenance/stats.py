"""Store statistics: counts by user, layer and status, and the retention histogram (`hindsight stats`)."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING, Iterable


from ..clock import ensure_utc
from ..contract.checks import check_users
from ..contract.results import StoreStats
from ..store.base import ARCHIVE
from ..types import Layer, Status

if TYPE_CHECKING:
    from ..memory import Hindsight

from .common import maintainable, recovered_users


def stats(memory: Hindsight, *, users: Iterable[str] | None = None, at: datetime | None = None,
          include_store: bool = True) -> StoreStats:
    """Statistics of the whole store, or of some users; retention is computed at `at` (default: now).

    Memories are read through `memory`, so this is safe while it serves; `include_store=False` leaves out the
    archive count and the size on disk.
    """
    moment = ensure_utc(at) if at is not None else memory.now()
    store = maintainable(memory.store) if include_store else None
    per_user: dict[str, int] = {}
    layers: Counter[str] = Counter({layer.value: 0 for layer in Layer if layer is not Layer.WORKING})
    statuses: Counter[str] = Counter({status.value: 0 for status in Status})
    retention: list[float] = []
    archived = 0
    for user in (recovered_users(store, users) if store is not None else check_users(users) or []):
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


