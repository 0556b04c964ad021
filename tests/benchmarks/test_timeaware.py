"""The time-aware recall prototype: dates in a question become a window, and rankings fuse by reciprocal rank."""

from __future__ import annotations

from datetime import datetime, timezone

from benchmarks.timeaware import fuse_rankings, query_window

NOW = datetime(2024, 1, 4, 12, 0, tzinfo=timezone.utc)


def utc(*args):
    return datetime(*args, tzinfo=timezone.utc)


def test_a_named_day_is_a_window_of_a_week_each_side():
    assert query_window("What did Gina find on 1 February, 2023?", NOW) == (utc(2023, 1, 25), utc(2023, 2, 9))
    assert query_window("What did Mel show on October 13, 2023?", NOW) == (utc(2023, 10, 6), utc(2023, 10, 21))


def test_a_month_reaches_a_month_past_its_end_and_takes_the_latest_year_before_now():
    assert query_window("What setback came in October 2023?", NOW) == (utc(2023, 10, 1), utc(2023, 12, 2))
    assert query_window("When did she go camping in June?", NOW) == (utc(2023, 6, 1), utc(2023, 8, 1))
    assert query_window("When did she go camping in January?", NOW) == (utc(2024, 1, 1), utc(2024, 3, 3))


def test_a_year_and_no_date_at_all():
    assert query_window("How often did she go to the beach in 2023?", NOW) == (utc(2023, 1, 1), utc(2024, 2, 1))
    assert query_window("What is Caroline's identity?", NOW) is None
    assert query_window("Will she be in Maynooth?", NOW) is None  # 'May' inside a word is no month


def test_fusion_lifts_items_ranked_in_both():
    fused = fuse_rankings([["a", "b", "c"], ["c", "d"]], key=lambda x: x)
    assert fused[0] == "c" and fused[1:] == ["a", "b", "d"]
