"""Qdrant Edge's side of the recall plan: scopes as filters, channels as queries, the formula as expressions."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from . import points as pts
from .values import Scope, SearchRequest, conditions


def channel_query(channel: Any) -> Any:
    from qdrant_edge import Query, SparseVector

    if channel.using == pts.SPARSE:
        return Query.Nearest(SparseVector(*channel.vector), using=pts.SPARSE)
    return Query.Nearest(list(channel.vector), using=pts.DENSE)


def user_condition(tenant: str) -> Any:
    from qdrant_edge import FieldCondition, MatchValue

    return FieldCondition(key="user_id", match=MatchValue(tenant))


def user_points(tenant: str, memory_ids: Sequence[str] | None = None) -> Any:
    """A filter for one user's points, by the tenant they hold (those of `memory_ids` only, if given): deletes and
    updates go through it, so no change can reach another user's point in a shared shard."""
    from qdrant_edge import Filter, HasIdCondition

    must = [user_condition(tenant)]
    if memory_ids is not None:
        must.append(HasIdCondition(set(memory_ids)))
    return Filter(must=must)


def edge_filter(scope: Scope, tenant: str, digest: Callable[[str], str] | None = None) -> Any:
    """A `Scope`, always narrowed to one user's tenant, as a Qdrant Edge filter (`server_query.client_filter`'s plan).

    With `digest`, a session or agent id matches its keyed digest or, for points written before ids were sealed, the id.
    """
    from qdrant_edge import FieldCondition, Filter, MatchAny, MatchValue, RangeFloat

    must = [user_condition(tenant)]
    for kind, key, *args in conditions(scope):
        if kind == "any":
            must.append(FieldCondition(key=key, match=MatchAny(args[0])))
        elif kind == "eq" and digest is not None and key in pts.ID_FIELDS:
            must.append(FieldCondition(key=key, match=MatchAny([digest(args[0]), args[0]])))
        elif kind == "eq":
            must.append(FieldCondition(key=key, match=MatchValue(args[0])))
        else:
            must.append(FieldCondition(key=key, range=RangeFloat(gte=args[0], lt=args[1])))
    return Filter(must=must)


def engine_batch(request: SearchRequest, flt: Any) -> Any:
    """A recall plan as a Qdrant Edge query batch of one: the fused, rescored query."""
    from qdrant_edge import Formula, Fusion, Prefetch, QueryBatchRequest, QueryRequest

    channels = [Prefetch(limit=c.limit, query=channel_query(c), filter=flt, score_threshold=c.score_threshold)
                for c in request.channels]
    # qdrant-edge-py 0.9's type stub leaves `Fusion.Rrf` out of what `Prefetch.query` takes; the engine takes it
    fused = Prefetch(limit=max(c.limit for c in request.channels), prefetches=channels,
                     query=Fusion.Rrf(k=request.rrf_k, weights=list(request.weights)))  # type: ignore[arg-type]
    main = QueryRequest(limit=request.limit, prefetches=[fused], query=Formula(compile_formula(request.formula)),
                        with_payload=True, with_vector=[pts.DENSE, pts.SPARSE])
    return QueryBatchRequest([main])


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
