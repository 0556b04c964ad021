"""Archive memories inactive for N days out of recall, and restore them (`hindsight archive`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Iterable

import numpy as np

from ..clock import ensure_utc
from ..errors import InvalidInputError
from ..language.text import validate_id
from ..store.base import ARCHIVE, MEMORIES, MemoryStore
from ..types import MemoryRecord, Status

if TYPE_CHECKING:
    pass

from .common import batches, maintainable, recovered_users


# -- archive ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ArchiveReport:
    """Memories moved to (or, for a restore, from) the archive; with dry_run, what would move."""

    moved: tuple[MemoryRecord, ...]
    dry_run: bool
    missing: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        return len(self.moved)


def last_activity(record: MemoryRecord) -> datetime:
    """When a memory was last created or recalled: what archiving ages by."""
    return max(record.timestamp, record.last_accessed or record.timestamp)


def archive(store: MemoryStore, *, now: datetime, older_than_days: float = 90,
            users: Iterable[str] | None = None, dry_run: bool = False) -> ArchiveReport:
    """Move memories with no activity for `older_than_days` days out of recall, into the archive."""
    store = maintainable(store)
    if isinstance(older_than_days, bool) or not isinstance(older_than_days, (int, float)) or \
            not math.isfinite(older_than_days) or older_than_days < 0:
        raise InvalidInputError(f"older_than_days must be a finite number of days, 0 or more, got {older_than_days!r}")
    try:
        cutoff = ensure_utc(now) - timedelta(days=older_than_days)
    except OverflowError:
        raise InvalidInputError(f"older_than_days={older_than_days!r} reaches before year 1; use a number of days "
                                "that fits the calendar (e.g. 36500 for a century)") from None
    moved: list[MemoryRecord] = []
    for user in recovered_users(store, users):
        old = [(r, v) for r, v, _ in store.load_space(user, MEMORIES) if last_activity(r) <= cutoff]
        if not old:
            continue
        moved.extend(r for r, _ in old)
        if dry_run:
            continue
        for batch in batches(old, 256):
            records = [r.evolve(status=Status.ARCHIVED) for r, _ in batch]
            extras = [{"archived": {"at": ensure_utc(now).isoformat(), "status": r.status.value}} for r, _ in batch]
            # copy first, delete after: an interruption leaves a memory in both places, never in neither
            store.put_space(user, ARCHIVE, records, np.stack([v for _, v in batch]), extras)
            store.commit(user, deletes=[r.id for r, _ in batch])
    return ArchiveReport(tuple(moved), dry_run)


def restore(store: MemoryStore, *, users: Iterable[str] | None = None,
            memory_ids: Iterable[str] | None = None, dry_run: bool = False) -> ArchiveReport:
    """Move archived memories (all, or those in `memory_ids`) back into recall, with their old status."""
    store = maintainable(store)
    wanted = set(memory_ids) if memory_ids is not None else None
    moved: list[MemoryRecord] = []
    for user in recovered_users(store, users):
        found = [(r, v, x) for r, v, x in store.load_space(user, ARCHIVE) if wanted is None or r.id in wanted]
        if not found:
            continue
        back = []
        for record, _, extra in found:
            try:
                status = Status((extra.get("archived") or {}).get("status", Status.ACTIVE.value))
            except ValueError:
                status = Status.ACTIVE
            back.append(record.evolve(status=Status.ACTIVE if status is Status.ARCHIVED else status))
        moved.extend(back)
        if dry_run:
            continue
        vectors = np.stack([v for _, v, _ in found])
        registered = store.registered_embedding(user)
        model, dimension = registered or (back[0].embedding_model, int(vectors.shape[1]))
        store.open_user(user, embedding_model=model, dimension=dimension, create=True)
        store.ensure_space(user, MEMORIES, dimension)
        for start in range(0, len(back), 256):
            store.commit(user, upserts=list(zip(back[start:start + 256], vectors[start:start + 256])))
            store.delete_from_space(user, ARCHIVE, [r.id for r in back[start:start + 256]])
    missing = tuple(sorted(wanted - {r.id for r in moved})) if wanted is not None else ()
    return ArchiveReport(tuple(moved), dry_run, missing)


def archived_count(store: MemoryStore, user_id: str) -> int:
    """How many memories a user's archive holds."""
    store = maintainable(store)
    user = validate_id(user_id)
    return store.count_space(user, ARCHIVE)


