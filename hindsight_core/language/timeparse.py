"""Time named in a query, in English and Chinese: soft windows for a recall prior, never a filter.

`time_hints(query, now)` finds the times a query asks about and returns one `TimeHint` per phrase: a half-open UTC
window [start, end), how sure the phrase is about time (`strength`, 0..1), and the phrase itself. Calendar arithmetic is
done on `now`'s UTC date; weeks start on Monday; seasons are the northern meteorological ones. The phrases recognised,
their windows and strengths are the rules of `time_rules`: from a full date (1.0) through relative days, weeks, months,
years, named months, weekdays and seasons, to "recently" 最近 (0.3).

What gives no hint, by design:

- a time relative to an event the query names ("two weeks after the trip"): the anchor's date is unknown here;
- the future ("next June", 明年): what was said about a future time was said at another time;
- words that are not times: a month name needs a preposition, a determiner, a day or a year next to it, a season "last",
  "this", "in (the)" or a year, and a bare number is never a year;
- a question that asks for the time: the date is the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterator

from ..clock import ensure_utc
from .text_cache import per_text
from .time_rules import COUNTED_FROM_AN_EVENT, JUST_PAST, RULES, start_of_day

__all__ = ["TimeHint", "time_hints", "gaussian_prior"]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class TimeHint:
    """A window of time a query names: [start, end) in UTC, how sure (0..1), and the words that said it."""

    start: datetime
    end: datetime
    strength: float
    phrase: str

    @property
    def days(self) -> float:
        return (self.end - self.start).total_seconds() / 86400.0


def gaussian_prior(hint: TimeHint, *, told_later_days: float = 0.0, min_scale_days: float = 1.0) -> tuple[float, float]:
    """(center_epoch_days, scale_days) of a gaussian time prior for `hint`.

    The window is first stretched by `told_later_days` past its end (things are often told after they happen); the
    centre is its midpoint in days since 1970-01-01 UTC, the scale half its width (at least `min_scale_days`).
    """
    start = (hint.start - _EPOCH).total_seconds() / 86400.0
    end = (hint.end - _EPOCH).total_seconds() / 86400.0 + max(0.0, told_later_days)
    return (start + end) / 2.0, max(min_scale_days, (end - start) / 2.0)


def _matches(query: str) -> Iterator[tuple[int, int, re.Match[str], Callable]]:
    taken: list[tuple[int, int]] = []
    for pattern, handler in RULES:
        for m in pattern.finditer(query):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            taken.append((m.start(), m.end()))
            yield m.start(), m.end(), m, handler


def names_a_day(text: str) -> bool:
    """Whether `text` names a time on the calendar, past or future ("tomorrow", "on Thursday", "this week", 明天,
    五月), not one counted from an event ("the night before", 提前一天)."""
    return any(handler not in COUNTED_FROM_AN_EVENT for *_, handler in _matches(text))


#: a state that began at the time named ("since last week", "从上周开始", "上个月以来"): it holds still
_BEGAN = re.compile(r"\bsince\b|从|以来|开始|起", re.I)
#: a habit or a standing condition ("every Monday", "whenever you…", "usually", 每周, 一般, "写周报的时候"): a time it
#: names is one of its instances, not one occasion (`tells_one_past_occasion`, `write.rules.for_one_occasion`)
HABIT = re.compile(r"\b(?:always|every|each|whenever|usually|never|any ?more)\b|每|一直|总是|永远|通常|一般|的时候",
                   re.I)


@per_text  # the groups read every candidate's words, write after write
def tells_one_past_occasion(text: str) -> bool:
    """Whether `text` tells what happened on one occasion just past: it names a day or a week just past and no
    state that began then ("since last week") or habit (`HABIT`)."""
    if _BEGAN.search(text) or HABIT.search(text):
        return False
    return any(handler in JUST_PAST for *_, handler in _matches(text))


def time_hints(query: str, now: datetime) -> list[TimeHint]:
    """The times `query` names, as soft windows relative to `now`, in the order they appear.

    Rules are tried from the most specific to the least, and a phrase already matched is not read again ("last June" is
    not also "June"); the phrases are the rules of `time_rules`.
    """
    now = ensure_utc(now)
    hints = []
    for start, _, m, handler in sorted(_matches(query), key=lambda x: x[0]):
        found = handler(m, now)
        if found is None:
            continue
        (window_start, window_end), strength = found
        if window_start >= now:  # the future: nothing was remembered then
            continue
        hints.append(TimeHint(window_start, min(window_end, start_of_day(now.date() + timedelta(days=1))), strength,
                              m.group(0).strip()))
    return hints
