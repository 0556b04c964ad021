"""The embedded store: Qdrant Edge shards on disk, one per user and space.

Layout under the store's root:

    LOCK                       held by the one process that has the store open
    meta/<key>.json            store metadata (e.g. a migration in progress)
    users/<sha256(user)[:32]>/
        user.json              the user id, embedding model and dimension
        keys.sqlite            per-memory keys of the sealed text (see `sealing`)
        journal/<id>.json      a multi-step change, written before it is applied
        memories/ archive/ staging/ staging_archive/   one Edge shard each
        memories.indexing/     a copy being indexed in a child process (see `indexing`)
        index.json             how many points the last index build covered

One shard per user keeps users apart by construction (no filter can leak) and
makes forgetting a user a directory removal. Open shards are kept in an LRU
(`max_open`), so serving many users does not hold every shard open.
The vector index (HNSW) of a user's shard is built in a child process once
`auto_index` of its points are unindexed (`indexing`): Edge's `optimize()`
holds the GIL for the whole build, so it never runs in the caller's process.
Durability: Edge writes every update to its write-ahead log before the call
returns, so an acknowledged write survives a killed process; `sync="full"`
also flushes segments after every change (against power loss, slower).
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import threading
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..errors import HindsightError, StoreInUseError, StoreUnavailableError
from ..types import MemoryRecord
from . import points as pts
from .base import ALL, MEMORIES, SPACES, Hit, LoadReport, Scope, SearchRequest, SearchResult, check_registered
from .edge_query import channel_query, compile_formula, edge_filter
from .indexing import IndexBuilder, settle_folder
from .sealing import KeyStore

_FORMAT = 2  # 1 was qdrant-client's local mode (hindsight 0.1)


class LegacyStoreError(HindsightError):
    """The folder holds a store written by hindsight 0.1 (qdrant-client local mode)."""


def user_dir_name(user_id: str) -> str:
    return hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:32]


def _write_json_atomic(path: Path, value: Any) -> None:
    """Write, fsync, rename, fsync the folder: a reader sees the old file or the new one."""
    tmp = path.with_name(path.name + f".{uuid.uuid4().hex}.tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(value, handle, ensure_ascii=False)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _journaled(entry: dict[str, Any]) -> dict[str, Any]:
    """A change as its journal file holds it: dense vectors as base64 float32 (JSON floats cost ~1 ms a vector)."""
    return {**entry, "upserts": [{**p, "dense": base64.b64encode(np.asarray(p["dense"], dtype="<f4").tobytes())
                                  .decode("ascii")} for p in entry["upserts"]]}


def _from_journal(entry: dict[str, Any]) -> dict[str, Any]:
    """The change a journal file holds (vectors written as lists by older versions are read as they are)."""
    return {**entry, "upserts": [{**p, "dense": np.frombuffer(base64.b64decode(p["dense"]), dtype="<f4").tolist()}
                                 if isinstance(p["dense"], str) else p for p in entry.get("upserts", [])]}


def apply_change(shard: Any, kind: str, change: Any) -> None:
    """Apply a change the store applied to a live shard to another shard (a copy being indexed); idempotent."""
    from qdrant_edge import UpdateOperation

    if kind == "entry":
        if change["upserts"]:
            EdgeStore._upsert_points(None, shard, change["upserts"])  # type: ignore[arg-type]
        if change["updates"]:
            EdgeStore._set_fields(None, shard, [(m, f) for m, f in change["updates"]])  # type: ignore[arg-type]
        if change["deletes"]:
            shard.update(UpdateOperation.delete_points(list(change["deletes"])))
    else:
        EdgeStore._set_fields(None, shard, change)  # type: ignore[arg-type]


def is_legacy_store(root: Path) -> bool:
    """Whether `root` holds hindsight 0.1's layout (qdrant-client local mode: collection/ + meta.json)."""
    return (root / "collection").is_dir() and (root / "meta.json").is_file()


class EdgeStore:
    """Memories in Qdrant Edge shards under `path` (or a temporary folder for `location=":memory:"`)."""

    embedded = True

    def __init__(self, path: str | Path | None = None, *, location: str | None = None, max_open: int = 64,
                 sync: str = "normal", seal: bool = True, auto_index: int | None = 10_000) -> None:
        if (path is None) == (location is None):
            raise HindsightError('give exactly one of path= or location=":memory:" to EdgeStore')
        if location is not None and location != ":memory:":
            raise HindsightError(f'location must be ":memory:", not {location!r}; use path= for a folder')
        if sync not in ("normal", "full"):
            raise HindsightError('sync must be "normal" or "full"')
        self._temporary = location == ":memory:"
        root = Path(tempfile.mkdtemp(prefix="hindsight-mem-")) if self._temporary else Path(path)
        self.description = ":memory:" if self._temporary else str(root)
        self.root = root
        self.sync, self.max_open, self.seal = sync, max_open, seal
        self._open_root(root)
        self._lock = threading.RLock()
        self._shards: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._keys: dict[tuple[str, str], KeyStore] = {}
        self._users: dict[str, dict[str, Any]] = {}
        self._reports: dict[str, LoadReport] = {}
        self._closed = False
        # a user's vector index is built in a child process once this many of its points are unindexed (None: never)
        self._indexer = IndexBuilder(auto_index, self._lock, self._close_shard) if auto_index else None

    def _open_root(self, root: Path) -> None:
        if root.exists() and not root.is_dir():
            raise StoreUnavailableError(f"{root} is a file, not a folder; give the folder for the store")
        if is_legacy_store(root):
            raise LegacyStoreError(
                f"{root} holds a store written by hindsight 0.1 (Qdrant local mode). Move it to the new engine "
                f"with `hindsight --store NEW_FOLDER migrate --from-legacy {root}`; nothing has been changed.")
        try:
            (root / "users").mkdir(parents=True, exist_ok=True)
            (root / "meta").mkdir(exist_ok=True)
            self._lock_file = open(root / "LOCK", "a+")
        except OSError as exc:
            raise StoreUnavailableError(f"cannot use {root} for the store ({exc.strerror}); "
                                        "give a folder this process can write") from exc
        try:
            fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock_file.close()
            raise StoreInUseError(
                f"the embedded store at {root} is in use by another process. One process at a time can open an "
                "embedded store; for several processes run a Qdrant server and pass url=...") from None
        format_file = root / "FORMAT"
        if not format_file.exists():
            format_file.write_text(f"{_FORMAT}\n")

    # -- folders and shards -------------------------------------------------------------------
    def _user_path(self, user_id: str) -> Path:
        return self.root / "users" / user_dir_name(user_id)

    def _check_open(self) -> None:
        if self._closed:
            raise StoreUnavailableError("the store is closed")

    def _shard(self, user_id: str, space: str, *, dimension: int | None = None) -> Any:
        """The open shard of one space (created when `dimension` is given); None if it does not exist."""
        from qdrant_edge import EdgeShard

        self._check_open()
        key = (user_id, space)
        shard = self._shards.get(key)
        if shard is not None:
            self._shards.move_to_end(key)
            return shard
        folder = self._user_path(user_id) / space
        if space == MEMORIES and not self._building(user_id):
            settle_folder(folder)  # an index swap a crash interrupted
        try:
            if (folder / "edge_config.json").exists() or (folder / "segments").exists():
                shard = EdgeShard.load(str(folder))
            elif dimension is not None:
                shard = EdgeShard.create(str(folder), self._config(dimension))
                self._create_indexes(shard)
            else:
                return None
        except HindsightError:
            raise
        except Exception as exc:
            if "WouldBlock" in str(exc) or "lock" in str(exc).lower():
                raise StoreInUseError(f"a shard of this store is open in another process ({exc})") from exc
            raise StoreUnavailableError(f"cannot open the shard at {folder}: {exc}") from exc
        self._shards[key] = shard
        while len(self._shards) > self.max_open:
            _, old = self._shards.popitem(last=False)
            with contextlib.suppress(Exception):
                old.flush()
                old.close()
        return shard

    def _building(self, user_id: str) -> bool:
        return self._indexer is not None and self._indexer.building(user_id)

    def _close_shard(self, user_id: str, space: str = MEMORIES) -> None:
        shard = self._shards.pop((user_id, space), None)
        if shard is not None:
            shard.flush()
            shard.close()

    def _cancel_index(self, user_id: str, space: str = MEMORIES) -> None:
        """A change that removes or rebuilds the shard: a build on the old one must not be swapped in."""
        if self._indexer is not None and space == MEMORIES:
            self._indexer.cancel(user_id)

    def wait_for_index(self, timeout: float | None = None) -> bool:
        """Wait until no background index build is running (benchmarks, tests); False on timeout."""
        return self._indexer is None or self._indexer.wait(timeout)

    @staticmethod
    def _config(dimension: int) -> Any:
        from qdrant_edge import (
            Distance,
            EdgeConfig,
            EdgeOptimizersConfig,
            EdgeSparseVectorParams,
            EdgeVectorParams,
            Modifier,
        )

        return EdgeConfig(
            vectors={pts.DENSE: EdgeVectorParams(size=int(dimension), distance=Distance.Cosine)},
            sparse_vectors={pts.SPARSE: EdgeSparseVectorParams(modifier=Modifier.Idf)},
            # vacuum on optimize() as soon as anything was deleted: forgotten vectors leave the segments
            optimizers=EdgeOptimizersConfig(deleted_threshold=0.0001, vacuum_min_vector_number=1),
        )

    @staticmethod
    def _create_indexes(shard: Any) -> None:
        from qdrant_edge import PayloadSchemaType, UpdateOperation

        for name in ("status", "layer", "event_type", "session_id", "agent_id", "meta_keys"):
            shard.update(UpdateOperation.create_field_index(name, PayloadSchemaType.Keyword))
        for name in ("ts_days", "is_consolidated"):
            shard.update(UpdateOperation.create_field_index(name, PayloadSchemaType.Float))

    def _keystore(self, user_id: str, space: str = MEMORIES) -> KeyStore:
        """The keys of one space (an archived copy has its own key: forgetting the original leaves it readable)."""
        keys = self._keys.get((user_id, space))
        if keys is None:
            folder = self._user_path(user_id)
            folder.mkdir(parents=True, exist_ok=True)
            name = "keys.sqlite" if space == MEMORIES else f"keys-{space}.sqlite"
            keys = self._keys[(user_id, space)] = KeyStore(folder / name)
        return keys

    def _after_change(self, shard: Any) -> None:
        if self.sync == "full":
            shard.flush()

    # -- users ----------------------------------------------------------------------------------
    def _entry(self, user_id: str) -> dict[str, Any] | None:
        if user_id in self._users:
            return self._users[user_id]
        path = self._user_path(user_id) / "user.json"
        if not path.exists():
            return None
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise StoreUnavailableError(f"cannot read {path}: {exc}") from exc
        if entry.get("user_id") != user_id:  # a hash collision or tampering: never serve it
            return None
        self._users[user_id] = entry
        return entry

    def open_user(self, user_id: str, *, embedding_model: str, dimension: int, create: bool) -> bool:
        with self._lock:
            self._check_open()
            entry = self._entry(user_id)
            if entry is not None:
                check_registered(entry, embedding_model, dimension)
                return True
            if not create:
                return False
            self.set_registered_embedding(user_id, embedding_model, dimension)
            self._shard(user_id, MEMORIES, dimension=dimension)
            return True

    def users(self) -> list[str]:
        out = []
        for folder in (self.root / "users").iterdir():
            with contextlib.suppress(OSError, ValueError, KeyError):
                out.append(json.loads((folder / "user.json").read_text(encoding="utf-8"))["user_id"])
        return sorted(out)

    def drop_user(self, user_id: str) -> None:
        """Every trace of a user: shards, keys, journal, registry entry (the folder goes)."""
        with self._lock:
            self._cancel_index(user_id)
            for space in SPACES:
                shard = self._shards.pop((user_id, space), None)
                if shard is not None:
                    with contextlib.suppress(Exception):
                        shard.close()
            for space in SPACES:
                keys = self._keys.pop((user_id, space), None)
                if keys is not None:
                    keys.close()
            self._users.pop(user_id, None)
            folder = self._user_path(user_id)
            if folder.exists():
                shutil.rmtree(folder)

    # -- writing ------------------------------------------------------------------------------------
    def _point(self, user_id: str, record: MemoryRecord, vector: np.ndarray, extra: dict | None = None,
               space: str = MEMORIES) -> dict:
        seal = self._keystore(user_id, space).seal if self.seal else None
        indices, values = pts.document_terms(pts.keyword_text(record))
        return {"id": record.id, "dense": np.asarray(vector, dtype=np.float32).tolist(),
                "sparse": [indices, values],
                "payload": pts.to_payload(record, seal=seal, extra=extra, digest=self._id_digest(user_id))}

    def _id_digest(self, user_id: str) -> Callable[[str], str] | None:
        """The keyed digest session and agent ids are filtered by (one per user, every space), when sealing."""
        if not self.seal:
            return None
        return lambda value: self._keystore(user_id, MEMORIES).id_digest(value)  # opened only when a filter needs it

    def _upsert_points(self, shard: Any, points: list[dict]) -> None:
        from qdrant_edge import Point, SparseVector, UpdateOperation

        for start in range(0, len(points), 1024):
            shard.update(UpdateOperation.upsert_points([
                Point(id=p["id"], vector={pts.DENSE: p["dense"], pts.SPARSE: SparseVector(*p["sparse"])},
                      payload=p["payload"]) for p in points[start:start + 1024]]))

    def _set_fields(self, shard: Any, updates: Sequence[tuple[str, dict[str, Any]]]) -> None:
        from qdrant_edge import UpdateOperation

        for memory_id, fields in updates:
            fields = dict(fields)
            if any(name in pts.TEXT_FIELDS or name in pts.ID_FIELDS for name in fields):
                raise HindsightError("text fields change only by writing the record again")
            fields.update(pts.derived_fields(fields))
            shard.update(UpdateOperation.set_payload([memory_id], fields))

    def _delete(self, user_id: str, shard: Any, memory_ids: Sequence[str], space: str = MEMORIES) -> None:
        from qdrant_edge import UpdateOperation

        if memory_ids:
            shard.update(UpdateOperation.delete_points(list(memory_ids)))
            if self.seal:
                self._keystore(user_id, space).destroy(memory_ids)

    def commit(self, user_id: str, *, upserts: Sequence[tuple[MemoryRecord, np.ndarray]] = (),
               updates: Sequence[tuple[str, dict[str, Any]]] = (), deletes: Sequence[str] = (),
               space: str = MEMORIES) -> None:
        """All of the changes or (after a crash, on the next open) all of them.

        The change is written as one journal file (with sealed text only) before it
        is applied, and removed after; `recover` replays a journal a crash left
        behind. Every step is idempotent, so replaying a half-applied change completes it.
        """
        with self._lock:
            dimension = len(upserts[0][1]) if upserts else None
            shard = self._shard(user_id, space, dimension=dimension or self._dimension(user_id))
            if self.seal and upserts:
                self._keystore(user_id, space).prepare(r.id for r, _ in upserts)
            entry = {"space": space, "upserts": [self._point(user_id, r, v, space=space) for r, v in upserts],
                     "updates": [[m, f] for m, f in updates], "deletes": list(deletes)}
            if not entry["updates"] and not entry["deletes"]:
                self._apply(user_id, shard, entry)  # one upsert operation is atomic on its own
                return
            journal = self._user_path(user_id) / "journal"
            journal.mkdir(exist_ok=True)
            path = journal / f"{uuid.uuid4().hex}.json"
            _write_json_atomic(path, _journaled(entry))
            self._apply(user_id, shard, entry)
            path.unlink()

    def _dimension(self, user_id: str) -> int | None:
        entry = self._entry(user_id)
        return int(entry["dimension"]) if entry else None

    def _apply(self, user_id: str, shard: Any, entry: dict[str, Any]) -> None:
        if entry["upserts"]:
            self._upsert_points(shard, entry["upserts"])
        if entry["updates"]:
            self._set_fields(shard, [(m, f) for m, f in entry["updates"]])
        self._delete(user_id, shard, entry["deletes"], entry.get("space", MEMORIES))
        self._after_change(shard)
        if self._indexer is not None and entry.get("space", MEMORIES) == MEMORIES:
            self._indexer.record(user_id, "entry", entry)
            if entry["upserts"]:
                self._indexer.maybe_start(user_id, shard, self._user_path(user_id) / MEMORIES)

    def update_fields(self, user_id: str, updates: Sequence[tuple[str, dict[str, Any]]], *,
                      durable: bool = True) -> None:
        with self._lock:
            shard = self._shard(user_id, MEMORIES)
            if shard is not None and updates:
                self._set_fields(shard, updates)
                if durable:
                    self._after_change(shard)
                if self._indexer is not None:
                    self._indexer.record(user_id, "fields", [(m, dict(f)) for m, f in updates])

    def recover(self, user_id: str) -> int:
        with self._lock:
            journal = self._user_path(user_id) / "journal"
            if not journal.is_dir():
                return 0
            done = 0
            for path in sorted(journal.glob("*.json")):
                try:
                    entry = _from_journal(json.loads(path.read_text(encoding="utf-8")))
                except ValueError:  # a journal torn before its rename never became visible: nothing was applied
                    path.unlink()
                    continue
                shard = self._shard(user_id, entry.get("space", MEMORIES), dimension=self._dimension(user_id))
                self._apply(user_id, shard, entry)
                path.unlink()
                done += 1
            for stale in journal.glob("*.tmp"):
                stale.unlink()
            return done

    # -- reading ------------------------------------------------------------------------------------
    def _hit(self, user_id: str, point: Any, with_vectors: bool, report: LoadReport | None,
             space: str = MEMORIES) -> Hit | None:
        return pts.to_hit(user_id, point, with_vectors=with_vectors, report=report,
                          unseal=self._keystore(user_id, space).unseal if self.seal else None)

    def _report(self, user_id: str) -> LoadReport:
        return self._reports.setdefault(user_id, LoadReport())

    def load_report(self, user_id: str) -> LoadReport:
        return self._report(user_id)

    def get(self, user_id: str, memory_ids: Sequence[str], *, with_vectors: bool = False) -> list[Hit]:
        with self._lock:
            shard = self._shard(user_id, MEMORIES)
            ids = [m for m in memory_ids if _is_uuid(m)]
            if shard is None or not ids:
                return []
            found = shard.retrieve(ids, with_payload=True, with_vector=[pts.DENSE, pts.SPARSE] if with_vectors else False)
            hits = [self._hit(user_id, p, with_vectors, self._report(user_id)) for p in found]
            order = {m: i for i, m in enumerate(ids)}
            return sorted((h for h in hits if h is not None), key=lambda h: order.get(h.record.id, 0))

    def scan(self, user_id: str, scope: Scope = ALL, *, with_vectors: bool = False,
             space: str = MEMORIES) -> Iterator[Hit]:
        for point in self._scroll(user_id, space, scope, with_vectors):
            hit = self._hit(user_id, point, with_vectors, self._report(user_id) if space == MEMORIES else None, space)
            if hit is not None:
                yield hit

    def _scroll(self, user_id: str, space: str, scope: Scope, with_vectors: bool) -> Iterator[Any]:
        from qdrant_edge import ScrollRequest

        offset = None
        while True:
            with self._lock:
                shard = self._shard(user_id, space)
                if shard is None:
                    return
                batch, offset = shard.scroll(ScrollRequest(
                    offset=offset, limit=1024, filter=edge_filter(scope, self._id_digest(user_id)),
                    with_payload=True,
                    with_vector=[pts.DENSE, pts.SPARSE] if with_vectors else False))
            yield from batch
            if offset is None:
                return

    def count(self, user_id: str, scope: Scope = ALL, *, space: str = MEMORIES) -> int:
        from qdrant_edge import CountRequest

        with self._lock:
            shard = self._shard(user_id, space)
            flt = edge_filter(scope, self._id_digest(user_id))
            return 0 if shard is None else int(shard.count(CountRequest(filter=flt, exact=True)))

    def neighbours(self, user_id: str, vectors: np.ndarray, *, limit: int, min_score: float,
                   scope: Scope) -> list[list[Hit]]:
        from qdrant_edge import Query, QueryBatchRequest, QueryRequest

        vectors = np.asarray(vectors, dtype=np.float32)
        with self._lock:
            shard = self._shard(user_id, MEMORIES)
            if shard is None or not len(vectors):
                return [[] for _ in vectors]
            flt = edge_filter(scope, self._id_digest(user_id))
            batch = shard.query_batch(QueryBatchRequest([
                QueryRequest(limit=limit, query=Query.Nearest(v.tolist(), using=pts.DENSE), filter=flt,
                             score_threshold=min_score, with_payload=True, with_vector=[pts.DENSE])
                for v in vectors]))
            report = self._report(user_id)
            return [[h for h in (self._hit(user_id, p, True, report) for p in found) if h is not None]
                    for found in batch]

    def search(self, user_id: str, request: SearchRequest) -> SearchResult:
        from qdrant_edge import Formula, Fusion, Prefetch, QueryBatchRequest, QueryRequest

        with self._lock:
            shard = self._shard(user_id, MEMORIES)
            if shard is None:
                return SearchResult([], [[] for _ in request.probes])
            flt = edge_filter(request.scope, self._id_digest(user_id))
            channels = [Prefetch(limit=c.limit, query=channel_query(c), filter=flt, score_threshold=c.score_threshold)
                        for c in request.channels]
            fused = Prefetch(limit=max(c.limit for c in request.channels), prefetches=channels,
                             query=Fusion.Rrf(k=request.rrf_k, weights=list(request.weights)))
            main = QueryRequest(limit=request.limit, prefetches=[fused], query=Formula(compile_formula(request.formula)),
                                with_payload=True, with_vector=[pts.DENSE, pts.SPARSE])
            probes = [QueryRequest(limit=p.limit, query=channel_query(p), filter=flt, score_threshold=p.score_threshold,
                                   with_payload=False, with_vector=False) for p in request.probes]
            found = shard.query_batch(QueryBatchRequest([main, *probes]))
            report = self._report(user_id)
            hits = [h for h in (self._hit(user_id, p, True, report) for p in found[0]) if h is not None]
            return SearchResult(hits, [[str(p.id) for p in ranked] for ranked in found[1:]])

    # -- upkeep ---------------------------------------------------------------------------------------
    def optimize(self, user_id: str) -> bool:
        """Build the user's HNSW index and vacuum deleted points (blocking; never on the write path)."""
        with self._lock:
            shard = self._shard(user_id, MEMORIES)
            return bool(shard is not None and shard.optimize())

    def compact(self, user_id: str | None = None) -> int:
        """Vacuum one user's shards (every user's with None) so deleted vectors leave the segment files.

        Deleted *text* is unreadable at once (its key is destroyed by the delete
        itself); this also removes the deleted points' vectors from the segments.
        """
        done = 0
        for user in [user_id] if user_id is not None else self.users():
            for space in SPACES:
                with self._lock:
                    shard = self._shard(user, space)
                    if shard is not None:
                        shard.optimize()
                        shard.flush()
                        done += 1
        return done

    def flush(self) -> None:
        with self._lock:
            for shard in self._shards.values():
                shard.flush()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            if self._indexer is not None:
                self._indexer.close()  # a build not swapped in yet is dropped; the next one starts over
            self._closed = True
            for shard in self._shards.values():
                with contextlib.suppress(Exception):
                    shard.flush()
                    shard.close()
            self._shards.clear()
            for keys in self._keys.values():
                keys.close()
            self._keys.clear()
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_UN)
                self._lock_file.close()
            if self._temporary:
                shutil.rmtree(self.root, ignore_errors=True)

    def disk_usage(self) -> int | None:
        # allocated blocks: Edge preallocates its log files sparsely, so their apparent size is not used space
        return sum(p.stat().st_blocks * 512 for p in self.root.rglob("*") if p.is_file())

    # -- maintenance spaces -----------------------------------------------------------------------------
    def registered_embedding(self, user_id: str) -> tuple[str, int] | None:
        entry = self._entry(user_id)
        return (entry["embedding_model"], int(entry["dimension"])) if entry else None

    def set_registered_embedding(self, user_id: str, model: str, dimension: int) -> None:
        with self._lock:
            folder = self._user_path(user_id)
            folder.mkdir(parents=True, exist_ok=True)
            entry = {"user_id": user_id, "embedding_model": model, "dimension": int(dimension), "format": _FORMAT}
            _write_json_atomic(folder / "user.json", entry)
            self._users[user_id] = entry

    def space_exists(self, user_id: str, space: str) -> bool:
        _check_space(space)
        return (self._user_path(user_id) / space / "edge_config.json").exists() or \
            (self._user_path(user_id) / space / "segments").exists()

    def put_space(self, user_id: str, space: str, records: Sequence[MemoryRecord], vectors: np.ndarray,
                  extras: Sequence[dict[str, Any]] | None = None) -> None:
        _check_space(space)
        if not records:
            return
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(records):
            raise HindsightError("put_space needs one vector per record")
        with self._lock:
            self._cancel_index(user_id, space)
            shard = self._shard(user_id, space, dimension=int(vectors.shape[1]))
            if self.seal:
                self._keystore(user_id, space).prepare(r.id for r in records)
            self._upsert_points(shard, [self._point(user_id, r, v, extras[i] if extras else None, space)
                                        for i, (r, v) in enumerate(zip(records, vectors))])
            self._after_change(shard)

    def load_space(self, user_id: str, space: str) -> Iterator[tuple[MemoryRecord, np.ndarray, dict[str, Any]]]:
        _check_space(space)
        unseal = self._keystore(user_id, space).unseal if self.seal else None
        for point in self._scroll(user_id, space, ALL, True):
            payload = point.payload or {}
            if payload.get("user_id") != user_id:
                continue
            try:
                record, extra = pts.from_payload(payload, unseal=unseal)
            except pts.UnreadableRecord as exc:
                self._report(user_id).unreadable.append((str(point.id), str(exc)))
                continue
            yield record, np.asarray(point.vector[pts.DENSE], dtype=np.float32), extra

    def ids_in_space(self, user_id: str, space: str) -> set[str]:
        _check_space(space)
        return {str(p.id) for p in self._scroll(user_id, space, ALL, False)}

    def count_space(self, user_id: str, space: str) -> int:
        _check_space(space)
        return self.count(user_id, ALL, space=space)

    def ensure_space(self, user_id: str, space: str, dimension: int) -> None:
        _check_space(space)
        with self._lock:
            self._shard(user_id, space, dimension=int(dimension))

    def delete_from_space(self, user_id: str, space: str, memory_ids: Sequence[str]) -> None:
        _check_space(space)
        with self._lock:
            self._cancel_index(user_id, space)
            shard = self._shard(user_id, space)
            if shard is not None:
                from qdrant_edge import UpdateOperation

                ids = [m for m in memory_ids if _is_uuid(m)]
                if ids:
                    shard.update(UpdateOperation.delete_points(ids))
                    if self.seal:
                        self._keystore(user_id, space).destroy(ids)
                    self._after_change(shard)

    def drop_space(self, user_id: str, space: str) -> None:
        _check_space(space)
        with self._lock:
            self._cancel_index(user_id, space)
            shard = self._shards.pop((user_id, space), None)
            if shard is not None:
                with contextlib.suppress(Exception):
                    shard.close()
            keys = self._keys.pop((user_id, space), None)
            if keys is not None:
                keys.close()
            folder = self._user_path(user_id) / space
            if folder.exists():
                shutil.rmtree(folder)
            if space != MEMORIES:
                (self._user_path(user_id) / f"keys-{space}.sqlite").unlink(missing_ok=True)
                for suffix in ("-wal", "-shm"):
                    (self._user_path(user_id) / f"keys-{space}.sqlite{suffix}").unlink(missing_ok=True)

    def get_meta(self, key: str) -> dict[str, Any] | None:
        path = self.root / "meta" / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"
        if not path.exists():
            return None
        value = json.loads(path.read_text(encoding="utf-8"))
        return dict(value.get("value") or {}) if value.get("key") == key else None

    def set_meta(self, key: str, value: dict[str, Any] | None) -> None:
        path = self.root / "meta" / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"
        if value is None:
            path.unlink(missing_ok=True)
        else:
            _write_json_atomic(path, {"key": key, "value": value})


def _check_space(space: str) -> None:
    if space not in SPACES:
        raise HindsightError(f"unknown store space {space!r}; spaces are {SPACES}")


def _is_uuid(value: object) -> bool:
    try:
        uuid.UUID(str(value))
        return True
    except ValueError:
        return False
