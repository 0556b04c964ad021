"""Time-range filters: 'last_7_days', 'today', explicit dates, resolved against a clock."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from typing import Union

from ..clock import ensure_utc
from ..errors import InvalidInputError


@dataclass(frozen=True)
class TimeRange:
    """A half-open interval [start, end) of UTC datetimes; either end may be open."""

    start: datetime | None = None
    end: datetime | None = None

    def contains(self, moment: datetime) -> bool:
        return (self.start is None or moment >= self.start) and (self.end is None or moment < self.end)


TimeRangeLike = Union[str, TimeRange, tuple, None]

_RELATIVE = re.compile(r"^(?:last|past)[_ ](\d+)[_ ](minute|hour|day|week|month|year)s?$")
_UNITS = {"minute": timedelta(minutes=1), "hour": timedelta(hours=1), "day": timedelta(days=1),
          "week": timedelta(weeks=1), "month": timedelta(days=30), "year": timedelta(days=365)}
_NAMED = {"last_week": "last_1_week", "last_month": "last_1_month", "last_year": "last_1_year",
          "last_day": "last_1_day", "last_hour": "last_1_hour", "past_week": "last_1_week"}


def _as_datetime(value: object, *, end: bool) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return ensure_utc(value)
    if isinstance(value, date):
        moment = datetime.combine(value, time.min, tzinfo=timezone.utc)
        return moment + timedelta(days=1) if end else moment  # a date as end includes that day
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise InvalidInputError(f"cannot read {value!r} as a date; use ISO format like 2026-03-15") from None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=timezone.utc)
        if end and len(value) == 10:
            parsed += timedelta(days=1)
        return ensure_utc(parsed)
    raise InvalidInputError(f"cannot use {value!r} as a time bound")


def resolve_time_range(spec: TimeRangeLike, now: datetime) -> TimeRange | None:
    """Turn a user's time-range spec into a `TimeRange` relative to `now`.

    Accepted: None; a `TimeRange`; a (start, end) pair of datetimes, dates or ISO strings (None for an open end; a
    date as the end includes that day), or the same as one string 'START..END'; 'today', 'yesterday',
    'last_N_minutes|hours|days|weeks|months|years', 'last_week', 'last_month', 'last_year', 'all'.
    """
    if spec is None:
        return None
    if isinstance(spec, TimeRange):
        return spec
    if isinstance(spec, tuple) and len(spec) == 2:
        start, stop = _as_datetime(spec[0], end=False), _as_datetime(spec[1], end=True)
        if start and stop and start >= stop:
            raise InvalidInputError("time range start must be before its end")
        return TimeRange(start, stop)
    if not isinstance(spec, str):
        raise InvalidInputError(f"time_range must be a string like 'last_7_days' or a (start, end) pair, got {spec!r}")
    if ".." in spec:
        start_text, _, end_text = (part.strip() for part in spec.partition(".."))
        return resolve_time_range((start_text or None, end_text or None), now)
    key = spec.strip().lower().replace("-", "_")
    midnight = datetime.combine(now.date(), time.min, tzinfo=timezone.utc)
    if key in ("", "all", "any", "all_time"):
        return None
    if key == "today":
        return TimeRange(midnight, None)
    if key == "yesterday":
        return TimeRange(midnight - timedelta(days=1), midnight)
    match = _RELATIVE.match(_NAMED.get(key, key))
    if not match:
        raise InvalidInputError(
            f"unknown time range {spec!r}; use e.g. 'last_7_days', 'last_24_hours', 'today', 'yesterday', "
            "'last_month', or dates as 'START..END' such as '2026-01-01..2026-01-31' (either side may be left open)"
        )
    amount, unit = int(match.group(1)), match.group(2)
    return TimeRange(now - amount * _UNITS[unit], None)
