"""Ebbinghaus decay and the spacing effect, as pure functions.

    retention = exp(-λ_eff · Δt_days) · confidence,    λ_eff = λ / (1 + β · n)

where Δt_days is the time since the memory was last reinforced (its last recall, or its creation), λ the base rate of
its event type, β `DecayConfig.reinforcement` and n the number of *spaced* recalls (at least `min_spacing_hours` after
the previous one). A recall resets the curve to `confidence` and, after a gap, makes it flatter from then on: the
spacing effect.
"""

from __future__ import annotations

import math
from datetime import datetime

from .clock import days_between
from .types import MemoryRecord


def effective_rate(base_rate: float, spaced_recalls: int, reinforcement: float) -> float:
    """λ_eff = λ / (1 + β·n)."""
    return base_rate / (1.0 + reinforcement * max(0, spaced_recalls))


def retention(confidence: float, rate: float, elapsed_days: float) -> float:
    """exp(-rate · elapsed_days) · confidence."""
    return math.exp(-rate * max(0.0, elapsed_days)) * confidence


def retention_of(record: MemoryRecord, moment: datetime, reinforcement_factor: float) -> float:
    """A record's retention at `moment`: `retention` at its effective rate since it was last reinforced."""
    rate = effective_rate(record.decay_rate, record.spaced_recalls, reinforcement_factor)
    return retention(record.confidence, rate, days_between(record.last_accessed or record.timestamp, moment))


def is_spaced(last_reinforced: datetime, now: datetime, min_spacing_hours: float) -> bool:
    """Whether a recall at `now` counts as a spaced repetition."""
    return days_between(last_reinforced, now) * 24.0 >= min_spacing_hours


def reinforcement(last_reinforced: datetime, now: datetime, access_count: int, spaced_recalls: int,
                  min_spacing_hours: float) -> dict:
    """The fields a recall at `now` changes: one more access, one more spaced recall if it came after a gap."""
    spaced = is_spaced(last_reinforced, now, min_spacing_hours)
    return {"access_count": access_count + 1, "spaced_recalls": spaced_recalls + (1 if spaced else 0),
            "last_accessed": max(now, last_reinforced).isoformat()}
