"""Qdrant storage: embedded on disk, in memory, or a Qdrant server, through one code path.

Layout: one collection per user (`hindsight_u_<sha256(user_id)[:32]>`) holding
that user's memories with a named vector "dense", plus a registry collection
(`hindsight_users`, no vectors) recording each user's collection, embedding
model and dimension. One collection per user keeps users apart by construction
and lets recall load a user's memories without a payload filter (which Qdrant's
embedded mode evaluates in Python, point by point).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import uuid
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from ..errors import EmbedderMismatchError, HindsightError, StoreInUseError, StoreUnavailableError
from ..types import MemoryRecord
from ..validation import read_or_set_aside
from .base import ARCHIVE, MEMORIES, SPACES, STAGING, STAGING_ARCHIVE

REGISTRY = "hindsight_users"
JOURNAL = "hindsight_journal"
VECTOR = "dense"
_NAMESPACE = uuid.UUID("6f1d8a52-3c2e-4b7a-9a57-1f0c9f3b8e21")


def collection_for(user_id: str) -> str:
    """The collection that holds a user's memories: a hash, so any id is a valid name."""
    return "hindsight_u_" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:32]


# -- maintenance spaces: archive and migration staging (used by `hindsight_core.maintenance`) --------------------
#
# Besides its memories, a user may have an archive (memories moved out of the hot
# store, restorable) and, while `hindsight migrate` runs, staging copies of both,
# re-embedded with the new model. Each is a collection of its own, named like the
# memories collection with another prefix. Extra payload keys (e.g. "archived") ride
# along with the record's own fields.

_SPACE_PREFIX = {ARCHIVE: "hindsight_a_", STAGING: "hindsight_s_", STAGING_ARCHIVE: "hindsight_sa_"}
META = "hindsight_meta"
_RECORD_FIELDS = frozenset(f.name for f in dataclasses.fields(MemoryRecord))


def space_collection(user_id: str, space: str) -> str:
    """The collection holding one of a user's spaces (see `SPACES`)."""
    if space == MEMORIES:
        return collection_for(user_id)
    if space not in _SPACE_PREFIX:
        raise HindsightError(f"unknown store space {space!r}; spaces are {SPACES}")
    return _SPACE_PREFIX[space] + collection_for(user_id)[len("hindsight_u_"):]


def _meta_id(key: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, "meta:" + key))


@contextlib.contextmanager
def _translated(what: str) -> Iterator[None]:
    """Translate backend errors into hindsight's error tree."""
    try:
        yield
    except HindsightError:
        raise
    except RuntimeError as exc:
        if "already accessed by another instance" in str(exc):
            raise StoreInUseError(
                f"the embedded store is in use by another process ({exc}). One process at a time can "
                "open an embedded store; for several processes run a Qdrant server and pass url=..."
            ) from exc
        raise
    except Exception as exc:
        name = type(exc).__name__
        if any(word in name for word in ("Connect", "Timeout", "ResponseHandling", "RpcError", "Unavailable")):
            raise StoreUnavailableError(f"cannot reach the Qdrant server while trying to {what}: {exc}") from exc
        raise


class QdrantStore:
    """Memories in Qdrant. Give exactly one of `path`, `location` (":memory:") or `url`, or a `client`."""

    def __init__(self, *, path: str | Path | None = None, location: str | None = None, url: str | None = None,
                 api_key: str | None = None, client: Any = None, timeout: float = 10.0,
                 sync: str = "normal") -> None:
        """`sync` (embedded store only): "normal" makes every write survive a killed process, and
        the last second of writes may be lost to a power cut; "full" survives that too, at
        roughly a fsync per memory written.
        """
        from qdrant_client import QdrantClient

        if sync not in ("normal", "full"):
            raise HindsightError('sync must be "normal" or "full"')
        self.sync = sync
        self._tuned: set[int] = set()

        given = [x for x in (path, location, url, client) if x is not None]
        if len(given) != 1:
            raise HindsightError("give exactly one of path=, location=, url= or client= to QdrantStore")
        self.description = str(url or location or path or "client")
        self.embedded = url is None and client is None
        with _translated("open the store"):
            if client is not None:
                self.client = client
            elif url is not None:
                self.client = QdrantClient(url=url, api_key=api_key, timeout=int(timeout))
                self.client.get_collections()  # fail now, clearly, if the server is not there
            elif location is not None:
                self.client = QdrantClient(location=location)
            else:
                Path(path).mkdir(parents=True, exist_ok=True)
                self.client = QdrantClient(path=str(path))
            if not self.client.collection_exists(REGISTRY):
                self.client.create_collection(REGISTRY, vectors_config={})
        self._known: dict[str, dict[str, Any]] = {}
        self._tune_files()

    def _sqlite_connections(self) -> list[Any]:
        """The SQLite connections of the embedded store's collections (empty for a server)."""
        local = getattr(self.client, "_client", None)
        collections = getattr(local, "collections", None) or {}
        out = []
        for collection in list(collections.values()):
            connection = getattr(getattr(collection, "storage", None), "storage", None)
            if connection is not None:
                out.append(connection)
        return out

    def _tune_files(self) -> None:
        """Put each collection file in WAL mode with secure delete.

        Qdrant's embedded mode commits every point as its own SQLite transaction;
        with the default rollback journal that is several fsyncs per memory (tens
        of writes a second). WAL with synchronous=NORMAL keeps every committed
        write across a killed process and is about 50x faster here; secure_delete
        overwrites deleted rows instead of leaving them in free pages.
        """
        if not self.embedded or self.description == ":memory:":
            return
        for connection in self._sqlite_connections():
            if id(connection) in self._tuned:
                continue
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute(f"PRAGMA synchronous={self.sync.upper()}")
            connection.execute("PRAGMA secure_delete=ON")
            self._tuned.add(id(connection))

    # -- users -----------------------------------------------------------------------------
    def _registry_entry(self, user_id: str) -> dict[str, Any] | None:
        if user_id in self._known:
            return self._known[user_id]
        with _translated("read the user registry"):
            found = self.client.retrieve(REGISTRY, ids=[str(uuid.uuid5(_NAMESPACE, user_id))], with_payload=True)
        if found and found[0].payload and found[0].payload.get("user_id") == user_id:
            self._known[user_id] = dict(found[0].payload)
            return self._known[user_id]
        return None

    def open_user(self, user_id: str, *, embedding_model: str, dimension: int, create: bool) -> bool:
        entry = self._registry_entry(user_id)
        if entry is not None:
            if entry["dimension"] != dimension or entry["embedding_model"] != embedding_model:
                raise EmbedderMismatchError(
                    f"the memories of this user were embedded with {entry['embedding_model']} "
                    f"({entry['dimension']} dims), but the configured embedder is {embedding_model} "
                    f"({dimension} dims). Use the same model, or run `hindsight migrate` to re-embed the store."
                )
            return True
        if not create:
            return False
        from qdrant_client import models

        name = collection_for(user_id)
        with _translated("create the user's collection"):
            if not self.client.collection_exists(name):
                self.client.create_collection(
                    name, vectors_config={VECTOR: models.VectorParams(size=dimension, distance=models.Distance.COSINE)}
                )
            entry = {"user_id": user_id, "collection": name, "embedding_model": embedding_model, "dimension": dimension}
            self.client.upsert(REGISTRY, points=[models.PointStruct(id=str(uuid.uuid5(_NAMESPACE, user_id)),
                                                                    vector={}, payload=entry)])
        self._known[user_id] = entry
        return True

    def users(self) -> list[str]:
        out: list[str] = []
        offset = None
        with _translated("list users"):
            while True:
                points, offset = self.client.scroll(REGISTRY, limit=1000, offset=offset, with_payload=True)
                out.extend(p.payload["user_id"] for p in points if p.payload)
                if offset is None:
                    return sorted(out)

    def drop_user(self, user_id: str) -> None:
        """Delete every trace of a user: memories, archive, migration staging, registry entry."""
        with _translated("delete the user's memories"):
            for space in SPACES:
                name = space_collection(user_id, space)
                if self.client.collection_exists(name):
                    self.client.delete_collection(name)
            from qdrant_client import models

            self.client.delete(REGISTRY, points_selector=models.PointIdsList(points=[str(uuid.uuid5(_NAMESPACE, user_id))]))
        self._known.pop(user_id, None)

    # -- memories ---------------------------------------------------------------------------
    def upsert(self, user_id: str, records: Sequence[MemoryRecord], vectors: np.ndarray) -> None:
        from qdrant_client import models

        self._tune_files()  # a collection created since the last write gets its settings

        points = [
            models.PointStruct(id=r.id, vector={VECTOR: v.tolist()}, payload=r.to_payload())
            for r, v in zip(records, np.asarray(vectors, dtype=np.float32))
        ]
        with _translated("store memories"):
            for start in range(0, len(points), 256):
                self.client.upsert(collection_for(user_id), points=points[start : start + 256], wait=True)

    def update_fields(self, user_id: str, memory_id: str, fields: dict[str, Any]) -> None:
        with _translated("update a memory"):
            self.client.set_payload(collection_for(user_id), payload=fields, points=[memory_id], wait=True)

    def delete(self, user_id: str, memory_ids: Sequence[str]) -> None:
        from qdrant_client import models

        if not memory_ids:
            return
        with _translated("delete memories"):
            self.client.delete(collection_for(user_id), points_selector=models.PointIdsList(points=list(memory_ids)),
                               wait=True)

    def load(self, user_id: str) -> Iterator[tuple[MemoryRecord, np.ndarray]]:
        """Every memory of a user with its vector (payloads naming another user are never served)."""
        for record, vector, _ in self.load_space(user_id, MEMORIES):
            yield record, vector

    # -- multi-step changes -------------------------------------------------------------
    def commit(self, user_id: str, *, upserts: Sequence[tuple[MemoryRecord, np.ndarray]] = (),
               updates: Sequence[tuple[str, dict[str, Any]]] = (), deletes: Sequence[str] = ()) -> None:
        """Apply several changes as one: all of them, or (after a crash) all of them on the next open.

        The whole change is first written as one journal point (a single, atomic
        write), then applied, then the journal point is removed. `recover` replays
        any journal point a crash left behind; every step is idempotent, so a
        replay of a half-applied change completes it.
        """
        entry = {
            "user_id": user_id,
            "upserts": [{"payload": r.to_payload(), "vector": np.asarray(v, dtype=np.float32).tolist()}
                        for r, v in upserts],
            "updates": [{"id": memory_id, "fields": fields} for memory_id, fields in updates],
            "deletes": list(deletes),
        }
        if not entry["updates"] and not entry["deletes"] and len(entry["upserts"]) <= 1:
            self._apply(entry)  # a single point write is atomic on its own
            return
        from qdrant_client import models

        entry_id = str(uuid.uuid4())
        with _translated("write the change journal"):
            if not self.client.collection_exists(JOURNAL):
                self.client.create_collection(JOURNAL, vectors_config={})
            self.client.upsert(JOURNAL, points=[models.PointStruct(id=entry_id, vector={}, payload=entry)], wait=True)
        self._apply(entry)
        with _translated("clear the change journal"):
            self.client.delete(JOURNAL, points_selector=models.PointIdsList(points=[entry_id]), wait=True)

    def _apply(self, entry: dict[str, Any]) -> None:
        user_id = entry["user_id"]
        if entry["upserts"]:
            records = [MemoryRecord.from_payload(u["payload"]) for u in entry["upserts"]]
            self.upsert(user_id, records, np.asarray([u["vector"] for u in entry["upserts"]], dtype=np.float32))
        for update in entry["updates"]:
            self.update_fields(user_id, update["id"], update["fields"])
        self.delete(user_id, entry["deletes"])

    def recover(self, user_id: str) -> int:
        """Finish the changes a crash interrupted for this user; returns how many were replayed."""
        from qdrant_client import models

        with _translated("read the change journal"):
            if not self.client.collection_exists(JOURNAL):
                return 0
            points, _ = self.client.scroll(JOURNAL, limit=10_000, with_payload=True, scroll_filter=models.Filter(
                must=[models.FieldCondition(key="user_id", match=models.MatchValue(value=user_id))]))
        for point in points:
            self._apply(point.payload)
            with _translated("clear the change journal"):
                self.client.delete(JOURNAL, points_selector=models.PointIdsList(points=[point.id]), wait=True)
        return len(points)

    def compact(self) -> int:
        """Rewrite the embedded store's files so that deleted memories leave no bytes behind.

        Qdrant's embedded mode keeps each collection in a SQLite file, where a
        deleted row stays in a free page until the file is vacuumed. Returns the
        number of files compacted (0 for a server or an in-memory store, where
        the server's own optimiser does this).
        """
        if not self.embedded or self.description == ":memory:":
            return 0
        self._tune_files()
        connections = self._sqlite_connections()
        for connection in connections:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            connection.execute("VACUUM")
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return len(connections)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()

    # -- maintenance: archive, migration staging, metadata (used by hindsight_core.maintenance) ----------
    def registered_embedding(self, user_id: str) -> tuple[str, int] | None:
        """The (model, dimension) a user's memories were embedded with, or None for an unknown user."""
        entry = self._registry_entry(user_id)
        return (entry["embedding_model"], int(entry["dimension"])) if entry else None

    def set_registered_embedding(self, user_id: str, model: str, dimension: int) -> None:
        """Record that a user's memories are now embedded with `model` (after a migration)."""
        from qdrant_client import models

        entry = {"user_id": user_id, "collection": collection_for(user_id), "embedding_model": model,
                 "dimension": int(dimension)}
        with _translated("update the user registry"):
            self.client.upsert(REGISTRY, points=[models.PointStruct(id=str(uuid.uuid5(_NAMESPACE, user_id)),
                                                                    vector={}, payload=entry)], wait=True)
        self._known[user_id] = entry

    def space_exists(self, user_id: str, space: str) -> bool:
        with _translated("look up a collection"):
            return bool(self.client.collection_exists(space_collection(user_id, space)))

    def load_space(self, user_id: str, space: str
                   ) -> Iterator[tuple[MemoryRecord, np.ndarray, dict[str, Any]]]:
        """Every (record, vector, extra payload) in one of a user's spaces."""
        name = space_collection(user_id, space)
        offset = None
        with _translated("read memories"):
            if not self.client.collection_exists(name):
                return
            while True:
                points, offset = self.client.scroll(name, limit=1024, offset=offset, with_payload=True,
                                                    with_vectors=[VECTOR])
                for point in points:
                    payload = point.payload or {}
                    if payload.get("user_id") != user_id:  # a hash collision or tampering: never serve it
                        continue
                    vector = point.vector[VECTOR] if isinstance(point.vector, dict) else point.vector
                    extra = {k: v for k, v in payload.items() if k not in _RECORD_FIELDS}
                    record = read_or_set_aside(payload, f"{space} of a user")  # one bad record never locks a user out
                    if record is not None:
                        yield record, np.asarray(vector, dtype=np.float32), extra
                if offset is None:
                    return

    def ids_in_space(self, user_id: str, space: str) -> set[str]:
        name = space_collection(user_id, space)
        found: set[str] = set()
        offset = None
        with _translated("list memory ids"):
            if not self.client.collection_exists(name):
                return found
            while True:
                points, offset = self.client.scroll(name, limit=4096, offset=offset, with_payload=False,
                                                    with_vectors=False)
                found.update(str(p.id) for p in points)
                if offset is None:
                    return found

    def count_space(self, user_id: str, space: str) -> int:
        name = space_collection(user_id, space)
        with _translated("count memories"):
            if not self.client.collection_exists(name):
                return 0
            return int(self.client.count(name, exact=True).count)

    def put_space(self, user_id: str, space: str, records: Sequence[MemoryRecord], vectors: np.ndarray,
                  extras: Sequence[dict[str, Any]] | None = None) -> None:
        """Upsert records into a space, creating its collection (sized by the vectors) if needed."""
        from qdrant_client import models

        if not records:
            return
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(records):
            raise HindsightError("put_space needs one vector per record")
        name = space_collection(user_id, space)
        points = [
            models.PointStruct(id=r.id, vector={VECTOR: v.tolist()},
                               payload={**(extras[i] if extras else {}), **r.to_payload()})
            for i, (r, v) in enumerate(zip(records, vectors))
        ]
        self.ensure_space(user_id, space, int(vectors.shape[1]))
        with _translated("store memories"):
            for start in range(0, len(points), 256):
                self.client.upsert(name, points=points[start: start + 256], wait=True)

    def ensure_space(self, user_id: str, space: str, dimension: int) -> None:
        """Create a space's collection for vectors of `dimension` if it does not exist yet."""
        from qdrant_client import models

        name = space_collection(user_id, space)
        with _translated("create a collection"):
            if not self.client.collection_exists(name):
                self.client.create_collection(name, vectors_config={
                    VECTOR: models.VectorParams(size=int(dimension), distance=models.Distance.COSINE)})

    def delete_from_space(self, user_id: str, space: str, memory_ids: Sequence[str]) -> None:
        from qdrant_client import models

        name = space_collection(user_id, space)
        if not memory_ids:
            return
        with _translated("delete memories"):
            if self.client.collection_exists(name):
                self.client.delete(name, points_selector=models.PointIdsList(points=list(memory_ids)), wait=True)

    def drop_space(self, user_id: str, space: str) -> None:
        name = space_collection(user_id, space)
        with _translated("delete a collection"):
            if self.client.collection_exists(name):
                self.client.delete_collection(name)

    def get_meta(self, key: str) -> dict[str, Any] | None:
        """A small JSON value kept in the store itself (e.g. a migration in progress), or None."""
        with _translated("read store metadata"):
            if not self.client.collection_exists(META):
                return None
            found = self.client.retrieve(META, ids=[_meta_id(key)], with_payload=True)
        if found and found[0].payload and found[0].payload.get("key") == key:
            return dict(found[0].payload.get("value") or {})
        return None

    def set_meta(self, key: str, value: dict[str, Any] | None) -> None:
        """Set (or, with None, delete) a value read by `get_meta`."""
        from qdrant_client import models

        with _translated("write store metadata"):
            if not self.client.collection_exists(META):
                if value is None:
                    return
                self.client.create_collection(META, vectors_config={})
            if value is None:
                self.client.delete(META, points_selector=models.PointIdsList(points=[_meta_id(key)]), wait=True)
            else:
                self.client.upsert(META, points=[models.PointStruct(id=_meta_id(key), vector={},
                                                                    payload={"key": key, "value": value})], wait=True)

    def disk_usage(self) -> int | None:
        """Bytes the embedded store takes on disk; None for a server or an in-memory store."""
        if not self.embedded or self.description == ":memory:":
            return None
        root = Path(self.description)
        return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if root.exists() else 0
