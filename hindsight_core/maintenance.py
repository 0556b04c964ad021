"""Store maintenance: statistics, export and import, archiving, and re-embedding (migration).

These are the operations behind `hindsight stats|export|import|archive|migrate`;
the command line only parses arguments and prints what these return. They work
on the store directly (a `MaintainableStore`), so run them while no agent is
writing to the same store.

Export format (JSON Lines): a header line
`{"format": "hindsight-export", "version": 1, ...}`, then one line per memory:
`{"record": <every MemoryRecord field>, "vector": [...], "archived": {...}}`.
Vectors are exported by default, so an import into a store using the same
embedding model is exact and needs no model; a memory whose model differs from
the importing store's (or that was exported without vectors) is re-embedded
from its text on import and its `embedding_model` updated.

Archive: memories with no activity (creation or recall) for N days move to a
per-user archive collection, out of recall, with their status set to
`archived`; `restore` moves them back with their old status.

Migration: every memory (archive included) is re-embedded with the new model
into staging collections, which double as the checkpoint: an interrupted run
resumes where it stopped. Only when every user is staged are the staging copies
swapped in, user by user, and the user registry updated.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence, TextIO

import numpy as np

from .clock import ensure_utc
from .embedder import Embedder, normalize_rows
from .errors import HindsightError, InvalidInputError
from .store.base import ARCHIVE, MEMORIES, STAGING, STAGING_ARCHIVE, MaintainableStore
from .text import validate_id
from .types import Layer, MemoryRecord, Status
from .validation import check_record

if TYPE_CHECKING:
    from .memory import Hindsight

EXPORT_FORMAT = "hindsight-export"
EXPORT_VERSION = 1
MIGRATION_KEY = "migration"
#: upper edges of the retention histogram's bins; the first bin is "faded" (below the recall threshold)
RETENTION_EDGES = (0.1, 0.3, 0.5, 0.7, 0.9, 1.0)

Progress = Callable[[int], None]


def maintainable(store: object) -> MaintainableStore:
    """The store, if it supports maintenance; a clear error if not."""
    needed = ("load_space", "put_space", "drop_space", "get_meta", "set_meta", "registered_embedding")
    missing = [name for name in needed if not callable(getattr(store, name, None))]
    if missing:
        raise HindsightError(f"{type(store).__name__} does not support maintenance (missing {', '.join(missing)}); "
                             "use an EdgeStore or a ServerStore")
    return store  # type: ignore[return-value]


def _users(store: MaintainableStore, users: Iterable[str] | None) -> list[str]:
    """The users to work on, each with any change a crash left half-applied finished first."""
    chosen = store.users() if users is None else [validate_id(u) for u in users]
    recover = getattr(store, "recover", None)
    if callable(recover):
        for user in chosen:
            recover(user)
    return chosen  # type: ignore[return-value]


def _batches(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _embed(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    vectors = normalize_rows(np.asarray(embedder.embed(list(texts)), dtype=np.float32))
    if vectors.shape != (len(texts), embedder.dimension):
        raise HindsightError(f"embedder {embedder.name} returned shape {vectors.shape}, expected "
                             f"({len(texts)}, {embedder.dimension})")
    return vectors


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
        """(label, count) per retention bin, the first bin being below the recall threshold."""
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
    for user in (_users(store, users) if store is not None else [validate_id(u) for u in users or []]):
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


# -- export and import ------------------------------------------------------------------------------------------
@dataclass
class TransferSummary:
    """What an export or import moved."""

    users: set[str] = field(default_factory=set)
    memories: int = 0
    archived: int = 0
    reembedded: int = 0


def export_jsonl(store: MaintainableStore, out: TextIO, *, users: Iterable[str] | None = None,
                 vectors: bool = True, include_archive: bool = True, now: datetime | None = None) -> TransferSummary:
    """Write every memory of the store (or of `users`) to `out` as JSON Lines; see the module docstring."""
    store = maintainable(store)
    header: dict[str, Any] = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "vectors": vectors}
    if now is not None:
        header["exported_at"] = ensure_utc(now).isoformat()
    out.write(json.dumps(header) + "\n")
    summary = TransferSummary()
    for user in _users(store, users):
        for space in (MEMORIES, ARCHIVE) if include_archive else (MEMORIES,):
            for record, vector, extra in store.load_space(user, space):
                line: dict[str, Any] = {"record": record.to_payload()}
                if vectors:
                    line["vector"] = vector.tolist()  # float32 -> float64 -> float32 is exact
                if space == ARCHIVE:
                    line["archived"] = extra.get("archived") or {}
                    summary.archived += 1
                else:
                    summary.memories += 1
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
                summary.users.add(user)
    return summary


def _read_export(lines: Iterable[str]) -> Iterator[tuple[int, MemoryRecord, list[float] | None, dict | None]]:
    header_seen = False
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"line {number} is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise InvalidInputError(f"line {number} is not a JSON object")
        if not header_seen:
            if data.get("format") != EXPORT_FORMAT:
                raise InvalidInputError(f"line {number}: not a hindsight export (no {EXPORT_FORMAT!r} header line)")
            if not isinstance(data.get("version"), int) or data["version"] > EXPORT_VERSION:
                raise InvalidInputError(f"export version {data.get('version')!r} is newer than this hindsight "
                                        f"understands ({EXPORT_VERSION}); upgrade hindsight")
            header_seen = True
            continue
        try:
            record = check_record(data["record"])
            ensure_utc(record.timestamp)
            if record.last_accessed is not None:
                ensure_utc(record.last_accessed)
            validate_id(record.user_id)
            uuid.UUID(str(record.id))  # the store keys memories by UUID
            if not isinstance(record.raw_content, str) or not record.raw_content.strip():
                raise InvalidInputError("raw_content must be non-empty text")
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"line {number}: not a valid memory record ({exc})") from None
        vector = data.get("vector")
        if vector is not None and not (isinstance(vector, list) and all(isinstance(x, (int, float)) for x in vector)):
            raise InvalidInputError(f"line {number}: vector must be a list of numbers")
        archived = data.get("archived")
        yield number, record, vector, archived if isinstance(archived, dict) else None
    if not header_seen:
        raise InvalidInputError("the file is empty: not a hindsight export")


def import_jsonl(store: MaintainableStore, embedder: Embedder, lines: Iterable[str], *,
                 batch_size: int = 256) -> TransferSummary:
    """Load an export into the store; see the module docstring for when vectors are reused.

    Memories keep their ids, so importing the same file twice stores each memory once.
    A user who already has memories embedded with another model gets `EmbedderMismatchError`.
    """
    store = maintainable(store)
    summary = TransferSummary()
    pending: dict[tuple[str, str], list[tuple[MemoryRecord, list[float] | None, dict | None]]] = {}

    def flush(user: str, space: str) -> None:
        items = pending.pop((user, space), [])
        if not items:
            return
        store.open_user(user, embedding_model=embedder.name, dimension=embedder.dimension, create=True)
        store.ensure_space(user, MEMORIES, embedder.dimension)
        records, vectors = [], np.zeros((len(items), embedder.dimension), dtype=np.float32)
        stale = []
        for i, (record, vector, _) in enumerate(items):
            if vector is not None and record.embedding_model == embedder.name and len(vector) == embedder.dimension:
                vectors[i] = vector
            else:
                record = record.evolve(embedding_model=embedder.name)
                stale.append(i)
            records.append(record)
        if stale:
            vectors[stale] = _embed(embedder, [records[i].raw_content for i in stale])
            summary.reembedded += len(stale)
        if space == MEMORIES:
            store.commit(user, upserts=list(zip(records, vectors)))
            summary.memories += len(records)
        else:
            store.put_space(user, ARCHIVE, records, vectors, [{"archived": archived or {}} for _, _, archived in items])
            summary.archived += len(records)
        summary.users.add(user)

    for _, record, vector, archived in _read_export(lines):
        key = (record.user_id, ARCHIVE if archived is not None else MEMORIES)
        pending.setdefault(key, []).append((record, vector, archived))
        if len(pending[key]) >= batch_size:
            flush(*key)
    for key in list(pending):
        flush(*key)
    return summary


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


def archive(store: MaintainableStore, *, now: datetime, older_than_days: float = 90,
            users: Iterable[str] | None = None, dry_run: bool = False) -> ArchiveReport:
    """Move memories with no activity for `older_than_days` days out of recall, into the archive."""
    store = maintainable(store)
    if isinstance(older_than_days, bool) or not isinstance(older_than_days, (int, float)) or older_than_days < 0:
        raise InvalidInputError("older_than_days must be a number of days, 0 or more")
    cutoff = ensure_utc(now) - timedelta(days=older_than_days)
    moved: list[MemoryRecord] = []
    for user in _users(store, users):
        old = [(r, v) for r, v, _ in store.load_space(user, MEMORIES) if last_activity(r) <= cutoff]
        if not old:
            continue
        moved.extend(r for r, _ in old)
        if dry_run:
            continue
        for batch in _batches(old, 256):
            records = [r.evolve(status=Status.ARCHIVED) for r, _ in batch]
            extras = [{"archived": {"at": ensure_utc(now).isoformat(), "status": r.status.value}} for r, _ in batch]
            # copy first, delete after: an interruption leaves a memory in both places, never in neither
            store.put_space(user, ARCHIVE, records, np.stack([v for _, v in batch]), extras)
            store.commit(user, deletes=[r.id for r, _ in batch])
    return ArchiveReport(tuple(moved), dry_run)


def restore(store: MaintainableStore, *, users: Iterable[str] | None = None,
            memory_ids: Iterable[str] | None = None, dry_run: bool = False) -> ArchiveReport:
    """Move archived memories (all, or those in `memory_ids`) back into recall, with their old status."""
    store = maintainable(store)
    wanted = set(memory_ids) if memory_ids is not None else None
    moved: list[MemoryRecord] = []
    for user in _users(store, users):
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


def archived_count(store: MaintainableStore, user_id: str) -> int:
    """How many memories a user's archive holds."""
    store = maintainable(store)
    user = validate_id(user_id)
    return store.count_space(user, ARCHIVE)  # type: ignore[arg-type]


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


def migration_in_progress(store: MaintainableStore) -> dict[str, Any] | None:
    """The migration an earlier run left unfinished ({"model", "dimension", ...}), or None."""
    return maintainable(store).get_meta(MIGRATION_KEY)


def plan_migration(store: MaintainableStore, embedder: Embedder) -> MigrationPlan:
    """Work out what re-embedding the store with `embedder` involves, resuming an interrupted run."""
    store = maintainable(store)
    current = store.get_meta(MIGRATION_KEY)
    if current and (current.get("model") != embedder.name or current.get("dimension") != embedder.dimension):
        raise InvalidInputError(
            f"a migration to {current.get('model')} is in progress; resume it with "
            f"`hindsight migrate --to {current.get('model')}` or abandon it with `hindsight migrate --abort`")
    swapping = tuple((current or {}).get("swapping", ()))
    users = tuple(u for u in _users(store, None)
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


def migrate(store: MaintainableStore, embedder: Embedder, *, plan: MigrationPlan | None = None,
            batch_size: int = 64, progress: Progress | None = None, now: datetime | None = None) -> MigrationReport:
    """Re-embed every memory with `embedder`, resumably; see the module docstring.

    `progress(n)` is called after each batch of n memories is staged. If the run
    is interrupted (an exception, Ctrl-C), calling `migrate` again with the same
    embedder continues from the last staged batch.
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
            for batch in _batches(rows, batch_size):
                records = [r.evolve(embedding_model=embedder.name) for r, _ in batch]
                vectors = _embed(embedder, [r.raw_content for r in records])
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
            for batch in _batches(store.load_space(user, staging), 256):
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


def abort_migration(store: MaintainableStore) -> bool:
    """Abandon an unfinished migration: drop its staging copies. False if there was none.

    Refused while a user is half swapped, since that user's old collections are
    already gone; resume the migration instead.
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


@dataclass
class LegacyReport:
    users: list[str] = field(default_factory=list)
    copied: int = 0
    skipped: int = 0


def migrate_legacy(source: str | Path, store: MaintainableStore, *, progress: Progress | None = None
                   ) -> LegacyReport:
    """Copy a hindsight 0.1 store (qdrant-client local mode) into `store`, resumably.

    Records keep their ids, vectors and every field; what the destination already
    holds is skipped, so an interrupted run continues where it stopped. The
    source folder is only read.
    """
    from .store.legacy import LegacyStore

    store = maintainable(store)
    legacy = LegacyStore(source)
    report = LegacyReport()
    try:
        for entry in legacy.users():
            user, model, dimension = entry["user_id"], entry["embedding_model"], int(entry["dimension"])
            store.open_user(user, embedding_model=model, dimension=dimension, create=True)
            report.users.append(user)
            for space in (MEMORIES, ARCHIVE):
                held = store.ids_in_space(user, space)
                for batch in _batches((row for row in legacy.load(user, space) if row[0].id not in held), 256):
                    records = [r for r, _, _ in batch]
                    vectors = np.stack([v for _, v, _ in batch])
                    if space == MEMORIES:
                        store.commit(user, upserts=list(zip(records, vectors)))
                    else:
                        store.put_space(user, ARCHIVE, records, vectors, [x for _, _, x in batch])
                    report.copied += len(batch)
                    if progress is not None:
                        progress(len(batch))
                report.skipped += len(held)
    finally:
        legacy.close()
    return report
