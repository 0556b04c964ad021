"""Message priority for the working-memory window, as pure functions.

    priority = w_r · recency + w_q · relevance + w_d · density

with `recency` (two half-lives, in turns and in seconds), `relevance` (the query's cosine on the embedder's scale) and
`density` (the write gate's patterns plus one for confirmations, saturating at `DENSITY_SATURATION` points). The window
is filled greedily from the highest priority down (`select_within_budget`), then emitted in chronological order.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import InvalidInputError
from ..language.entities import extract_entities
from ..write.gate import CORRECTION, FACT, PREFERENCE, TASK_RESULT, TRIVIAL

#: A user or assistant confirming a value; the gate has no pattern for this, since confirmations
#: matter for the next model call but rarely deserve a long-term memory of their own.
CONFIRMATION = re.compile(
    "|".join([
        r"\bconfirm(?:ed|s|ing)?\b", r"\b(?:agreed|settled|approved|locked in|decided)\b",
        r"\blet'?s (?:go with|use|stick with|keep|do)\b", r"\bgo(?:ing)? with\b", r"\bthat works\b",
        r"^\s*(?:yes|yep|yeah|correct|exactly|right)\b[,!.:;]?\s+\S",
        r"确认", r"确定", r"就(?:用|按|这样|定)", r"同意", r"定了", r"没问题",
    ]),
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")

MAX_ENTITY_POINTS = 3.0
CORRECTION_POINTS = 2.0
CONFIRMATION_POINTS = 2.0
PREFERENCE_POINTS = 1.5
FACT_POINTS = 1.0
DENSITY_SATURATION = 4.0


@dataclass(frozen=True)
class PriorityConfig:
    """Weights of the three priority parts and the half-lives of the recency part.

    A half-life of None turns that factor of recency off (e.g. for a replayed transcript).
    """

    recency_weight: float = 0.3
    relevance_weight: float = 0.5
    density_weight: float = 0.2
    half_life_turns: float | None = 12.0
    half_life_seconds: float | None = 1800.0

    def __post_init__(self) -> None:
        weights = (self.recency_weight, self.relevance_weight, self.density_weight)
        if any(not isinstance(w, (int, float)) or isinstance(w, bool) or not math.isfinite(w) or w < 0
               for w in weights):
            raise InvalidInputError("priority weights must be finite numbers >= 0")
        for name in ("half_life_turns", "half_life_seconds"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, (int, float)) and value > 0 and math.isfinite(value)):
                raise InvalidInputError(f"{name} must be a positive number or None")


@dataclass(frozen=True)
class Density:
    """Information density of one message, with the signals that produced it."""

    score: float
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class MessageScore:
    """Why one message got the priority it did, and whether it made the window."""

    position: int
    role: str
    tokens: int
    recency: float
    relevance: float
    density: float
    density_reasons: tuple[str, ...]
    priority: float
    kept: bool
    pinned: bool

    def __str__(self) -> str:
        verdict = "pinned" if self.pinned else ("kept" if self.kept else "dropped")
        why = f" [{'; '.join(self.density_reasons)}]" if self.density_reasons else ""
        return (f"#{self.position} {self.role} {verdict}: priority {self.priority:.3f} = recency "
                f"{self.recency:.3f}, relevance {self.relevance:.3f}, density {self.density:.3f}{why}; "
                f"{self.tokens} tokens")


def recency(turns_ago, seconds_ago, config: PriorityConfig):
    """2^(−turns_ago / half_life_turns) · 2^(−seconds_ago / half_life_seconds); 1.0 for the newest message now.

    Takes numbers or numpy arrays (element-wise); negative ages count as 0.
    """
    value = np.float64(1.0)
    if config.half_life_turns is not None:
        value = value * np.exp2(-np.maximum(0, turns_ago) / config.half_life_turns)
    if config.half_life_seconds is not None:
        value = value * np.exp2(-np.maximum(0.0, seconds_ago) / config.half_life_seconds)
    return value


def relevance(query: np.ndarray | None, vectors: np.ndarray, baseline: float = 0.0) -> np.ndarray:
    """Cosine of each (unit) message vector with the (unit) query on the embedder's scale, clipped to [0, 1].

    `baseline` is the cosine the embedder's unrelated texts sit at (`similarity_baseline`), mapped to 0 as
    `config.on_similarity_scale` maps thresholds; zeros without a query.
    """
    if query is None or len(vectors) == 0:
        return np.zeros(len(vectors), dtype=np.float64)
    cosine = (vectors @ query).astype(np.float64)
    return np.clip((cosine - baseline) / (1.0 - baseline), 0.0, 1.0)


def density(text: str) -> Density:
    """Information density in [0, 1]: entities and numbers, corrections, confirmations, preferences, facts."""
    if TRIVIAL.search(text):
        return Density(0.0, ())
    reasons: list[str] = []
    entities = extract_entities(text)
    numbers = [n for n in _NUMBER.findall(text) if not any(n in e for e in entities)]
    found = entities + numbers
    points = min(MAX_ENTITY_POINTS, float(len(found)))
    if found:
        reasons.append("entities/numbers: " + ", ".join(found[:5]))
    for pattern, value, reason in ((CORRECTION, CORRECTION_POINTS, "a correction"),
                                   (CONFIRMATION, CONFIRMATION_POINTS, "a confirmed parameter"),
                                   (PREFERENCE, PREFERENCE_POINTS, "a preference"),
                                   (FACT, FACT_POINTS, "a personal fact"),
                                   (TASK_RESULT, FACT_POINTS, "a task result")):
        if pattern.search(text):
            points += value
            reasons.append(reason)
    return Density(round(min(1.0, points / DENSITY_SATURATION), 6), tuple(reasons))


def priority(recency_value, relevance_value, density_value, config: PriorityConfig):
    """w_r·recency + w_q·relevance + w_d·density (numbers or numpy arrays)."""
    return (config.recency_weight * recency_value + config.relevance_weight * relevance_value
            + config.density_weight * density_value)


def select_within_budget(costs: Sequence[int], priorities: Sequence[float], budget: int,
                         pinned: Sequence[int] = ()) -> list[int]:
    """Positions to keep, ascending: the pinned ones, then the rest by priority (ties: newer first) while they fit.

    A message too large for what is left is skipped; the caller checks that the pinned messages fit on their own.
    """
    chosen = set(pinned)
    used = sum(costs[i] for i in chosen)
    order = sorted((i for i in range(len(costs)) if i not in chosen), key=lambda i: (-priorities[i], -i))
    for i in order:
        if used + costs[i] <= budget:
            chosen.add(i)
            used += costs[i]
    return sorted(chosen)
