"""The closed vocabularies hindsight offers a model through its tools, the same in every interface.

A model fills tool arguments best from a short fixed list; every interface offers these, in its own schema types.
"""

from __future__ import annotations

import enum

from ..errors import InvalidInputError


class TimeRangeChoice(str, enum.Enum):
    """The periods a model may restrict a memory search to; each is a spec `resolve_time_range` reads."""

    ANY_TIME = "any_time"
    TODAY = "today"
    YESTERDAY = "yesterday"
    LAST_24_HOURS = "last_24_hours"
    LAST_7_DAYS = "last_7_days"
    LAST_30_DAYS = "last_30_days"
    LAST_YEAR = "last_year"

    @classmethod
    def parse(cls, value: object) -> "TimeRangeChoice":
        """The choice named by `value`; None and '' mean any time. Anything else is an `InvalidInputError`."""
        if value is None or value == "":
            return cls.ANY_TIME
        try:
            return cls(value)
        except ValueError:
            raise InvalidInputError(f"unknown time range {value!r}; choose one of {', '.join(TIME_RANGES)}") from None

    @property
    def spec(self) -> str | None:
        """What `Hindsight.recall(time_range=...)` takes for this choice (None: no restriction)."""
        return None if self is TimeRangeChoice.ANY_TIME else self.value


#: the choices' names, in the order tools list them
TIME_RANGES: tuple[str, ...] = tuple(choice.value for choice in TimeRangeChoice)

#: how every tool describes its time-range argument to the model
TIME_RANGE_DESCRIPTION = (
    "Only look at memories from this period: " + ", ".join(f"'{name}'" for name in TIME_RANGES)
    + ". Keep 'any_time' unless the user asks about a period.")


def time_range_spec(value: object) -> str | None:
    """A tool's time-range argument as `recall` takes it; refuses names outside the vocabulary."""
    return TimeRangeChoice.parse(value).spec
