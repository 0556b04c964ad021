"""A small expression tree for the ranking formula, compiled for each engine.

The recall plan states its formula once, as nested tuples; `to_edge` and
`to_client` turn it into Qdrant Edge's `Expression` and qdrant-client's
`*Expression` models, and `evaluate` computes it in numpy (for tests against
hand-computed values and for explanations). Only arithmetic both engines
implement is used: constants, payload variables, the fused score, sums,
products, negation, division, exp and max.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

Expr = tuple

SCORE = "$score"


def const(x: float) -> Expr:
    return ("const", float(x))


def var(name: str) -> Expr:
    return ("var", name)


def mul(*xs: Expr) -> Expr:
    return ("mul", tuple(xs))


def add(*xs: Expr) -> Expr:
    return ("sum", tuple(xs))


def neg(x: Expr) -> Expr:
    return ("neg", x)


def exp(x: Expr) -> Expr:
    return ("exp", x)


def div(a: Expr, b: Expr) -> Expr:
    return ("div", a, b)


def maximum(*xs: Expr) -> Expr:
    return ("max", tuple(xs))


def variables(tree: Expr) -> set[str]:
    kind = tree[0]
    if kind == "var":
        return {tree[1]}
    if kind == "const":
        return set()
    if kind in ("mul", "sum", "max"):
        return set().union(*(variables(x) for x in tree[1]))
    if kind == "div":
        return variables(tree[1]) | variables(tree[2])
    return variables(tree[1])


def evaluate(tree: Expr, values: Mapping[str, Any]) -> np.ndarray:
    """The formula over arrays of variable values (one entry per point)."""
    kind = tree[0]
    if kind == "const":
        return np.asarray(tree[1], dtype=np.float64)
    if kind == "var":
        return np.asarray(values[tree[1]], dtype=np.float64)
    if kind == "mul":
        out = np.asarray(1.0)
        for x in tree[1]:
            out = out * evaluate(x, values)
        return out
    if kind == "sum":
        return sum((evaluate(x, values) for x in tree[1]), np.asarray(0.0))
    if kind == "max":
        return np.maximum.reduce([np.broadcast_to(evaluate(x, values), np.shape(evaluate(tree[1][0], values)))
                                  for x in tree[1]]) if len(tree[1]) > 1 else evaluate(tree[1][0], values)
    if kind == "neg":
        return -evaluate(tree[1], values)
    if kind == "exp":
        return np.exp(evaluate(tree[1], values))
    if kind == "div":
        return evaluate(tree[1], values) / evaluate(tree[2], values)
    raise ValueError(f"unknown expression {kind!r}")


def to_edge(tree: Expr) -> Any:
    from qdrant_edge import Expression as E

    kind = tree[0]
    if kind == "const":
        return E.Constant(tree[1])
    if kind == "var":
        return E.Variable(tree[1])
    if kind == "mul":
        return E.Mult([to_edge(x) for x in tree[1]])
    if kind == "sum":
        return E.Sum([to_edge(x) for x in tree[1]])
    if kind == "max":
        return E.Max([to_edge(x) for x in tree[1]])
    if kind == "neg":
        return E.Neg(to_edge(tree[1]))
    if kind == "exp":
        return E.Exp(to_edge(tree[1]))
    if kind == "div":
        return E.Div(to_edge(tree[1]), to_edge(tree[2]), by_zero_default=0.0)
    raise ValueError(f"unknown expression {kind!r}")


def to_client(tree: Expr) -> Any:
    from qdrant_client import models as m

    kind = tree[0]
    if kind == "const":
        return tree[1]
    if kind == "var":
        return tree[1]
    if kind == "mul":
        return m.MultExpression(mult=[to_client(x) for x in tree[1]])
    if kind == "sum":
        return m.SumExpression(sum=[to_client(x) for x in tree[1]])
    if kind == "max":
        return m.MaxExpression(max=[to_client(x) for x in tree[1]])
    if kind == "neg":
        return m.NegExpression(neg=to_client(tree[1]))
    if kind == "exp":
        return m.ExpExpression(exp=to_client(tree[1]))
    if kind == "div":
        return m.DivExpression(div=m.DivParams(left=to_client(tree[1]), right=to_client(tree[2]), by_zero_default=0.0))
    raise ValueError(f"unknown expression {kind!r}")
