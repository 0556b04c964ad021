"""A Qdrant server through qdrant-client, running the same recall plan as the embedded store.

Layout, after Qdrant's multitenancy guidance: one collection per space and vector size (`hindsight_memories_d384`, …)
holding every user's points, with a tenant-indexed `user_id` payload field that every request filters on;
`hindsight_users` (the registry), `hindsight_journal` and `hindsight_meta` hold small payload-only points. Only the
registry entries are cached per process (a migration swaps them while the store is not in use), so every process sees
every acknowledged write on its next request. Payload text is stored in the clear (SECURITY.md). The keyword
channel's IDF is the server's, over the collection: counting a user's terms here would cost a request a query term.

This module is the hot path (`LiveStore`); listing, spaces and upkeep are in `server_upkeep` (`MaintenanceStore`).
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Any, Collection, Sequence

import numpy as np

from ..errors import HindsightError, StoreUnavailableError
from ..types import MemoryRecord
from . import points as pts
from .fields import FLOAT_INDEXED, KEYWORD_INDEXED, is_uuid
from .payload import field_updates
from .server_query import (JOURNAL, META, REGISTRY, channel_query, client_filter, compile_formula, registry_id,
                           translated)
from .server_upkeep import ServerUpkeep
from .values import ALL, MEMORIES, SPACES, Hit, LoadReport, Recent, Scope, SearchRequest, SearchResult, open_registered

__all__ = ["ServerStore"]


class ServerStore(ServerUpkeep):
    """Memories on a Qdrant server (`url`), or on any `QdrantClient` given as `client`."""

    embedded = False

    def __init__(self, url: str | None = None, *, api_key: str | None = None, client: Any = None,
                 timeout: float = 10.0) -> None:
        from qdrant_client import QdrantClient

        if (url is None) == (client is None):
            raise HindsightError("give exactly one of url= or client= to ServerStore")
        self.description = url or "client"
        with translated("open the store"):
            self.client = client if client is not None else QdrantClient(url=url, api_key=api_key, timeout=int(timeout))
            for name in (REGISTRY, JOURNAL, META):
                if not self.client.collection_exists(name):
                    self.client.create_collection(name, vectors_config={})
        self._known: Recent[dict[str, Any]] = Recent()  # registry entries of the most recently used users
        self._collections: set[str] = set()
        self._report = LoadReport()

    # -- collections ------------------------------------------------------------------------------
    def _collection(self, user_id: str, space: str, *, dimension: int | None = None) -> str | None:
        if space not in SPACES:
            raise HindsightError(f"unknown store space {space!r}; spaces are {SPACES}")
        dimension = dimension or self._dimension(user_id)
        if dimension is None:
            return None
        name = f"hindsight_{space}_d{int(dimension)}"
        if name in self._collections:
            return name
        from qdrant_client import models as m

        with translated("create a collection"):
            if not self.client.collection_exists(name):
                self.client.create_collection(
                    name, vectors_config={pts.DENSE: m.VectorParams(size=int(dimension), distance=m.Distance.COSINE)},
                    sparse_vectors_config={pts.SPARSE: m.SparseVectorParams(modifier=m.Modifier.IDF)})
                with contextlib.suppress(Exception):  # local mode ignores payload indexes (with a warning)
                    import warnings

                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        self.client.create_payload_index(name, "user_id", m.KeywordIndexParams(
                            type=m.KeywordIndexType.KEYWORD, is_tenant=True))
                        for key in KEYWORD_INDEXED:
                            self.client.create_payload_index(name, key, m.PayloadSchemaType.KEYWORD)
                        for key in FLOAT_INDEXED:
                            self.client.create_payload_index(name, key, m.PayloadSchemaType.FLOAT)
        self._collections.add(name)
        return name

    def _dimension(self, user_id: str) -> int | None:
        entry = self._entry(user_id)
        return int(entry["dimension"]) if entry else None

    # -- users ------------------------------------------------------------------------------------
    def _entry(self, user_id: str) -> dict[str, Any] | None:
        known = self._known.get(user_id)
        if known is not None:
            return known
        with translated("read the user registry"):
            found = self.client.retrieve(REGISTRY, ids=[registry_id(user_id)], with_payload=True)
        if found and found[0].payload and found[0].payload.get("user_id") == user_id:
            entry = dict(found[0].payload)
            self._known[user_id] = entry
            return entry
        return None

    def open_user(self, user_id: str, *, embedding_model: str, dimension: int, create: bool) -> bool:
        def register() -> None:
            self.set_registered_embedding(user_id, embedding_model, dimension)
            self._collection(user_id, MEMORIES, dimension=dimension)

        return open_registered(self._entry(user_id), embedding_model, dimension, create=create, register=register)

    # -- writing ----------------------------------------------------------------------------------
    @staticmethod
    def _point(record: MemoryRecord, vector: np.ndarray, extra: dict | None = None) -> dict:
        indices, values = pts.document_terms(pts.keyword_text(record))
        return {"id": record.id, "dense": np.asarray(vector, dtype=np.float32).tolist(),
                "sparse": [indices, values], "payload": pts.to_payload(record, extra=extra)}

    def _upsert(self, name: str, points: list[dict]) -> None:
        from qdrant_client import models as m

        structs = [m.PointStruct(id=p["id"], payload=p["payload"], vector={
            pts.DENSE: p["dense"], pts.SPARSE: m.SparseVector(indices=p["sparse"][0], values=p["sparse"][1])})
            for p in points]
        with translated("store memories"):
            for start in range(0, len(structs), 256):
                self.client.upsert(name, points=structs[start:start + 256], wait=True)

    def _set_fields(self, name: str, updates: Sequence[tuple[str, dict[str, Any]]]) -> None:
        with translated("update a memory"):
            for memory_ids, fields in field_updates(updates):
                self.client.set_payload(name, payload=fields, points=memory_ids, wait=True)

    def _delete(self, name: str, memory_ids: Sequence[str]) -> None:
        from qdrant_client import models as m

        if memory_ids:
            with translated("delete memories"):
                self.client.delete(name, points_selector=m.PointIdsList(points=list(memory_ids)), wait=True)

    def commit(self, user_id: str, *, upserts: Sequence[tuple[MemoryRecord, np.ndarray]] = (),
               updates: Sequence[tuple[str, dict[str, Any]]] = (), deletes: Sequence[str] = (),
               space: str = MEMORIES) -> None:
        """All of the changes, or (after a crash) all of them on the next `recover`: see `EdgeStore.commit`."""
        from qdrant_client import models as m

        entry = {"user_id": user_id, "space": space, "upserts": [self._point(r, v) for r, v in upserts],
                 "updates": [[i, f] for i, f in updates], "deletes": list(deletes),
                 "dimension": len(upserts[0][1]) if upserts else None}
        if not entry["updates"] and not entry["deletes"]:
            self._apply(entry)
            return
        entry_id = str(uuid.uuid4())
        with translated("write the change journal"):
            self.client.upsert(JOURNAL, points=[m.PointStruct(id=entry_id, vector={}, payload=entry)], wait=True)
        self._apply(entry)
        with translated("clear the change journal"):
            self.client.delete(JOURNAL, points_selector=m.PointIdsList(points=[entry_id]), wait=True)

    def _apply(self, entry: dict[str, Any]) -> None:
        name = self._collection(entry["user_id"], entry["space"], dimension=entry.get("dimension"))
        if name is None:
            raise StoreUnavailableError("the user's collection does not exist")
        if entry["upserts"]:
            self._upsert(name, entry["upserts"])
        self._set_fields(name, entry["updates"])
        self._delete(name, entry["deletes"])

    def update_fields(self, user_id: str, updates: Sequence[tuple[str, dict[str, Any]]], *,
                      durable: bool = True) -> None:
        name = self._collection(user_id, MEMORIES)  # the server decides durability
        if name is not None and updates:
            self._set_fields(name, updates)

    def recover(self, user_id: str) -> int:
        from qdrant_client import models as m

        with translated("read the change journal"):
            found, _ = self.client.scroll(JOURNAL, limit=10_000, with_payload=True,
                                          scroll_filter=client_filter(ALL, user_id))
        for point in found:
            self._apply(point.payload)
            with translated("clear the change journal"):
                self.client.delete(JOURNAL, points_selector=m.PointIdsList(points=[point.id]), wait=True)
        return len(found)

    # -- reading ----------------------------------------------------------------------------------
    def _hit(self, user_id: str, point: Any, with_vectors: bool, report: LoadReport | None) -> Hit | None:
        return pts.to_hit(user_id, point, with_vectors=with_vectors, report=report, unseal=None)

    def load_report(self, user_id: str) -> LoadReport:
        return LoadReport([u for u in self._report.unreadable])

    def get(self, user_id: str, memory_ids: Sequence[str], *, with_vectors: bool = False) -> list[Hit]:
        name = self._collection(user_id, MEMORIES)
        ids = [i for i in memory_ids if is_uuid(i)]
        if name is None or not ids:
            return []
        with translated("read memories"):
            found = self.client.retrieve(name, ids=ids, with_payload=True,
                                         with_vectors=[pts.DENSE, pts.SPARSE] if with_vectors else False)
        hits = [h for h in (self._hit(user_id, p, with_vectors, self._report) for p in found) if h is not None]
        order = {i: n for n, i in enumerate(ids)}
        return sorted(hits, key=lambda h: order.get(h.record.id, 0))

    def count(self, user_id: str, scope: Scope = ALL, *, space: str = MEMORIES) -> int:
        name = self._collection(user_id, space)
        if name is None:
            return 0
        with translated("count memories"):
            return int(self.client.count(name, count_filter=client_filter(scope, user_id), exact=True).count)

    def neighbours(self, user_id: str, vectors: np.ndarray, *, limit: int, min_score: float,
                   scope: Scope, known: Collection[str] = ()) -> list[list[Hit]]:
        from qdrant_client import models as m

        name = self._collection(user_id, MEMORIES)
        vectors = np.asarray(vectors, dtype=np.float32)
        if name is None or not len(vectors):
            return [[] for _ in vectors]
        flt = client_filter(scope, user_id)
        with translated("search memories"):
            batch = self.client.query_batch_points(name, requests=[
                m.QueryRequest(query=v.tolist(), using=pts.DENSE, filter=flt, limit=limit, score_threshold=min_score,
                               with_payload=False, with_vector=False) for v in vectors])

        def read(ids: list[str]) -> dict[str, Hit]:
            with translated("read memories"):
                found = self.client.retrieve(name, ids=ids, with_payload=True, with_vectors=[pts.DENSE])
            hits = ((str(p.id), self._hit(user_id, p, True, self._report)) for p in found)
            return {key: hit for key, hit in hits if hit is not None}

        return pts.neighbour_lists((found.points for found in batch), read, known)

    def search(self, user_id: str, request: SearchRequest) -> SearchResult:
        from qdrant_client import models as m

        name = self._collection(user_id, MEMORIES)
        if name is None:
            return SearchResult([])
        flt = client_filter(request.scope, user_id)
        channels = [m.Prefetch(query=channel_query(c), using=c.using, filter=flt, limit=c.limit,
                               score_threshold=c.score_threshold) for c in request.channels]
        fused = m.Prefetch(prefetch=channels, limit=max(c.limit for c in request.channels),
                           query=m.RrfQuery(rrf=m.Rrf(k=request.rrf_k, weights=list(request.weights))))
        main = m.QueryRequest(prefetch=[fused], query=m.FormulaQuery(formula=compile_formula(request.formula)),
                              limit=request.limit, with_payload=True, with_vector=[pts.DENSE, pts.SPARSE])
        with translated("search memories"):
            found = self.client.query_batch_points(name, requests=[main])
        hits = [h for h in (self._hit(user_id, p, True, self._report) for p in found[0].points) if h is not None]
        return SearchResult(hits)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()
