"""Qdrant Edge's side of the recall plan: scopes as filters, channels as queries, the formula as expressions."""

from __future__ import annotations

from typing import Any

from . import points as pts
from .base import Scope


def channel_query(channel: Any) -> Any:
    from qdrant_edge import Query, SparseVector

    if channel.using == pts.SPARSE:
        return Query.Nearest(SparseVector(*channel.vector), using=pts.SPARSE)
    return Query.Nearest(list(channel.vector), using=pts.DENSE)


def edge_filter(scope: Scope) -> Any:
    """A `Scope` as a Qdrant Edge filter (None when it narrows nothing)."""
    from qdrant_edge import FieldCondition, Filter, MatchAny, MatchValue, RangeFloat

    must: list[Any] = []

    def any_of(key: str, values: Any) -> None:
        values = sorted(v.value if hasattr(v, "value") else str(v) for v in values)
        must.append(FieldCondition(key=key, match=MatchAny(values)))

    if scope.statuses is not None:
        any_of("status", scope.statuses)
    if scope.layers is not None:
        any_of("layer", scope.layers)
    if scope.event_types is not None:
        any_of("event_type", scope.event_types)
    if scope.session_id is not None:
        must.append(FieldCondition(key="session_id", match=MatchValue(scope.session_id)))
    if scope.agent_id is not None:
        must.append(FieldCondition(key="agent_id", match=MatchValue(scope.agent_id)))
    if scope.start is not None or scope.end is not None:
        must.append(FieldCondition(key="ts_days", range=RangeFloat(
            gte=pts.epoch_days(scope.start) if scope.start else None,
            lt=pts.epoch_days(scope.end) if scope.end else None)))
    if scope.unconsolidated:
        must.append(FieldCondition(key="is_consolidated", range=RangeFloat(lt=0.5)))
    for digest in pts.metadata_digests(scope.metadata or {}):
        must.append(FieldCondition(key="meta_keys", match=MatchValue(digest)))
    return Filter(must=must) if must else None


def compile_formula(tree: tuple) -> Any:
    """The recall plan's formula (`recall.formula`) as Qdrant Edge expressions."""
    from qdrant_edge import Expression as E

    kind = tree[0]
    if kind == "const":
        return E.Constant(tree[1])
    if kind == "var":
        return E.Variable(tree[1])
    if kind == "mul":
        return E.Mult([compile_formula(x) for x in tree[1]])
    if kind == "sum":
        return E.Sum([compile_formula(x) for x in tree[1]])
    if kind == "max":
        return E.Max([compile_formula(x) for x in tree[1]])
    if kind == "neg":
        return E.Neg(compile_formula(tree[1]))
    if kind == "exp":
        return E.Exp(compile_formula(tree[1]))
    if kind == "div":
        return E.Div(compile_formula(tree[1]), compile_formula(tree[2]), by_zero_default=0.0)
    raise ValueError(f"unknown expression {kind!r}")
