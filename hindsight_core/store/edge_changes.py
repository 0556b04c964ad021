"""Changes as Qdrant Edge update operations on a shard every user shares, each narrowed to one user.

Upserts are conditional on the stored point belonging to the same user, and deletes and field updates go through a
filter on the user (`edge_query.user_points`), named by the tenant their points hold (`EdgeStore._tenant`), so no change
reaches another user's point. The same functions replay a change on a copy being indexed (`apply_change`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .edge_query import user_points
from .fields import DENSE, ID_FIELDS, SPARSE, TEXT_FIELDS
from .payload import field_updates


def upsert_points(shard: Any, points: list[dict], tenant: str | None = None) -> None:
    """Write one user's points (dicts with id, dense, sparse, payload), 1,024 to an engine update (without
    `tenant`, unconditionally: only for a shard being made)."""
    from qdrant_edge import Point, SparseVector, UpdateOperation

    owned = user_points(tenant) if tenant is not None else None
    for start in range(0, len(points), 1024):
        shard.update(UpdateOperation.upsert_points([
            Point(id=p["id"], vector={DENSE: p["dense"], SPARSE: SparseVector(*p["sparse"])}, payload=p["payload"])
            for p in points[start:start + 1024]], condition=owned))


def set_fields(shard: Any, updates: Sequence[tuple[str, dict[str, Any]]], tenant: str) -> None:
    """Partial record updates, one engine update per distinct change (`payload.field_updates`)."""
    from qdrant_edge import UpdateOperation

    for memory_ids, fields in field_updates(updates, fixed=TEXT_FIELDS + ID_FIELDS):
        shard.update(UpdateOperation.set_payload_by_filter(user_points(tenant, memory_ids), fields))


def delete_points(shard: Any, memory_ids: Sequence[str], tenant: str) -> None:
    from qdrant_edge import UpdateOperation

    if memory_ids:
        shard.update(UpdateOperation.delete_points_by_filter(user_points(tenant, list(memory_ids))))


def delete_user(shard: Any, tenant: str) -> None:
    from qdrant_edge import UpdateOperation

    shard.update(UpdateOperation.delete_points_by_filter(user_points(tenant)))


def apply_change(shard: Any, kind: str, change: Any) -> None:
    """Apply a change the store applied to a live shard to another shard (a copy being indexed); idempotent.

    Kinds: "entry" (a committed change, with its user's `tenant`), "fields" ((tenant, updates)), "drop" (a tenant).
    """
    if kind == "entry":
        tenant = change["tenant"]
        if change["upserts"]:
            upsert_points(shard, change["upserts"], tenant)
        if change["updates"]:
            set_fields(shard, [(m, f) for m, f in change["updates"]], tenant)
        delete_points(shard, change["deletes"], tenant)
    elif kind == "drop":
        delete_user(shard, change)
    else:
        tenant, updates = change
        set_fields(shard, updates, tenant)
