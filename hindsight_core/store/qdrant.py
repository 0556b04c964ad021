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
import hashlib
import uuid
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from ..errors import EmbedderMismatchError, HindsightError, StoreInUseError, StoreUnavailableError
from ..types import MemoryRecord

REGISTRY = "hindsight_users"
VECTOR = "dense"
_NAMESPACE = uuid.UUID("6f1d8a52-3c2e-4b7a-9a57-1f0c9f3b8e21")


def collection_for(user_id: str) -> str:
    """The collection that holds a user's memories: a hash, so any id is a valid name."""
    return "hindsight_u_" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:32]


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
                 api_key: str | None = None, client: Any = None, timeout: float = 10.0) -> None:
        from qdrant_client import QdrantClient

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
        with _translated("delete the user's memories"):
            name = collection_for(user_id)
            if self.client.collection_exists(name):
                self.client.delete_collection(name)
            from qdrant_client import models

            self.client.delete(REGISTRY, points_selector=models.PointIdsList(points=[str(uuid.uuid5(_NAMESPACE, user_id))]))
        self._known.pop(user_id, None)

    # -- memories ---------------------------------------------------------------------------
    def upsert(self, user_id: str, records: Sequence[MemoryRecord], vectors: np.ndarray) -> None:
        from qdrant_client import models

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
        name = collection_for(user_id)
        offset = None
        with _translated("load memories"):
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
                    yield MemoryRecord.from_payload(payload), np.asarray(vector, dtype=np.float32)
                if offset is None:
                    return

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()
