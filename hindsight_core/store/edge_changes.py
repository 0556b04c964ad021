"""Changes as Qdrant Edge update operations: upserts, field updates, and replaying a change on another shard."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .fields import DENSE, ID_FIELDS, SPARSE, TEXT_FIELDS
from .payload import field_updates


def upsert_points(shard: Any, points: list[dict]) -> None:
    """Write points (dicts with id, dense, sparse, payload), 1,024 to an engine update."""
    from qdrant_edge import Point, SparseVector, UpdateOperation

    for start in range(0, len(points), 1024):
        shard.update(UpdateOperation.upsert_points([
            Point(id=p["id"], vector={DENSE: p["dense"], SPARSE: SparseVector(*p["sparse"])}, payload=p["payload"])
            for p in points[start:start + 1024]]))


def set_fields(shard: Any, updates: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """Partial record updates, one engine update per distinct change (`payload.field_updates`)."""
    from qdrant_edge import UpdateOperation

    for memory_ids, fields in field_updates(updates, fixed=TEXT_FIELDS + ID_FIELDS):
        shard.update(UpdateOperation.set_payload(memory_ids, fields))


def apply_change(shard: Any, kind: str, change: Any) -> None:
    """Apply a change the store applied to a live shard to another shard (a copy being indexed); idempotent."""
    from qdrant_edge import UpdateOperation

    if kind == "entry":
        if change["upserts"]:
            upsert_points(shard, change["upserts"])
        if change["updates"]:
            set_fields(shard, [(m, f) for m, f in change["updates"]])
        if change["deletes"]:
            shard.update(UpdateOperation.delete_points(list(change["deletes"])))
    else:
        set_fields(shard, change)
