"""The embedded store: Qdrant Edge shards on disk, a fixed number per space and vector size, every user's points
in them (files: `edge_files`).

Qdrant's multitenancy layout, as the server store's: each point carries its user's tenant (a keyed digest,
`sealing.KeyStore.tenant`) in a tenant-indexed `user_id` payload field, and every request filters on it; the keyword
channel's IDF is the asking user's own (`keywords`). Users are spread over `edge_files.BUCKETS` shards per space by a
hash of the id, so a compaction rewrites a bucket's segments, not the whole store; deletes and field updates go
through the user's filter and upserts are conditional on it (`edge_changes`), so no change reaches another user's
point. Pages the engine reads whole at a load are given back (`mapped`); the vector index is built in a child
process (`indexing`); forgetting a user deletes their points, compacts the shards and deletes their keys (`sealing`).
Durability: Edge writes every update to its write-ahead log before the call returns; `sync="full"` also flushes
segments after every change. A store of an earlier layout is refused, untouched (`edge_files.open_root`).

This module is the hot path (`LiveStore`); listing, spaces and upkeep are in `edge_upkeep` (`MaintenanceStore`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import shutil
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any, Callable, Collection, Sequence

import numpy as np

from ..errors import HindsightError, StoreInUseError, StoreUnavailableError
from ..types import MemoryRecord
from . import points as pts
from .edge_changes import apply_change, delete_points, set_fields, upsert_points
from .edge_files import (KEY_FILE, MAKING, TEMPORARY_PREFIX, bucket_of, ensure_indexes, from_journal, journaled,
                         open_root, remove_abandoned_temporaries, shard_config, shard_dimension, shard_exists,
                         shard_name, user_dir_name, write_json_atomic)
from .edge_query import edge_filter, engine_batch, user_points
from .edge_upkeep import EdgeUpkeep
from .fields import SPARSE, is_uuid
from .indexing import IndexBuilder, settle_folder
from .keywords import KeywordStats, TermCounts, weighted
from .mapped import WRITTEN, page_out
from .private import make_private, private_folder
from .sealing import KeyFile, KeyStore
from .values import (ALL, MEMORIES, USERS_KEPT, Hit, LoadReport, Recent, Scope, SearchRequest, SearchResult,
                     open_registered)

#: changes a shard takes before its log's and payload indexes' written pages are given back (a few MiB a shard)
LOG_CHANGES_KEPT = 2048

__all__ = ["EdgeStore", "apply_change", "user_dir_name"]


class EdgeStore(EdgeUpkeep):
    """Memories in Qdrant Edge shards under `path` (or a temporary folder for `location=":memory:"`).

    `max_open`: how many users' keys read so far stay in memory (the least recently used are read again).
    """

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
        root = Path(tempfile.mkdtemp(prefix=TEMPORARY_PREFIX)) if self._temporary or path is None else Path(path)
        self.description = ":memory:" if self._temporary else str(root)
        self.root = root
        self.sync, self.max_open, self.seal = sync, max(1, int(max_open)), seal
        self._lock_file = open_root(root)
        self._lock = threading.RLock()
        self._shards: dict[str, Any] = {}
        self._touched: set[str] = set()  # shards this process opened: set owner-only again at close
        #: changes appended to each shard's log since its pages were last given back (`_logged`)
        self._log_changes: dict[str, int] = {}
        # a temporary store keeps its keys in memory only: a killed process leaves ciphertext nobody can open
        try:
            self._key_file = KeyFile(":memory:" if self._temporary else root / KEY_FILE, kept=self.max_open)
        except BaseException:
            self._lock_file.close()  # the store's lock goes with it
            raise
        #: registry entries of the most recently used users (the others are read again from their file)
        self._users: Recent[dict[str, Any]] = Recent()
        #: the keyword statistics of the users most recently recalled for (`keywords`)
        self._keywords = KeywordStats(kept=self.max_open)
        #: what could not be read, per user (empty reports are dropped in bulk once they pass `USERS_KEPT`)
        self._reports: dict[str, LoadReport] = {}
        self._closed = False
        # the shared shard's vector index is built in a child process once this many of its points are unindexed
        self._indexer = IndexBuilder(auto_index, self._lock, self._close_shard,
                                     lambda name: self._open_shard(name, create=False)) if auto_index else None

    # -- folders and shards -------------------------------------------------------------------
    def _user_path(self, user_id: str) -> Path:
        return self.root / "users" / user_dir_name(user_id)

    def _shard_path(self, name: str) -> Path:
        return self.root / "shards" / name

    def _check_open(self) -> None:
        if self._closed:
            raise StoreUnavailableError("the store is closed")

    def _spaces(self, user_id: str) -> dict[str, int]:
        """The user's spaces and their vector sizes (a registry entry of format 2 knows only its dimension)."""
        entry = self._entry(user_id)
        if entry is None:
            return {}
        return {k: int(v) for k, v in entry.get("spaces", {MEMORIES: entry["dimension"]}).items()}

    def _shard(self, user_id: str, space: str, *, dimension: int | None = None) -> Any:
        """The open shard holding one user's space (the space is added to the user when `dimension` is given);
        None if the user has no such space."""
        self._check_open()
        known = self._spaces(user_id).get(space)
        if known is None:
            if dimension is None or self._entry(user_id) is None:
                return None
            self._add_space(user_id, space, int(dimension))
            known = int(dimension)
        return self._open_shard(shard_name(space, known, bucket_of(user_id)), create=True)

    def _open_shard(self, name: str, *, create: bool) -> Any:
        """A shared shard by name (`memories-d384`), opened once for the store's lifetime."""
        from qdrant_edge import EdgeShard

        shard = self._shards.get(name)
        if shard is not None:
            return shard
        folder = self._shard_path(name)
        if name.startswith(MEMORIES + "-") and not self._building(name):
            settle_folder(folder)  # an index swap a crash interrupted
        try:
            loaded = shard_exists(folder)
            if loaded:
                shard = EdgeShard.load(str(folder))
            elif create:
                shard = self._create_shard(folder, shard_dimension(name))
            else:
                return None
            ensure_indexes(shard)
            if loaded:  # the log and the payload indexes it read whole: not resident for the shard's lifetime
                page_out(folder)
        except HindsightError:
            raise
        except Exception as exc:
            if "WouldBlock" in str(exc) or "lock" in str(exc).lower():
                raise StoreInUseError(f"a shard of this store is open in another process ({exc})") from exc
            raise StoreUnavailableError(f"cannot open the shard at {folder}: {exc}") from exc
        self._shards[name] = shard
        self._touched.add(name)
        return shard

    @staticmethod
    def _create_shard(folder: Path, dimension: int) -> Any:
        """A new shard, made under a temporary name and renamed into place: a process killed while the engine
        makes it leaves no half-made shard under the shard's name (one the engine would refuse to load)."""
        from qdrant_edge import EdgeShard

        making = private_folder(folder.parent) / (folder.name + MAKING)
        shutil.rmtree(making, ignore_errors=True)  # what a killed process left
        EdgeShard.create(str(making), shard_config(dimension)).close()
        make_private(making)  # the engine's files follow the umask
        making.rename(folder)
        return EdgeShard.load(str(folder))

    def _building(self, name: str) -> bool:
        return self._indexer is not None and self._indexer.building(name)

    def _close_shard(self, name: str) -> None:
        shard = self._shards.pop(name, None)
        if shard is not None:
            shard.flush()
            shard.close()

    def _memories_shard(self, user_id: str) -> str | None:
        """The name of the shard holding the user's memories (None for an unknown user)."""
        dimension = self._spaces(user_id).get(MEMORIES)
        return None if dimension is None else shard_name(MEMORIES, dimension, bucket_of(user_id))

    def _record(self, user_id: str, kind: str, change: Any) -> None:
        """Keep a change to a memories shard for the copy being indexed, if one is."""
        name = self._memories_shard(user_id)
        if self._indexer is not None and name is not None:
            self._indexer.record(name, kind, change)

    def wait_for_index(self, timeout: float | None = None) -> bool:
        """Wait until no background index build is running (benchmarks, tests); False on timeout."""
        return self._indexer is None or self._indexer.wait(timeout)

    def _keystore(self, user_id: str, space: str = MEMORIES) -> KeyStore:
        """The keys of one user's space (an archived copy has keys of its own: forgetting the original leaves it
        readable)."""
        return self._key_file.of(user_dir_name(user_id), space)

    def _tenant(self, user_id: str) -> str:
        """What the user's points hold as their user, and every request filters on (`KeyStore.tenant`: never the
        user id, and tied to the user only by a key that forgetting the user destroys)."""
        return self._keystore(user_id, MEMORIES).tenant()

    def _after_change(self, shard: Any) -> None:
        if self.sync == "full":
            shard.flush()

    # -- users ----------------------------------------------------------------------------------
    def _entry(self, user_id: str) -> dict[str, Any] | None:
        entry = self._users.get(user_id)
        if entry is not None:
            return entry
        path = self._user_path(user_id) / "user.json"
        if not path.exists():
            return None
        try:
            text = path.read_text(encoding="utf-8")
            if not text.strip():  # written without a sync and cut by a power loss: never acknowledged as such
                return None
            entry = json.loads(text)
        except (OSError, ValueError) as exc:
            raise StoreUnavailableError(f"cannot read {path}: {exc}") from exc
        if entry.get("user_id") != user_id:  # a hash collision or tampering: never serve it
            return None
        self._users[user_id] = entry
        return entry

    def _add_space(self, user_id: str, space: str, dimension: int) -> None:
        entry = dict(self._entry(user_id) or {})
        entry["spaces"] = {**self._spaces(user_id), space: int(dimension)}
        self._write_entry(user_id, entry)

    def _write_entry(self, user_id: str, entry: dict[str, Any]) -> None:
        folder = private_folder(self._user_path(user_id))
        # as durable as the points it registers: with sync="normal" those are in the engine's log, not yet on disk
        write_json_atomic(folder / "user.json", entry, durable=self.sync == "full")
        self._users[user_id] = entry

    def open_user(self, user_id: str, *, embedding_model: str, dimension: int, create: bool) -> bool:
        with self._lock:
            self._check_open()

            def register() -> None:
                self.set_registered_embedding(user_id, embedding_model, dimension)

            return open_registered(self._entry(user_id), embedding_model, dimension, create=create, register=register)

    # -- writing ------------------------------------------------------------------------------------
    def _points(self, user_id: str, records: Sequence[MemoryRecord], vectors: Sequence[np.ndarray],
                space: str = MEMORIES, extras: Sequence[dict | None] | None = None) -> list[dict]:
        """The points of records of one user's space (the user's keys, id digest and tenant read once)."""
        seal = self._keystore(user_id, space).seal if self.seal else None
        digest, tenant = self._id_digest(user_id), self._tenant(user_id)
        out = []
        for i, (record, vector) in enumerate(zip(records, vectors)):
            indices, values = pts.document_terms(pts.keyword_text(record))
            out.append({"id": record.id, "dense": np.asarray(vector, dtype=np.float32).tolist(),
                        "sparse": [indices, values],
                        "payload": pts.to_payload(record, seal=seal, extra=extras[i] if extras else None,
                                                  digest=digest, tenant=tenant)})
        return out

    def _id_digest(self, user_id: str) -> Callable[[str], str] | None:
        """The keyed digest session and agent ids are filtered by (one per user, every space), when sealing."""
        if not self.seal:
            return None
        return lambda value: self._keystore(user_id, MEMORIES).id_digest(value)  # opened only when a filter needs it

    def _upsert_points(self, shard: Any, points: list[dict]) -> None:
        """Write points, each under the tenant its payload names (conditional on that tenant, `edge_changes`)."""
        for tenant in dict.fromkeys(p["payload"]["user_id"] for p in points):
            upsert_points(shard, [p for p in points if p["payload"]["user_id"] == tenant], tenant)

    def _set_fields(self, shard: Any, updates: Sequence[tuple[str, dict[str, Any]]], tenant: str) -> None:
        set_fields(shard, updates, tenant)  # a method: the crash tests stop a change half-way here

    def _delete(self, user_id: str, shard: Any, memory_ids: Sequence[str], space: str = MEMORIES) -> None:
        if memory_ids:
            delete_points(shard, memory_ids, self._tenant(user_id))
            if self.seal:
                self._keystore(user_id, space).destroy(memory_ids)

    def commit(self, user_id: str, *, upserts: Sequence[tuple[MemoryRecord, np.ndarray]] = (),
               updates: Sequence[tuple[str, dict[str, Any]]] = (), deletes: Sequence[str] = (),
               space: str = MEMORIES) -> None:
        """All of the changes or (after a crash, on the next open) all of them.

        The change is written as one journal file (with sealed text only) before it is applied, and removed after;
        `recover` replays a journal a crash left behind. Every step is idempotent, so replaying a half-applied change
        completes it.
        """
        with self._lock:
            dimension = len(upserts[0][1]) if upserts else None
            shard = self._shard(user_id, space, dimension=dimension or self._dimension(user_id))
            if shard is None:
                raise StoreUnavailableError(f"the user {user_id!r} is not registered in this store")
            if self.seal and upserts:
                self._keystore(user_id, space).prepare(r.id for r, _ in upserts)
            entry = {"user_id": user_id, "space": space,
                     "upserts": self._points(user_id, [r for r, _ in upserts], [v for _, v in upserts], space),
                     "updates": [[m, f] for m, f in updates], "deletes": list(deletes)}
            if not entry["updates"] and not entry["deletes"]:
                self._apply(user_id, shard, entry)  # one upsert operation is atomic on its own
                return
            journal = private_folder(self._user_path(user_id) / "journal")
            path = journal / f"{uuid.uuid4().hex}.json"
            write_json_atomic(path, journaled(entry))
            self._apply(user_id, shard, entry)
            path.unlink()

    def _logged(self, user_id: str, space: str, changes: int) -> None:
        """Count the changes written to the user's shard; every `LOG_CHANGES_KEPT`, page out its log, its payload
        indexes' storage (`mapped`: read again only when the shard is loaded), its payloads' and its vectors' pages
        (a search reads back those it needs)."""
        dimension = self._spaces(user_id).get(space)
        if dimension is None:
            return
        name = shard_name(space, dimension, bucket_of(user_id))
        count = self._log_changes.get(name, 0) + changes
        if count >= LOG_CHANGES_KEPT:
            page_out(self._shard_path(name), WRITTEN)
            count = 0
        self._log_changes[name] = count

    def _dimension(self, user_id: str) -> int | None:
        entry = self._entry(user_id)
        return int(entry["dimension"]) if entry else None

    def _apply(self, user_id: str, shard: Any, entry: dict[str, Any]) -> None:
        tenant, space = self._tenant(user_id), entry.get("space", MEMORIES)
        # under the user's tenant, whatever the payload says (a journal an older version wrote names the user)
        upserts = [{**p, "payload": {**p["payload"], "user_id": tenant}} for p in entry["upserts"]]
        entry = {**entry, "tenant": tenant, "upserts": upserts}
        counts = self._keywords.kept(user_id) if space == MEMORIES else None
        if counts is not None:
            self._count_change(counts, shard, tenant, upserts, entry["deletes"])
        if upserts:
            upsert_points(shard, upserts, tenant)
        if entry["updates"]:
            self._set_fields(shard, [(m, f) for m, f in entry["updates"]], tenant)
        self._delete(user_id, shard, entry["deletes"], space)
        self._after_change(shard)
        self._logged(user_id, space, len(upserts) + len(entry["updates"]) + len(entry["deletes"]))
        if self._indexer is not None and space == MEMORIES:
            name = self._memories_shard(user_id)
            if name is not None:
                self._indexer.record(name, "entry", entry)
                if upserts:
                    self._indexer.maybe_start(name, shard, self._shard_path(name))

    @staticmethod
    def _count_change(counts: TermCounts, shard: Any, tenant: str, upserts: list[dict], deletes: Sequence[str]) -> None:
        """Keep a user's keyword counts in step with a change about to be applied: the terms of the points it
        replaces or deletes go out, those it writes come in (a point another user holds stays as it is, as the
        change leaves it)."""
        ids = list(dict.fromkeys([p["id"] for p in upserts] + list(deletes)))
        held = {str(p.id): p for p in shard.retrieve(ids, with_payload=["user_id"], with_vector=[SPARSE])} \
            if ids else {}
        mine = {key: pts.sparse_terms(p) for key, p in held.items() if (p.payload or {}).get("user_id") == tenant}
        after = dict(mine)
        for point in upserts:
            if point["id"] in mine or point["id"] not in held:
                after[point["id"]] = point["sparse"][0]
        for key in deletes:
            after.pop(key, None)
        for terms in mine.values():
            counts.add(terms, -1)
        for terms in after.values():
            counts.add(terms)

    def update_fields(self, user_id: str, updates: Sequence[tuple[str, dict[str, Any]]], *,
                      durable: bool = True) -> None:
        with self._lock:
            shard = self._shard(user_id, MEMORIES)
            if shard is not None and updates:
                tenant = self._tenant(user_id)
                self._set_fields(shard, updates, tenant)
                if durable:
                    self._after_change(shard)
                self._record(user_id, "fields", (tenant, [(m, dict(f)) for m, f in updates]))

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
                if shard is not None:
                    self._apply(user_id, shard, entry)
                path.unlink()
                done += 1
            for stale in journal.glob("*.tmp"):
                stale.unlink()
            return done

    # -- reading ------------------------------------------------------------------------------------
    def _hits(self, user_id: str, points: Sequence[Any], with_vectors: bool, space: str = MEMORIES) -> dict[str, Hit]:
        """The user's readable records among `points`, by point id, in their order (the user's tenant, keys and
        load report read once for them all)."""
        if self.seal and points:
            self._keystore(user_id, space).load(str(p.id) for p in points)
        tenant, report = self._tenant(user_id), self._report(user_id) if space == MEMORIES else None
        unseal = self._keystore(user_id, space).unseal if self.seal else None
        hits = ((str(p.id), pts.to_hit(user_id, p, with_vectors=with_vectors, report=report, unseal=unseal,
                                       tenant=tenant)) for p in points)
        return {key: hit for key, hit in hits if hit is not None}

    def _report(self, user_id: str) -> LoadReport:
        report = self._reports.get(user_id)
        if report is None:
            if len(self._reports) >= 2 * USERS_KEPT:  # keep only the reports that say something
                self._reports = {user: kept for user, kept in self._reports.items() if kept.unreadable}
            report = self._reports[user_id] = LoadReport()
        return report

    def load_report(self, user_id: str) -> LoadReport:
        return self._report(user_id)

    def get(self, user_id: str, memory_ids: Sequence[str], *, with_vectors: bool = False) -> list[Hit]:
        with self._lock:
            shard = self._shard(user_id, MEMORIES)
            ids = [m for m in memory_ids if is_uuid(m)]
            if shard is None or not ids:
                return []
            found = shard.retrieve(ids, with_payload=True, with_vector=[pts.DENSE, pts.SPARSE] if with_vectors else False)
            # only this user's points are read: an id another user holds reads as not found
            order = {m: i for i, m in enumerate(ids)}
            return sorted(self._hits(user_id, found, with_vectors).values(), key=lambda h: order.get(h.record.id, 0))

    def count(self, user_id: str, scope: Scope = ALL, *, space: str = MEMORIES) -> int:
        from qdrant_edge import CountRequest

        with self._lock:
            shard = self._shard(user_id, space)
            if shard is None:
                return 0
            flt = edge_filter(scope, self._tenant(user_id), self._id_digest(user_id))
            return int(shard.count(CountRequest(filter=flt, exact=True)))

    def neighbours(self, user_id: str, vectors: np.ndarray, *, limit: int, min_score: float,
                   scope: Scope, known: Collection[str] = ()) -> list[list[Hit]]:
        from qdrant_edge import Query, QueryBatchRequest, QueryRequest

        vectors = np.asarray(vectors, dtype=np.float32)
        with self._lock:
            shard = self._shard(user_id, MEMORIES)
            if shard is None or not len(vectors):
                return [[] for _ in vectors]
            flt = edge_filter(scope, self._tenant(user_id), self._id_digest(user_id))
            batch = shard.query_batch(QueryBatchRequest([
                QueryRequest(limit=limit, query=Query.Nearest(v.tolist(), using=pts.DENSE), filter=flt,
                             score_threshold=min_score, with_payload=False, with_vector=False)
                for v in vectors]))

            def read(ids: list[str]) -> dict[str, Hit]:
                found = shard.retrieve(ids, with_payload=True, with_vector=[pts.DENSE])
                return self._hits(user_id, found, True)

            return pts.neighbour_lists(batch, read, known)

    def search(self, user_id: str, request: SearchRequest) -> SearchResult:
        with self._lock:
            shard = self._shard(user_id, MEMORIES)
            if shard is None:
                return SearchResult([])
            tenant = self._tenant(user_id)
            if any(channel.using == SPARSE for channel in request.channels):
                request = weighted(request, self._keyword_counts(user_id, shard, tenant))
            flt = edge_filter(request.scope, tenant, self._id_digest(user_id))
            found = shard.query_batch(engine_batch(request, flt))
            return SearchResult(list(self._hits(user_id, found[0], True).values()))

    def _keyword_counts(self, user_id: str, shard: Any, tenant: str) -> TermCounts:
        """The user's keyword statistics (`keywords`), read from their points' terms when not kept."""
        from qdrant_edge import ScrollRequest

        def read() -> Any:
            offset = None
            while True:
                batch, offset = shard.scroll(ScrollRequest(offset=offset, limit=1024, filter=user_points(tenant),
                                                           with_payload=False, with_vector=[SPARSE]))
                yield from (pts.sparse_terms(p) for p in batch)
                if offset is None:
                    return

        return self._keywords.of(user_id, read)

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
                for name in self._touched:
                    make_private(self._shard_path(name))
            self._shards.clear()
            self._key_file.close()
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_UN)
                self._lock_file.close()
            if self._temporary:
                shutil.rmtree(self.root, ignore_errors=True)
