"""qdrant-client's side of the store: scopes as filters (always narrowed to one user), channels as queries,
the formula as expressions; the fixed collection names, and server errors as hindsight's."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

from ..errors import HindsightError, StoreUnavailableError
from . import points as pts
from .values import Scope, conditions

REGISTRY, JOURNAL, META = "hindsight_users", "hindsight_journal", "hindsight_meta"
NAMESPACE = uuid.UUID("6f1d8a52-3c2e-4b7a-9a57-1f0c9f3b8e21")


@contextlib.contextmanager
def translated(what: str) -> Iterator[None]:
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


def registry_id(user_id: str) -> str:
    return str(uuid.uuid5(NAMESPACE, user_id))


def channel_query(channel: Any) -> Any:
    from qdrant_client import models as m

    if channel.using == pts.SPARSE:
        return m.SparseVector(indices=list(channel.vector[0]), values=list(channel.vector[1]))
    return list(channel.vector)


def client_filter(scope: Scope, user_id: str) -> Any:
    """A `Scope` (always narrowed to one user) as a qdrant-client filter."""
    from qdrant_client import models as m

    must: list[Any] = [m.FieldCondition(key="user_id", match=m.MatchValue(value=user_id))]
    for kind, key, *args in conditions(scope):
        if kind == "any":
            must.append(m.FieldCondition(key=key, match=m.MatchAny(any=args[0])))
        elif kind == "eq":
            must.append(m.FieldCondition(key=key, match=m.MatchValue(value=args[0])))
        else:
            must.append(m.FieldCondition(key=key, range=m.Range(gte=args[0], lt=args[1])))
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
