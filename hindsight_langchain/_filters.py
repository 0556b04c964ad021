"""LangGraph's store filter and namespace-match rules, applied to hindsight items."""

from __future__ import annotations

from typing import Any, Mapping

from langgraph.store.base import MatchCondition

from hindsight_core import InvalidInputError

_COMPARE = {
    "$gt": lambda a, b: float(a) > float(b),
    "$gte": lambda a, b: float(a) >= float(b),
    "$lt": lambda a, b: float(a) < float(b),
    "$lte": lambda a, b: float(a) <= float(b),
}


def _apply(value: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return bool(value == operand)
    if operator == "$ne":
        return bool(value != operand)
    if operator not in _COMPARE:
        raise InvalidInputError(f"unsupported filter operator {operator!r}; use $eq, $ne, $gt, $gte, $lt or $lte")
    try:
        return bool(_COMPARE[operator](value, operand))
    except (TypeError, ValueError):
        return False  # a missing or non-numeric field does not match a numeric comparison


def matches_value(value: Any, wanted: Any) -> bool:
    """LangGraph's filter semantics: operators, nested mappings, lists element by element, else equality."""
    if isinstance(wanted, Mapping):
        if any(str(k).startswith("$") for k in wanted):
            return all(_apply(value, op, operand) for op, operand in wanted.items())
        return isinstance(value, Mapping) and all(matches_value(value.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (isinstance(value, (list, tuple)) and len(value) == len(wanted)
                and all(matches_value(a, b) for a, b in zip(value, wanted)))
    return bool(value == wanted)


def matches_filter(value: Mapping[str, Any], filter: Mapping[str, Any]) -> bool:
    """Whether an item's value passes a store search filter."""
    return all(matches_value(value.get(key), wanted) for key, wanted in filter.items())


def matches_namespace(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    """Whether a namespace meets a prefix or suffix condition ('*' matches any one label)."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path))
    else:
        raise InvalidInputError(f"unsupported namespace match type {condition.match_type!r}; use prefix or suffix")
    return all(p == "*" or n == p for n, p in pairs)
