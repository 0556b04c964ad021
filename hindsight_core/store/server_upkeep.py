"""The server store's maintenance side (`MaintenanceStore`): listing, users, spaces, upkeep, metadata.

`ServerStore` (`hindsight_core.store.server`) takes these methods from
`ServerUpkeep`; none of them is on the recall path.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..errors import HindsightError
from ..types import MemoryRecord
from . import points as pts
from .fields import is_uuid
from .server_query import JOURNAL, META, NAMESPACE, REGISTRY, client_filter, registry_id, translated
from .values import ALL, MEMORIES, SPACES, Hit, Scope


class ServerUpkeep:
    """`MaintenanceStore` for `ServerStore` (a mixin: the client and collections are the hot path's)."""

    client: Any

    # -- users ------------------------------------------------------------------------------------
    def users(self) -> list[str]:
        out: list[str] = []
        offset = None
        with translated("list users"):
            while True:
                found, offset = self.client.scroll(REGISTRY, limit=1000, offset=offset, with_payload=True)
                out.extend(p.payload["user_id"] for p in found if p.payload)
                if offset is None:
                    return sorted(out)

    def drop_user(self, user_id: str) -> None:
        from qdrant_client import models as m

        with translated("delete the user's memories"):
            for space in SPACES:
                name = self._collection(user_id, space)
                if name is not None:
                    self.client.delete(name, points_selector=m.FilterSelector(filter=client_filter(ALL, user_id)),
                                       wait=True)
            self.client.delete(JOURNAL, points_selector=m.FilterSelector(filter=client_filter(ALL, user_id)), wait=True)
            self.client.delete(REGISTRY, points_selector=m.PointIdsList(points=[registry_id(user_id)]), wait=True)
        self._known.pop(user_id, None)

    # -- listing ----------------------------------------------------------------------------------
    def _scroll(self, user_id: str, space: str, scope: Scope, with_vectors: bool) -> Iterator[Any]:
        name = self._collection(user_id, space)
        if name is None:
            return
        offset = None
        while True:
            with translated("read memories"):
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

    # -- upkeep -------------------------------------------------------------------------------------
    def optimize(self, user_id: str) -> bool:
        return False  # the server's own optimiser indexes and vacuums

    def compact(self, user_id: str | None = None) -> int:
        return 0  # the server's own optimiser vacuums

    def disk_usage(self) -> int | None:
        return None

    # -- maintenance spaces ---------------------------------------------------------------------------
    def registered_embedding(self, user_id: str) -> tuple[str, int] | None:
        entry = self._entry(user_id)
        return (entry["embedding_model"], int(entry["dimension"])) if entry else None

    def set_registered_embedding(self, user_id: str, model: str, dimension: int) -> None:
        from qdrant_client import models as m

        entry = {"user_id": user_id, "embedding_model": model, "dimension": int(dimension)}
        with translated("update the user registry"):
            self.client.upsert(REGISTRY, points=[m.PointStruct(id=registry_id(user_id), vector={}, payload=entry)],
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
            self._delete(name, [i for i in memory_ids if is_uuid(i)])

    def drop_space(self, user_id: str, space: str) -> None:
        from qdrant_client import models as m

        name = self._collection(user_id, space)
        if name is not None:
            with translated("delete a space"):
                self.client.delete(name, points_selector=m.FilterSelector(filter=client_filter(ALL, user_id)),
                                   wait=True)

    def get_meta(self, key: str) -> dict[str, Any] | None:
        with translated("read store metadata"):
            found = self.client.retrieve(META, ids=[str(uuid.uuid5(NAMESPACE, "meta:" + key))], with_payload=True)
        if found and found[0].payload and found[0].payload.get("key") == key:
            return dict(found[0].payload.get("value") or {})
        return None

    def set_meta(self, key: str, value: dict[str, Any] | None) -> None:
        from qdrant_client import models as m

        point_id = str(uuid.uuid5(NAMESPACE, "meta:" + key))
        with translated("write store metadata"):
            if value is None:
                self.client.delete(META, points_selector=m.PointIdsList(points=[point_id]), wait=True)
            else:
                self.client.upsert(META, points=[m.PointStruct(id=point_id, vector={},
                                                               payload={"key": key, "value": value})], wait=True)
