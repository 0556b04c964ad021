"""The embedded store's maintenance side (`MaintenanceStore`): listing, users, spaces, upkeep, metadata.

`EdgeStore` (`hindsight_core.store.edge`) takes these methods from `EdgeUpkeep`; none of them is on the recall path.
They rely on the hot path's shard cache, lock and key stores (`_shard`, `_lock`, `_keystore`, ...).
"""

from __future__ import annotations

import contextlib
import json
import shutil
from typing import Any, Iterator, Sequence

import numpy as np

from ..errors import HindsightError
from ..types import MemoryRecord
from . import points as pts
from .edge_changes import delete_points, delete_user, upsert_points
from .edge_files import (FORMAT, MAKING, bucket_of, check_space, meta_path, shard_exists, shard_name, user_dir_name,
                         write_json_atomic)
from .edge_query import edge_filter
from .fields import is_uuid
from .private import make_private
from .values import ALL, MEMORIES, Hit, Scope


class EdgeUpkeep:
    """`MaintenanceStore` for `EdgeStore` (a mixin: the shards and locks are the hot path's)."""

    _lock: Any
    _shards: Any
    _indexer: Any
    _key_file: Any
    _users: Any
    _reports: Any
    _keywords: Any
    root: Any
    seal: bool

    # -- users ----------------------------------------------------------------------------------
    def users(self) -> list[str]:
        out = []
        for folder in (self.root / "users").iterdir():
            with contextlib.suppress(OSError, ValueError, KeyError):
                out.append(json.loads((folder / "user.json").read_text(encoding="utf-8"))["user_id"])
        return sorted(out)

    def drop_user(self, user_id: str) -> None:
        """Every trace of a user: their points leave the shared shards (deleted, then compacted out of the
        segment files), their keys are deleted for good from the store's key file, and their folder goes with
        its registry entry."""
        with self._lock:
            spaces = self._spaces(user_id)
            tenant = self._tenant(user_id)
            names = []
            for space, dimension in spaces.items():
                name = shard_name(space, dimension, bucket_of(user_id))
                shard = self._open_shard(name, create=False)
                if shard is not None:
                    delete_user(shard, tenant)
                    if space == MEMORIES:
                        self._record(user_id, "drop", tenant)  # a build running now must not bring them back
                    names.append(name)
            self._key_file.destroy_user(user_dir_name(user_id))  # the tenant too: nothing ties the points to the user
            self._users.pop(user_id, None)
            self._reports.pop(user_id, None)
            self._keywords.forget(user_id)
            folder = self._user_path(user_id)
            if folder.exists():
                shutil.rmtree(folder)
        for name in names:
            self._compact_shard(name)

    # -- listing --------------------------------------------------------------------------------
    def scan(self, user_id: str, scope: Scope = ALL, *, with_vectors: bool = False,
             space: str = MEMORIES) -> Iterator[Hit]:
        for batch in self._scroll(user_id, space, scope, with_vectors):
            yield from self._hits(user_id, batch, with_vectors, space).values()

    def _scroll(self, user_id: str, space: str, scope: Scope, with_vectors: bool) -> Iterator[list[Any]]:
        """The user's points in a space, in batches (the store's lock is held while each is read, not between)."""
        from qdrant_edge import ScrollRequest

        offset = None
        while True:
            with self._lock:
                shard = self._shard(user_id, space)
                if shard is None:
                    return
                batch, offset = shard.scroll(ScrollRequest(
                    offset=offset, limit=1024, filter=edge_filter(scope, self._tenant(user_id),
                                                                  self._id_digest(user_id)),
                    with_payload=True,
                    with_vector=[pts.DENSE, pts.SPARSE] if with_vectors else False))
            yield batch
            if offset is None:
                return

    # -- upkeep ---------------------------------------------------------------------------------------
    def optimize(self, user_id: str) -> bool:
        """Build the user's HNSW index and vacuum deleted points (blocking; never on the write path)."""
        with self._lock:
            shard = self._shard(user_id, MEMORIES)
            return bool(shard is not None and shard.optimize())

    def compact(self, user_id: str | None = None) -> int:
        """Vacuum the shards holding one user's spaces (every shard with None) so deleted vectors leave the
        segment files; returns the shards compacted.

        Deleted text is unreadable at once (the delete destroys its key); this also removes the deleted points' vectors,
        rewriting the segments any delete of a bucket's users touched. A memories shard is compacted in a child process
        (`indexing`): the call waits for it, holding neither the store's lock nor the GIL.
        """
        with self._lock:
            if user_id is None:
                folders = (self.root / "shards").iterdir() if (self.root / "shards").is_dir() else []
                names = sorted(p.name for p in folders if shard_exists(p) and not p.name.endswith(MAKING))
            else:
                names = [shard_name(space, dimension, bucket_of(user_id))
                         for space, dimension in self._spaces(user_id).items()]
        if user_id is not None:
            return sum(self._compact_shard(name) for name in names)
        done = 0
        for name in names:
            with self._lock:
                done += self._vacuum(name)
        return done

    def _compact_shard(self, name: str) -> bool:
        """One shard's deleted points out of its segment files before this returns: a memories shard in a child
        process (the wait holds no lock), anything else, or a child that failed, in this one."""
        with self._lock:
            shard = self._open_shard(name, create=False)
            if shard is None:
                return False
            if self._indexer is None or not name.startswith(MEMORIES + "-"):
                return self._vacuum(name)
            ticket = self._indexer.compact(name, shard, self._shard_path(name))
        if self._indexer.wait_compacted(name, ticket):
            return True
        with self._lock:  # the child failed or was cancelled: the guarantee does not depend on it
            return self._vacuum(name)

    def _vacuum(self, name: str) -> bool:
        """Compact one shard in this process (under the store's lock)."""
        self._check_open()
        shard = self._open_shard(name, create=False)
        if shard is None:
            return False
        if name.startswith(MEMORIES + "-") and self._indexer is not None:
            self._indexer.cancel(name)  # a copy indexed from before the deletes must not come back
        shard.optimize()
        shard.flush()
        make_private(self._shard_path(name))  # the engine's new segments follow the umask
        return True

    def disk_usage(self) -> int | None:
        # allocated blocks: Edge preallocates its log files sparsely, so their apparent size is not used space
        return sum(p.stat().st_blocks * 512 for p in self.root.rglob("*") if p.is_file())

    # -- maintenance spaces -----------------------------------------------------------------------------
    def registered_embedding(self, user_id: str) -> tuple[str, int] | None:
        entry = self._entry(user_id)
        return (entry["embedding_model"], int(entry["dimension"])) if entry else None

    def set_registered_embedding(self, user_id: str, model: str, dimension: int) -> None:
        with self._lock:
            spaces = self._spaces(user_id) or {MEMORIES: int(dimension)}
            entry = {"user_id": user_id, "embedding_model": model, "dimension": int(dimension), "format": FORMAT,
                     "spaces": spaces}
            self._write_entry(user_id, entry)

    def space_exists(self, user_id: str, space: str) -> bool:
        check_space(space)
        return space in self._spaces(user_id)

    def put_space(self, user_id: str, space: str, records: Sequence[MemoryRecord], vectors: np.ndarray,
                  extras: Sequence[dict[str, Any]] | None = None) -> None:
        check_space(space)
        if not records:
            return
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(records):
            raise HindsightError("put_space needs one vector per record")
        with self._lock:
            shard = self._shard(user_id, space, dimension=int(vectors.shape[1]))
            if shard is None:
                raise HindsightError(f"the user {user_id!r} is not registered in this store")
            if self.seal:
                self._keystore(user_id, space).prepare(r.id for r in records)
            points = self._points(user_id, records, vectors, space, extras)
            tenant = self._tenant(user_id)
            upsert_points(shard, points, tenant)
            self._after_change(shard)
            if space == MEMORIES:
                self._keywords.forget(user_id)  # counted again when next asked
                self._record(user_id, "entry", {"tenant": tenant, "upserts": points, "updates": [], "deletes": []})

    def load_space(self, user_id: str, space: str) -> Iterator[tuple[MemoryRecord, np.ndarray, dict[str, Any]]]:
        check_space(space)
        unseal = (lambda m, sealed: self._keystore(user_id, space).unseal(m, sealed)) if self.seal else None
        tenant = self._tenant(user_id)
        for point in (p for batch in self._scroll(user_id, space, ALL, True) for p in batch):
            payload = point.payload or {}
            if payload.get("user_id") != tenant:
                continue
            try:
                record, extra = pts.from_payload(payload, unseal=unseal, user_id=user_id)
            except pts.UnreadableRecord as exc:
                self._report(user_id).unreadable.append((str(point.id), str(exc)))
                continue
            yield record, np.asarray(point.vector[pts.DENSE], dtype=np.float32), extra

    def ids_in_space(self, user_id: str, space: str) -> set[str]:
        check_space(space)
        return {str(p.id) for batch in self._scroll(user_id, space, ALL, False) for p in batch}

    def count_space(self, user_id: str, space: str) -> int:
        check_space(space)
        return self.count(user_id, ALL, space=space)

    def ensure_space(self, user_id: str, space: str, dimension: int) -> None:
        check_space(space)
        with self._lock:
            self._shard(user_id, space, dimension=int(dimension))

    def delete_from_space(self, user_id: str, space: str, memory_ids: Sequence[str]) -> None:
        check_space(space)
        with self._lock:
            shard = self._shard(user_id, space)
            ids = [m for m in memory_ids if is_uuid(m)]
            if shard is not None and ids:
                tenant = self._tenant(user_id)
                delete_points(shard, ids, tenant)
                if self.seal:
                    self._keystore(user_id, space).destroy(ids)
                self._after_change(shard)
                if space == MEMORIES:
                    self._keywords.forget(user_id)
                    self._record(user_id, "entry", {"tenant": tenant, "upserts": [], "updates": [], "deletes": ids})

    def drop_space(self, user_id: str, space: str) -> None:
        """The user's points in one space go (deleted; `compact` takes them out of the segment files), with their
        keys; the space is no longer the user's."""
        check_space(space)
        with self._lock:
            spaces = self._spaces(user_id)
            if space in spaces:
                shard = self._open_shard(shard_name(space, spaces[space], bucket_of(user_id)), create=False)
                if shard is not None:
                    delete_user(shard, self._tenant(user_id))
                    self._after_change(shard)
                    if space == MEMORIES:
                        self._keywords.forget(user_id)
                        self._record(user_id, "drop", self._tenant(user_id))
                entry = dict(self._entry(user_id) or {})
                entry["spaces"] = {k: v for k, v in spaces.items() if k != space}
                self._write_entry(user_id, entry)
            if space != MEMORIES:
                self._key_file.destroy_user(user_dir_name(user_id), space)

    def get_meta(self, key: str) -> dict[str, Any] | None:
        path = meta_path(self.root, key)
        if not path.exists():
            return None
        value = json.loads(path.read_text(encoding="utf-8"))
        return dict(value.get("value") or {}) if value.get("key") == key else None

    def set_meta(self, key: str, value: dict[str, Any] | None) -> None:
        path = meta_path(self.root, key)
        if value is None:
            path.unlink(missing_ok=True)
        else:
            write_json_atomic(path, {"key": key, "value": value})
