"""A Qdrant server through qdrant-client, running the same recall plan as the embedded store.

Layout, after Qdrant's multitenancy guidance: one collection per space and
vector size (`hindsight_memories_d384`, `hindsight_archive_d384`, …) holding
every user's points, with a tenant-indexed `user_id` payload field that every
request filters on; `hindsight_users` (the registry), `hindsight_journal` and
`hindsight_meta` hold small payload-only points. Nothing is cached per
process except the registry entries, which never change under a user's feet
(a migration swaps them while the store is not in use), so every process sees
every acknowledged write on its next request.

Payload text is stored in the clear here: the server's own write-ahead log
and optimiser decide when a deleted point's bytes leave its disk (SECURITY.md).
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Any, Iterator, Sequence

import numpy as np

from ..errors import HindsightError, StoreUnavailableError
from ..types import MemoryRecord
from . import points as pts
from .base import ALL, MEMORIES, SPACES, Hit, LoadReport, Scope, SearchRequest, SearchResult, check_registered
from .server_query import channel_query, client_filter, compile_formula

REGISTRY, JOURNAL, META = "hindsight_users", "hindsight_journal", "hindsight_meta"
_NAMESPACE = uuid.UUID("6f1d8a52-3c2e-4b7a-9a57-1f0c9f3b8e21")


@contextlib.contextmanager
def _translated(what: str) -> Iterator[None]:
    """Backend errors as hindsight's: an unreachable server says so and what to check."""
    try:
        yield
    except HindsightError:
        raise
    except Exception as exc:
        name = type(exc).__name__
        if any(word in name for word in ("Connect", "Timeout", "ResponseHandling", "RpcError", "Unavailable")):
            raise StoreUnavailableError(f"cannot reach the Qdrant server while trying to {what}: {exc}") from exc
        raise


def _registry_id(user_id: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, user_id))


class ServerStore:
    """Memories on a Qdrant server (`url`), or on any `QdrantClient` given as `client`."""

    embedded = False

    def __init__(self, url: str | None = None, *, api_key: str | None = None, client: Any = None,
                 timeout: float = 10.0) -> None:
        from qdrant_client import QdrantClient

        if (url is None) == (client is None):
            raise HindsightError("give exactly one of url= or client= to ServerStore")
        self.description = url or "client"
        with _translated("open the store"):
            self.client = client if client is not None else QdrantClient(url=url, api_key=api_key,
                                                                          timeout=int(timeout))
            for name in (REGISTRY, JOURNAL, META):
                if not self.client.collection_exists(name):
                    self.client.create_collection(name, vectors_config={})
        self._known: dict[str, dict[str, Any]] = {}
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

        with _translated("create a collection"):
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
                        for key in ("status", "layer", "event_type", "session_id", "agent_id", "meta_keys"):
                            self.client.create_payload_index(name, key, m.PayloadSchemaType.KEYWORD)
                        for key in ("ts_days", "is_consolidated"):
                            self.client.create_payload_index(name, key, m.PayloadSchemaType.FLOAT)
        self._collections.add(name)
        return name

    def _dimension(self, user_id: str) -> int | None:
        entry = self._entry(user_id)
        return int(entry["dimension"]) if entry else None

    def _user_filter(self, user_id: str, scope: Scope) -> Any:
        return client_filter(scope, user_id)

    # -- users ------------------------------------------------------------------------------------
    def _entry(self, user_id: str) -> dict[str, Any] | None:
        if user_id in self._known:
            return self._known[user_id]
        with _translated("read the user registry"):
            found = self.client.retrieve(REGISTRY, ids=[_registry_id(user_id)], with_payload=True)
        if found and found[0].payload and found[0].payload.get("user_id") == user_id:
            self._known[user_id] = dict(found[0].payload)
            return self._known[user_id]
        return None

    def open_user(self, user_id: str, *, embedding_model: str, dimension: int, create: bool) -> bool:
        entry = self._entry(user_id)
        if entry is not None:
            check_registered(entry, embedding_model, dimension)
            return True
        if not create:
            return False
        self.set_registered_embedding(user_id, embedding_model, dimension)
        self._collection(user_id, MEMORIES, dimension=dimension)
        return True

    def users(self) -> list[str]:
        out: list[str] = []
        offset = None
        with _translated("list users"):
            while True:
                found, offset = self.client.scroll(REGISTRY, limit=1000, offset=offset, with_payload=True)
                out.extend(p.payload["user_id"] for p in found if p.payload)
                if offset is None:
                    return sorted(out)

    def drop_user(self, user_id: str) -> None:
        from qdrant_client import models as m

        with _translated("delete the user's memories"):
            for space in SPACES:
                name = self._collection(user_id, space)
                if name is not None:
                    self.client.delete(name, points_selector=m.FilterSelector(filter=client_filter(ALL, user_id)),
                                       wait=True)
            self.client.delete(JOURNAL, points_selector=m.FilterSelector(filter=client_filter(ALL, user_id)),
                               wait=True)
            self.client.delete(REGISTRY, points_selector=m.PointIdsList(points=[_registry_id(user_id)]), wait=True)
        self._known.pop(user_id, None)

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
        with _translated("store memories"):
            for start in range(0, len(structs), 256):
                self.client.upsert(name, points=structs[start:start + 256], wait=True)

    def _set_fields(self, name: str, updates: Sequence[tuple[str, dict[str, Any]]]) -> None:
        with _translated("update a memory"):
            for memory_id, fields in updates:
                fields = dict(fields)
                if any(key in pts.TEXT_FIELDS for key in fields):
                    raise HindsightError("text fields change only by writing the record again")
                fields.update(pts.derived_fields(fields))
                self.client.set_payload(name, payload=fields, points=[memory_id], wait=True)

    def _delete(self, name: str, memory_ids: Sequence[str]) -> None:
        from qdrant_client import models as m

        if memory_ids:
            with _translated("delete memories"):
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
        with _translated("write the change journal"):
            self.client.upsert(JOURNAL, points=[m.PointStruct(id=entry_id, vector={}, payload=entry)], wait=True)
        self._apply(entry)
        with _translated("clear the change journal"):
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

        with _translated("read the change journal"):
            found, _ = self.client.scroll(JOURNAL, limit=10_000, with_payload=True,
                                          scroll_filter=client_filter(ALL, user_id))
        for point in found:
            self._apply(point.payload)
            with _translated("clear the change journal"):
                self.client.delete(JOURNAL, points_selector=m.PointIdsList(points=[point.id]), wait=True)
        return len(found)

    # -- reading ----------------------------------------------------------------------------------
    def _hit(self, user_id: str, point: Any, with_vectors: bool, report: LoadReport | None) -> Hit | None:
        return pts.to_hit(user_id, point, with_vectors=with_vectors, report=report, unseal=None)

    def load_report(self, user_id: str) -> LoadReport:
        return LoadReport([u for u in self._report.unreadable])

    def get(self, user_id: str, memory_ids: Sequence[str], *, with_vectors: bool = False) -> list[Hit]:
        name = self._collection(user_id, MEMORIES)
        ids = [i for i in memory_ids if _is_uuid(i)]
        if name is None or not ids:
            return []
        with _translated("read memories"):
            found = self.client.retrieve(name, ids=ids, with_payload=True,
                                         with_vectors=[pts.DENSE, pts.SPARSE] if with_vectors else False)
        hits = [h for h in (self._hit(user_id, p, with_vectors, self._report) for p in found) if h is not None]
        order = {i: n for n, i in enumerate(ids)}
        return sorted(hits, key=lambda h: order.get(h.record.id, 0))

    def _scroll(self, user_id: str, space: str, scope: Scope, with_vectors: bool) -> Iterator[Any]:
        name = self._collection(user_id, space)
        if name is None:
            return
        offset = None
        while True:
            with _translated("read memories"):
                found, offset = self.client.scroll(name, limit=1024, offset=offset, with_payload=True,
                                                   scroll_filter=client_filter(scope, user_id),
                                                   with_vectors=[pts.DENSE, pts.SPARSE] if with_vectors else False)
            yield from found
            if offset is None:
                return

    def scan(self, user_id: str, scope: Scope = ALL, *, with_vectors: bool = False,
             space: str = MEMORIES) -> Iterator[Hit]:
        for point in self._scroll(user_id, space, scope, with_vectors):
            hit = self._hit(user_id, point, with_vectors, self._report)
            if hit is not None:
                yield hit

    def count(self, user_id: str, scope: Scope = ALL, *, space: str = MEMORIES) -> int:
        name = self._collection(user_id, space)
        if name is None:
            return 0
        with _translated("count memories"):
            return int(self.client.count(name, count_filter=client_filter(scope, user_id), exact=True).count)

    def neighbours(self, user_id: str, vectors: np.ndarray, *, limit: int, min_score: float,
                   scope: Scope) -> list[list[Hit]]:
        from qdrant_client import models as m

        name = self._collection(user_id, MEMORIES)
        vectors = np.asarray(vectors, dtype=np.float32)
        if name is None or not len(vectors):
            return [[] for _ in vectors]
        flt = client_filter(scope, user_id)
        with _translated("search memories"):
            batch = self.client.query_batch_points(name, requests=[
                m.QueryRequest(query=v.tolist(), using=pts.DENSE, filter=flt, limit=limit, score_threshold=min_score,
                               with_payload=True, with_vector=[pts.DENSE]) for v in vectors])
        return [[h for h in (self._hit(user_id, p, True, self._report) for p in found.points) if h is not None]
                for found in batch]

    def search(self, user_id: str, request: SearchRequest) -> SearchResult:
        from qdrant_client import models as m

        name = self._collection(user_id, MEMORIES)
        if name is None:
            return SearchResult([], [[] for _ in request.probes])
        flt = client_filter(request.scope, user_id)
        channels = [m.Prefetch(query=channel_query(c), using=c.using, filter=flt, limit=c.limit,
                               score_threshold=c.score_threshold) for c in request.channels]
        fused = m.Prefetch(prefetch=channels, limit=max(c.limit for c in request.channels),
                           query=m.RrfQuery(rrf=m.Rrf(k=request.rrf_k, weights=list(request.weights))))
        main = m.QueryRequest(prefetch=[fused], query=m.FormulaQuery(formula=compile_formula(request.formula)),
                              limit=request.limit, with_payload=True, with_vector=[pts.DENSE, pts.SPARSE])
        probes = [m.QueryRequest(query=channel_query(p), using=p.using, filter=flt, limit=p.limit,
                                 score_threshold=p.score_threshold, with_payload=False) for p in request.probes]
        with _translated("search memories"):
            found = self.client.query_batch_points(name, requests=[main, *probes])
        hits = [h for h in (self._hit(user_id, p, True, self._report) for p in found[0].points) if h is not None]
        return SearchResult(hits, [[str(p.id) for p in ranked.points] for ranked in found[1:]])

    # -- upkeep -------------------------------------------------------------------------------------
    def optimize(self, user_id: str) -> bool:
        return False  # the server's own optimiser indexes and vacuums

    def compact(self, user_id: str | None = None) -> int:
        return 0  # the server's own optimiser vacuums

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()

    def disk_usage(self) -> int | None:
        return None

    # -- maintenance spaces ---------------------------------------------------------------------------
    def registered_embedding(self, user_id: str) -> tuple[str, int] | None:
        entry = self._entry(user_id)
        return (entry["embedding_model"], int(entry["dimension"])) if entry else None

    def set_registered_embedding(self, user_id: str, model: str, dimension: int) -> None:
        from qdrant_client import models as m

        entry = {"user_id": user_id, "embedding_model": model, "dimension": int(dimension)}
        with _translated("update the user registry"):
            self.client.upsert(REGISTRY, points=[m.PointStruct(id=_registry_id(user_id), vector={}, payload=entry)],
                               wait=True)
        self._known[user_id] = entry

    def space_exists(self, user_id: str, space: str) -> bool:
        return self.count_space(user_id, space) > 0

    def put_space(self, user_id: str, space: str, records: Sequence[MemoryRecord], vectors: np.ndarray,
                  extras: Sequence[dict[str, Any]] | None = None) -> None:
        if not records:
            return
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(records):
            raise HindsightError("put_space needs one vector per record")
        name = self._collection(user_id, space, dimension=int(vectors.shape[1]))
        self._upsert(name, [self._point(r, v, extras[i] if extras else None)
                            for i, (r, v) in enumerate(zip(records, vectors))])

    def load_space(self, user_id: str, space: str) -> Iterator[tuple[MemoryRecord, np.ndarray, dict[str, Any]]]:
        for point in self._scroll(user_id, space, ALL, True):
            payload = point.payload or {}
            if payload.get("user_id") != user_id:
                continue
            try:
                record, extra = pts.from_payload(payload)
            except pts.UnreadableRecord as exc:
                self._report.unreadable.append((str(point.id), str(exc)))
                continue
            yield record, np.asarray(point.vector[pts.DENSE], dtype=np.float32), extra

    def ids_in_space(self, user_id: str, space: str) -> set[str]:
        return {str(p.id) for p in self._scroll(user_id, space, ALL, False)}

    def count_space(self, user_id: str, space: str) -> int:
        return self.count(user_id, ALL, space=space)

    def ensure_space(self, user_id: str, space: str, dimension: int) -> None:
        self._collection(user_id, space, dimension=int(dimension))

    def delete_from_space(self, user_id: str, space: str, memory_ids: Sequence[str]) -> None:
        name = self._collection(user_id, space)
        if name is not None:
            self._delete(name, [i for i in memory_ids if _is_uuid(i)])

    def drop_space(self, user_id: str, space: str) -> None:
        from qdrant_client import models as m

        name = self._collection(user_id, space)
        if name is not None:
            with _translated("delete a space"):
                self.client.delete(name, points_selector=m.FilterSelector(filter=client_filter(ALL, user_id)),
                                   wait=True)

    def get_meta(self, key: str) -> dict[str, Any] | None:
        with _translated("read store metadata"):
            found = self.client.retrieve(META, ids=[str(uuid.uuid5(_NAMESPACE, "meta:" + key))], with_payload=True)
        if found and found[0].payload and found[0].payload.get("key") == key:
            return dict(found[0].payload.get("value") or {})
        return None

    def set_meta(self, key: str, value: dict[str, Any] | None) -> None:
        from qdrant_client import models as m

        point_id = str(uuid.uuid5(_NAMESPACE, "meta:" + key))
        with _translated("write store metadata"):
            if value is None:
                self.client.delete(META, points_selector=m.PointIdsList(points=[point_id]), wait=True)
            else:
                self.client.upsert(META, points=[m.PointStruct(id=point_id, vector={},
                                                               payload={"key": key, "value": value})], wait=True)


def _is_uuid(value: object) -> bool:
    try:
        uuid.UUID(str(value))
        return True
    except ValueError:
        return False
