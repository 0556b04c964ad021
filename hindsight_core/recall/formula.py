"""A small expression tree for the ranking formula, compiled for each engine.

The recall plan states its formula once, as nested tuples; each backend
compiles it for its engine (`store.edge.compile_formula`,
`store.server.compile_formula`), and `evaluate` computes it in numpy (for
tests against hand-computed values). Only arithmetic both engines
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
