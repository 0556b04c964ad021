"""Reading a store written by hindsight 0.1 (qdrant-client's local mode), to move it to the new engine.

0.1 kept, in one folder opened with `QdrantClient(path=...)`: a registry
collection `hindsight_users` (payload: user id, collection, embedding model,
dimension), one collection per user (`hindsight_u_<sha256[:32]>`, vector
"dense", payload = `payload.record_to_dict(record)`), and per-user archive
collections (`hindsight_a_…`, payload + an "archived" stamp). Only this
module knows that layout; `maintenance.migrate_legacy` copies from it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from ..errors import HindsightError
from ..types import MemoryRecord
from .base import ARCHIVE, MEMORIES
from ..contract.records import record_from_payload
from .payload import UnreadableRecord

_PREFIX = {MEMORIES: "hindsight_u_", ARCHIVE: "hindsight_a_"}


class LegacyStore:
    """Read-only view of a 0.1 store folder."""

    def __init__(self, path: str | Path) -> None:
        from qdrant_client import QdrantClient

        root = Path(path)
        if not (root / "collection").is_dir():
            raise HindsightError(f"{root} is not a hindsight 0.1 store (no collection/ folder)")
        self.client = QdrantClient(path=str(root))

    def users(self) -> list[dict[str, Any]]:
        """The registry entries: user_id, embedding_model, dimension."""
        if not self.client.collection_exists("hindsight_users"):
            return []
        out, offset = [], None
        while True:
            found, offset = self.client.scroll("hindsight_users", limit=1000, offset=offset, with_payload=True)
            out.extend(dict(p.payload) for p in found if p.payload and "user_id" in p.payload)
            if offset is None:
                return sorted(out, key=lambda e: e["user_id"])

    def load(self, user_id: str, space: str) -> Iterator[tuple[MemoryRecord, np.ndarray, dict[str, Any]]]:
        name = _PREFIX[space] + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:32]
        if not self.client.collection_exists(name):
            return
        fields = set(MemoryRecord.__dataclass_fields__)
        offset = None
        while True:
            found, offset = self.client.scroll(name, limit=512, offset=offset, with_payload=True,
                                               with_vectors=["dense"])
            for point in found:
                payload = point.payload or {}
                if payload.get("user_id") != user_id:
                    continue
                vector = point.vector["dense"] if isinstance(point.vector, dict) else point.vector
                extra = {k: v for k, v in payload.items() if k not in fields}
                record, problem = record_from_payload(payload)
                if record is None:
                    raise UnreadableRecord(f"memory {point.id} of the old store: {problem}")
                yield record, np.asarray(vector, dtype=np.float32), extra
            if offset is None:
                return

    def close(self) -> None:
        self.client.close()
