"""Clocks: time is passed in, never read from `datetime.now()` across the code.

A clock is any zero-argument callable returning a timezone-aware UTC datetime.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Callable

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """The real time, in UTC."""
    return datetime.now(timezone.utc)


class FrozenClock:
    """A clock that stands still until moved; for tests, demos and simulations.

    >>> clock = FrozenClock(datetime(2026, 3, 15, tzinfo=timezone.utc))
    >>> clock.advance(days=2)
    """

    def __init__(self, start: datetime | None = None) -> None:
        self._now = ensure_utc(start or datetime(2026, 1, 1, 9, 0, tzinfo=timezone.utc))

    def __call__(self) -> datetime:
        return self._now

    def advance(self, *, days: float = 0, hours: float = 0, minutes: float = 0, seconds: float = 0) -> datetime:
        self._now += timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds)
        return self._now

    def set(self, moment: datetime) -> None:
        self._now = ensure_utc(moment)


def ensure_utc(moment: datetime) -> datetime:
    """Return `moment` in UTC; a naive datetime is refused, since its zone is a guess."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        from .errors import InvalidInputError

        raise InvalidInputError(
            f"datetime {moment.isoformat()} has no timezone; pass an aware datetime, "
            "e.g. datetime(..., tzinfo=timezone.utc)"
        )
    return moment.astimezone(timezone.utc)


def read_clock(clock: Clock) -> datetime:
    """Call a clock and check that it kept its contract."""
    moment = clock()
    if not isinstance(moment, datetime):
        from .errors import InvalidInputError

        raise InvalidInputError(f"the clock returned {moment!r}, not a datetime; a clock is a zero-argument "
                                "callable returning an aware UTC datetime, e.g. hindsight_core.system_clock")
    return ensure_utc(moment)


def days_between(earlier: datetime, later: datetime) -> float:
    """Elapsed days from `earlier` to `later`, never negative."""
    return max(0.0, (later - earlier).total_seconds() / 86400.0)
