"""qdrant-client's side of the recall plan: scopes as filters (always narrowed to one user), channels as
queries, the formula as expressions."""

from __future__ import annotations

from typing import Any

from . import points as pts
from .base import Scope


def channel_query(channel: Any) -> Any:
    from qdrant_client import models as m

    if channel.using == pts.SPARSE:
        return m.SparseVector(indices=list(channel.vector[0]), values=list(channel.vector[1]))
    return list(channel.vector)


def client_filter(scope: Scope, user_id: str) -> Any:
    """A `Scope` (always narrowed to one user) as a qdrant-client filter."""
    from qdrant_client import models as m

    must: list[Any] = [m.FieldCondition(key="user_id", match=m.MatchValue(value=user_id))]

    def any_of(key: str, values: Any) -> None:
        must.append(m.FieldCondition(key=key, match=m.MatchAny(
            any=sorted(v.value if hasattr(v, "value") else str(v) for v in values))))

    if scope.statuses is not None:
        any_of("status", scope.statuses)
    if scope.layers is not None:
        any_of("layer", scope.layers)
    if scope.event_types is not None:
        any_of("event_type", scope.event_types)
    if scope.session_id is not None:
        must.append(m.FieldCondition(key="session_id", match=m.MatchValue(value=scope.session_id)))
    if scope.agent_id is not None:
        must.append(m.FieldCondition(key="agent_id", match=m.MatchValue(value=scope.agent_id)))
    if scope.start is not None or scope.end is not None:
        must.append(m.FieldCondition(key="ts_days", range=m.Range(
            gte=pts.epoch_days(scope.start) if scope.start else None,
            lt=pts.epoch_days(scope.end) if scope.end else None)))
    if scope.unconsolidated:
        must.append(m.FieldCondition(key="is_consolidated", range=m.Range(lt=0.5)))
    for digest in pts.metadata_digests(scope.metadata or {}):
        must.append(m.FieldCondition(key="meta_keys", match=m.MatchValue(value=digest)))
    return m.Filter(must=must)


def compile_formula(tree: tuple) -> Any:
    """The recall plan's formula (`recall.formula`) as qdrant-client expressions."""
    from qdrant_client import models as m

    kind = tree[0]
    if kind == "const":
        return tree[1]
    if kind == "var":
        return tree[1]
    if kind == "mul":
        return m.MultExpression(mult=[compile_formula(x) for x in tree[1]])
    if kind == "sum":
        return m.SumExpression(sum=[compile_formula(x) for x in tree[1]])
    if kind == "max":
        return m.MaxExpression(max=[compile_formula(x) for x in tree[1]])
    if kind == "neg":
        return m.NegExpression(neg=compile_formula(tree[1]))
    if kind == "exp":
        return m.ExpExpression(exp=compile_formula(tree[1]))
    if kind == "div":
        return m.DivExpression(div=m.DivParams(left=compile_formula(tree[1]), right=compile_formula(tree[2]), by_zero_default=0.0))
    raise ValueError(f"unknown expression {kind!r}")
