"""Prototype: dates named in a query as a soft time prior for recall (a candidate core change, measured here).

"When did Melanie go camping in June?", "What did Gina find on 1 February, 2023?":
about one LoCoMo question in seven names a month, a day or a year. `query_window`
turns that into a window of time; the recall is then run twice, within the window
and without it, and the two rankings are fused by reciprocal rank, so memories
that are both relevant and from that time rise, and nothing outside is lost.
Things are often told after they happen, so a window reaches 31 days past its end.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december)"
_DAY_FIRST = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH},?\s+(\d{{4}})\b", re.I)
_MONTH_FIRST = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+(\d{{4}})\b", re.I)
_MONTH_ONLY = re.compile(rf"\bin\s+{_MONTH}\b", re.I)
_YEAR = re.compile(r"\bin\s+((?:19|20)\d\d)\b")
TOLD_LATER = timedelta(days=31)


def _utc(year: int, month: int, day: int = 1) -> datetime:
    return datetime(year, month, day, tzinfo=timezone.utc)


def _month_span(year: int, month: int) -> tuple[datetime, datetime]:
    start = _utc(year, month)
    end = _utc(year + (month == 12), month % 12 + 1)
    return start, end


def query_window(query: str, now: datetime) -> tuple[datetime, datetime] | None:
    """The time a query asks about, widened by how late things are told; None if it names no date."""
    if m := _DAY_FIRST.search(query):
        day = _utc(int(m.group(3)), _MONTHS.index(m.group(2).lower()) + 1, int(m.group(1)))
        return day - timedelta(days=7), day + timedelta(days=8)
    if m := _MONTH_FIRST.search(query):
        day = _utc(int(m.group(3)), _MONTHS.index(m.group(1).lower()) + 1, int(m.group(2)))
        return day - timedelta(days=7), day + timedelta(days=8)
    if m := _MONTH_YEAR.search(query):
        start, end = _month_span(int(m.group(2)), _MONTHS.index(m.group(1).lower()) + 1)
        return start, end + TOLD_LATER
    if m := _MONTH_ONLY.search(query):
        month = _MONTHS.index(m.group(1).lower()) + 1
        year = now.year if month <= now.month else now.year - 1  # the latest such month before now
        start, end = _month_span(year, month)
        return start, end + TOLD_LATER
    if m := _YEAR.search(query):
        return _utc(int(m.group(1)), 1), _utc(int(m.group(1)) + 1, 1) + TOLD_LATER
    return None


def fuse_rankings(rankings: list[list], key, k: int = 60) -> list:
    """Items of several rankings, ordered by Σ 1/(k + rank); `key` identifies an item across rankings."""
    score: dict = {}
    first: dict = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            ident = key(item)
            score[ident] = score.get(ident, 0.0) + 1.0 / (k + rank)
            first.setdefault(ident, item)
    return [first[i] for i in sorted(score, key=lambda i: -score[i])]
