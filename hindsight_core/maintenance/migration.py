"""Re-embedding with another model, resumably, and moving 0.1 stores (`hindsight migrate`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from ..clock import ensure_utc
from ..embed.embedder import Embedder
from ..errors import HindsightError, InvalidInputError
from ..store.base import ARCHIVE, MEMORIES, STAGING, STAGING_ARCHIVE, MemoryStore

if TYPE_CHECKING:
    pass

from ..embed.checked import embed_passages
from .common import MIGRATION_KEY, Progress, batches, maintainable, recovered_users

# -- migration --------------------------------------------------------------------------------------------------
_PAIRS = ((MEMORIES, STAGING), (ARCHIVE, STAGING_ARCHIVE))


@dataclass(frozen=True)
class MigrationPlan:
    """What a migration to `model` still has to do; `done` memories are already staged (a resumed run)."""

    model: str
    dimension: int
    users: tuple[str, ...]
    #: per (user, source space): ids still to embed
    pending: dict[tuple[str, str], frozenset[str]]
    #: per (user, staging space): staged ids whose source is gone (forgotten since)
    stale: dict[tuple[str, str], frozenset[str]]
    done: int
    resumed: bool
    swapping: tuple[str, ...] = ()

    @property
    def remaining(self) -> int:
        return sum(len(ids) for ids in self.pending.values())

    @property
    def total(self) -> int:
        return self.remaining + self.done


@dataclass(frozen=True)
class MigrationReport:
    model: str
    users: tuple[str, ...]
    embedded: int
    resumed_from: int


def migration_in_progress(store: MemoryStore) -> dict[str, Any] | None:
    """The migration an earlier run left unfinished ({"model", "dimension", ...}), or None."""
    return maintainable(store).get_meta(MIGRATION_KEY)


def plan_migration(store: MemoryStore, embedder: Embedder) -> MigrationPlan:
    """Work out what re-embedding the store with `embedder` involves, resuming an interrupted run."""
    store = maintainable(store)
    current = store.get_meta(MIGRATION_KEY)
    if current and (current.get("model") != embedder.name or current.get("dimension") != embedder.dimension):
        raise InvalidInputError(
            f"a migration to {current.get('model')} is in progress; resume it with "
            f"`hindsight migrate --to {current.get('model')}` or abandon it with `hindsight migrate --abort`")
    swapping = tuple((current or {}).get("swapping", ()))
    users = tuple(u for u in recovered_users(store, None)
                  if store.registered_embedding(u) != (embedder.name, embedder.dimension))
    pending: dict[tuple[str, str], frozenset[str]] = {}
    stale: dict[tuple[str, str], frozenset[str]] = {}
    done = 0
    for user in users:
        for source, staging in _PAIRS:
            staged = store.ids_in_space(user, staging)
            if user in swapping:  # its source is being rebuilt from staging: staging is the truth
                done += len(staged)
                continue
            have = store.ids_in_space(user, source)
            pending[(user, source)] = frozenset(have - staged)
            stale[(user, staging)] = frozenset(staged - have)
            done += len(staged & have)
    return MigrationPlan(embedder.name, embedder.dimension, users, pending, stale, done,
                         resumed=current is not None, swapping=swapping)


def migrate(store: MemoryStore, embedder: Embedder, *, plan: MigrationPlan | None = None,
            batch_size: int = 64, progress: Progress | None = None, now: datetime | None = None) -> MigrationReport:
    """Re-embed every memory with `embedder`, resumably; see the module docstring.

    `progress(n)` is called after each batch of n memories is staged; after an interruption, calling `migrate`
    again with the same embedder continues from the last staged batch.
    """
    store = maintainable(store)
    if batch_size < 1:
        raise InvalidInputError("batch_size must be at least 1")
    plan = plan or plan_migration(store, embedder)
    state = store.get_meta(MIGRATION_KEY) or {"model": embedder.name, "dimension": embedder.dimension,
                                                 "started_at": ensure_utc(now).isoformat() if now else None,
                                                 "swapping": []}
    store.set_meta(MIGRATION_KEY, state)
    embedded = 0
    # 1. stage: embed what is not staged yet, batch by batch (each batch is a checkpoint)
    for user in plan.users:
        for source, staging in _PAIRS:
            store.delete_from_space(user, staging, sorted(plan.stale.get((user, staging), ())))
            todo = plan.pending.get((user, source), frozenset())
            if not todo:
                continue
            rows = ((r, x) for r, _, x in store.load_space(user, source) if r.id in todo)
            for batch in batches(rows, batch_size):
                records = [r.evolve(embedding_model=embedder.name) for r, _ in batch]
                vectors = embed_passages(embedder, [r.raw_content for r in records])
                store.put_space(user, staging, records, vectors, [x for _, x in batch])
                embedded += len(batch)
                if progress is not None:
                    progress(len(batch))
    # a memory the store could not read was not staged: swapping now would drop it unseen
    for user in plan.users:
        for source, staging in _PAIRS:
            unread = store.ids_in_space(user, source) - store.ids_in_space(user, staging)
            if unread and user not in plan.swapping:
                raise HindsightError(
                    f"{len(unread)} memories of user {user!r} cannot be read (ids {sorted(unread)[:5]}), so they "
                    "were not re-embedded; forget or fix them, then run `hindsight migrate` again (it resumes)")
    # 2. swap, user by user: staging replaces the old collections, then the registry says so
    for user in plan.users:
        state["swapping"] = sorted(set(state.get("swapping", [])) | {user})
        store.set_meta(MIGRATION_KEY, state)
        for target, staging in _PAIRS:
            store.drop_space(user, target)
            if target == MEMORIES:
                store.ensure_space(user, MEMORIES, embedder.dimension)
            for batch in batches(store.load_space(user, staging), 256):
                store.put_space(user, target, [r for r, _, _ in batch], np.stack([v for _, v, _ in batch]),
                                [x for _, _, x in batch])
        store.set_registered_embedding(user, embedder.name, embedder.dimension)
        for _, staging in _PAIRS:
            store.drop_space(user, staging)
        state["swapping"] = sorted(set(state["swapping"]) - {user})
        store.set_meta(MIGRATION_KEY, state)
    for user in store.users():  # leftovers of a run that stopped between a user's swap and its clean-up
        for _, staging in _PAIRS:
            store.drop_space(user, staging)
    store.set_meta(MIGRATION_KEY, None)
    return MigrationReport(embedder.name, plan.users, embedded, plan.done)


def abort_migration(store: MemoryStore) -> bool:
    """Abandon an unfinished migration: drop its staging copies. False if there was none.

    Refused while a user is half swapped (resume the migration instead).
    """
    store = maintainable(store)
    current = store.get_meta(MIGRATION_KEY)
    if current is None:
        return False
    if current.get("swapping"):
        raise InvalidInputError(f"the migration to {current.get('model')} is swapping users "
                                f"{current['swapping']} in; it cannot be abandoned now, resume it with "
                                f"`hindsight migrate --to {current.get('model')}`")
    for user in store.users():
        for _, staging in _PAIRS:
            store.drop_space(user, staging)
    store.set_meta(MIGRATION_KEY, None)
    return True
