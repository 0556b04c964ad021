"""The embedded store: Qdrant Edge shards on disk, one per user and space (files: `edge_files`).

One shard per user keeps users apart by construction (no filter can leak) and
makes forgetting a user a directory removal. Open shards are kept in an LRU
(`max_open`), so serving many users does not hold every shard open.
The vector index (HNSW) of a user's shard is built in a child process once
`auto_index` of its points are unindexed (`indexing`): Edge's `optimize()`
holds the GIL for the whole build, so it never runs in the caller's process.
Durability: Edge writes every update to its write-ahead log before the call
returns, so an acknowledged write survives a killed process; `sync="full"`
also flushes segments after every change (against power loss, slower).

This module is the hot path (`LiveStore`); listing, spaces and upkeep are in
`edge_upkeep` (`MaintenanceStore`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import shutil
import tempfile
import threading
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import HindsightError, StoreInUseError, StoreUnavailableError
from ..types import MemoryRecord
from . import points as pts
from .edge_changes import apply_change, set_fields, upsert_points
from .edge_files import (
    TEMPORARY_PREFIX,
    LegacyStoreError,
    ensure_indexes,
    from_journal,
    is_legacy_store,
    journaled,
    open_root,
    remove_abandoned_temporaries,
    shard_config,
    user_dir_name,
    write_json_atomic,
)
from .edge_query import edge_filter, engine_batch
from .edge_upkeep import EdgeUpkeep
from .fields import is_uuid
from .indexing import IndexBuilder, settle_folder
from .private import make_private, private_folder
from .sealing import KeyStore
from .values import ALL, MEMORIES, Hit, LoadReport, Scope, SearchRequest, SearchResult, open_registered

__all__ = ["EdgeStore", "LegacyStoreError", "apply_change", "is_legacy_store", "user_dir_name"]


class EdgeStore(EdgeUpkeep):
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
        if self._temporary:  # a folder of its own, 0700, its keys in memory (see `_keystore`)
            remove_abandoned_temporaries(Path(tempfile.gettempdir()))
        root = Path(tempfile.mkdtemp(prefix=TEMPORARY_PREFIX)) if self._temporary else Path(path)
        self.description = ":memory:" if self._temporary else str(root)
        self.root = root
        self.sync, self.max_open, self.seal = sync, max_open, seal
        self._lock_file = open_root(root)
        self._lock = threading.RLock()
        self._shards: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._touched: set[str] = set()  # users whose shards this process opened: set owner-only at close
        self._keys: dict[tuple[str, str], KeyStore] = {}
        self._users: dict[str, dict[str, Any]] = {}
        self._reports: dict[str, LoadReport] = {}
        self._closed = False
        # a user's vector index is built in a child process once this many of its points are unindexed (None: never)
        self._indexer = IndexBuilder(auto_index, self._lock, self._close_shard) if auto_index else None

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
                ensure_indexes(shard)
            elif dimension is not None:
                shard = EdgeShard.create(str(folder), shard_config(dimension))
                ensure_indexes(shard)
                make_private(folder)  # the engine's files follow the umask
            else:
                return None
        except HindsightError:
            raise
        except Exception as exc:
            if "WouldBlock" in str(exc) or "lock" in str(exc).lower():
                raise StoreInUseError(f"a shard of this store is open in another process ({exc})") from exc
            raise StoreUnavailableError(f"cannot open the shard at {folder}: {exc}") from exc
        self._shards[key] = shard
        self._touched.add(user_id)
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

    def _keystore(self, user_id: str, space: str = MEMORIES) -> KeyStore:
        """The keys of one space (an archived copy has its own key: forgetting the original leaves it readable)."""
        keys = self._keys.get((user_id, space))
        if keys is None:
            folder = private_folder(self._user_path(user_id))
            name = "keys.sqlite" if space == MEMORIES else f"keys-{space}.sqlite"
            # a temporary store keeps its keys in memory only: a killed process leaves ciphertext nobody can open
            keys = self._keys[(user_id, space)] = KeyStore(":memory:" if self._temporary else folder / name)
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

            def register() -> None:
                self.set_registered_embedding(user_id, embedding_model, dimension)
                self._shard(user_id, MEMORIES, dimension=dimension)

            return open_registered(self._entry(user_id), embedding_model, dimension, create=create, register=register)

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
        upsert_points(shard, points)

    def _set_fields(self, shard: Any, updates: Sequence[tuple[str, dict[str, Any]]]) -> None:
        set_fields(shard, updates)

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
            journal = private_folder(self._user_path(user_id) / "journal")
            path = journal / f"{uuid.uuid4().hex}.json"
            write_json_atomic(path, journaled(entry))
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
                    entry = from_journal(json.loads(path.read_text(encoding="utf-8")))
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
            ids = [m for m in memory_ids if is_uuid(m)]
            if shard is None or not ids:
                return []
            found = shard.retrieve(ids, with_payload=True, with_vector=[pts.DENSE, pts.SPARSE] if with_vectors else False)
            hits = [self._hit(user_id, p, with_vectors, self._report(user_id)) for p in found]
            order = {m: i for i, m in enumerate(ids)}
            return sorted((h for h in hits if h is not None), key=lambda h: order.get(h.record.id, 0))

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
            return pts.hits_per_query(batch, lambda point: self._hit(user_id, point, True, report))

    def search(self, user_id: str, request: SearchRequest) -> SearchResult:
        with self._lock:
            shard = self._shard(user_id, MEMORIES)
            if shard is None:
                return SearchResult([])
            found = shard.query_batch(engine_batch(request, edge_filter(request.scope, self._id_digest(user_id))))
            report = self._report(user_id)
            hits = [h for h in (self._hit(user_id, p, True, report) for p in found[0]) if h is not None]
            return SearchResult(hits)

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
            if not self._temporary:  # what the engine wrote since (new segments, logs) is set owner-only too
                for user in self._touched:
                    make_private(self._user_path(user))
            self._shards.clear()
            for keys in self._keys.values():
                keys.close()
            self._keys.clear()
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_UN)
                self._lock_file.close()
            if self._temporary:
                shutil.rmtree(self.root, ignore_errors=True)
