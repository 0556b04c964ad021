"""Time named in queries: windows checked by hand against a frozen now (Wednesday 18 March 2026, 15:00 UTC)."""

from datetime import datetime, timezone

import pytest

from hindsight_core.language.timeparse import TimeHint, gaussian_prior, tells_one_past_occasion, time_hints

NOW = datetime(2026, 3, 18, 15, 0, tzinfo=timezone.utc)  # a Wednesday


def d(year, month, day, hour=0):
    return datetime(year, month, day, hour, tzinfo=timezone.utc)


@pytest.mark.parametrize("query, start, end, strength, phrase", [
    # absolute
    ("What did Melanie do in May 2023?", d(2023, 5, 1), d(2023, 6, 1), 1.0, "in May 2023"),
    ("What did Gina find on 7 May 2023?", d(2023, 5, 7), d(2023, 5, 8), 1.0, "7 May 2023"),
    ("Where was I on May 7th, 2023?", d(2023, 5, 7), d(2023, 5, 8), 1.0, "May 7th, 2023"),
    ("Notes from 2023-05-07", d(2023, 5, 7), d(2023, 5, 8), 1.0, "2023-05-07"),
    ("Which books did I read in 2023?", d(2023, 1, 1), d(2024, 1, 1), 0.8, "in 2023"),
    ("What have I cooked since 2025?", d(2025, 1, 1), d(2026, 3, 19), 0.6, "since 2025"),
    ("What happened in the summer of 2023?", d(2023, 6, 1), d(2023, 9, 1), 0.9, "in the summer of 2023"),
    # relative to now
    ("What did I say yesterday?", d(2026, 3, 17), d(2026, 3, 18), 0.9, "yesterday"),
    ("the day before yesterday", d(2026, 3, 16), d(2026, 3, 17), 0.9, "the day before yesterday"),
    ("What did we decide last week?", d(2026, 3, 9), d(2026, 3, 16), 0.8, "last week"),  # Monday to Monday
    ("the week before last", d(2026, 3, 2), d(2026, 3, 9), 0.8, "the week before last"),
    ("What did I buy two weeks ago?", d(2026, 3, 1, 3), d(2026, 3, 8, 3), 0.8, "two weeks ago"),  # 4 Mar 15:00 ± 3.5 d
    ("three days ago", d(2026, 3, 15, 3), d(2026, 3, 16, 3), 0.8, "three days ago"),     # 15 Mar 15:00 ± 12 h
    ("What did I do last June?", d(2025, 6, 1), d(2025, 7, 1), 0.7, "last June"),
    ("Where did we go in January?", d(2026, 1, 1), d(2026, 2, 1), 0.7, "in January"),
    ("Where did we go in October?", d(2025, 10, 1), d(2025, 11, 1), 0.7, "in October"),  # the latest October begun
    ("What was on June 3?", d(2025, 6, 3), d(2025, 6, 4), 0.9, "on June 3"),
    ("What did I do last summer?", d(2025, 6, 1), d(2025, 9, 1), 0.7, "last summer"),
    ("last weekend", d(2026, 3, 14), d(2026, 3, 16), 0.8, "last weekend"),
    ("last Monday", d(2026, 3, 16), d(2026, 3, 17), 0.7, "last Monday"),
    ("What did I eat last month?", d(2026, 2, 1), d(2026, 3, 1), 0.8, "last month"),
    ("last year", d(2025, 1, 1), d(2026, 1, 1), 0.7, "last year"),
    ("this year", d(2026, 1, 1), d(2026, 3, 19), 0.7, "this year"),  # cut at the end of today
    # Chinese
    ("我上个月买了什么？", d(2026, 2, 1), d(2026, 3, 1), 0.8, "上个月"),
    ("去年夏天我们去了哪里？", d(2025, 6, 1), d(2025, 9, 1), 0.8, "去年夏天"),
    ("2023年5月发生了什么", d(2023, 5, 1), d(2023, 6, 1), 1.0, "2023年5月"),
    ("2023年5月7日的会议", d(2023, 5, 7), d(2023, 5, 8), 1.0, "2023年5月7日"),
    ("上周说的餐厅", d(2026, 3, 9), d(2026, 3, 16), 0.8, "上周"),
    ("上周三的会议", d(2026, 3, 11), d(2026, 3, 12), 0.8, "上周三"),
    ("昨天我提到的书", d(2026, 3, 17), d(2026, 3, 18), 0.9, "昨天"),
    ("前天吃了什么", d(2026, 3, 16), d(2026, 3, 17), 0.9, "前天"),
    ("今年的目标", d(2026, 1, 1), d(2026, 3, 19), 0.7, "今年"),
    ("去年五月去了哪", d(2025, 5, 1), d(2025, 6, 1), 0.9, "去年五月"),
    ("我两周前说了什么", d(2026, 3, 1, 3), d(2026, 3, 8, 3), 0.8, "两周前"),
    ("3月1日那天", d(2026, 3, 1), d(2026, 3, 2), 0.9, "3月1日"),
])
def test_windows(query, start, end, strength, phrase):
    hints = time_hints(query, NOW)
    assert hints == [TimeHint(start, end, strength, phrase)], hints


@pytest.mark.parametrize("query", [
    "May I ask you something?",
    "may 3 people join the call?",
    "We march forward together.",
    "March forward, team!",
    "Spring cleaning tips?",
    "I left my keys in Jan's house.",
    "When did Caroline go to the LGBTQ support group?",   # the date is the answer, not a hint
    "two weeks after the trip",                            # anchored to an event: no hint
    "What did I do three days before the wedding?",
    "旅行后两周我们做了什么？",
    "出差前三天",
    "What are my plans for next June?",                    # the future: nothing was remembered then
    "What do I do tomorrow?",
    "明天的会议",
    "this summer",                                         # in March, this summer has not begun
    "I have 2023 photos to sort.",                         # a bare number is not a year
    "Ordered the 18th birthday cake.",
])
def test_no_hint(query):
    assert time_hints(query, NOW) == []


def test_several_phrases_in_order_and_no_double_reading():
    hints = time_hints("Compare last June with May 2023", NOW)
    assert [h.phrase for h in hints] == ["last June", "May 2023"]
    assert [h.start for h in hints] == [d(2025, 6, 1), d(2023, 5, 1)]


def test_now_must_be_aware():
    from hindsight_core.errors import InvalidInputError

    with pytest.raises(InvalidInputError):
        time_hints("yesterday", datetime(2026, 3, 18))


def test_gaussian_prior_centre_and_scale():
    hint = TimeHint(d(2023, 5, 1), d(2023, 6, 1), 1.0, "May 2023")
    start_days = (d(2023, 5, 1) - d(1970, 1, 1)).days  # 19478
    assert start_days == 19478
    assert gaussian_prior(hint) == (19478 + 15.5, 15.5)
    # told later: the window reaches 31 days past its end
    assert gaussian_prior(hint, told_later_days=31) == (19478 + 31.0, 31.0)
    # a one-day window still has a scale of at least a day
    day = TimeHint(d(2023, 5, 7), d(2023, 5, 8), 1.0, "7 May 2023")
    assert gaussian_prior(day) == ((d(2023, 5, 7) - d(1970, 1, 1)).days + 0.5, 1.0)




@pytest.mark.parametrize("text, named", [
    ("Book the table for tomorrow evening", True), ("the invoices from last week", True), ("订下周四的票", True),
    ("整理一下本周的笔记", True), ("the photos from last May", True),
    # counted from an event, not a day on the calendar
    ("Send the agenda the night before the meeting", False), ("出发前两天提醒我", False),
    ("Always in landscape", False), ("每周一都要交", False)])
def test_names_a_day_is_a_time_on_the_calendar_past_or_future(text, named):
    from hindsight_core.language.timeparse import names_a_day

    assert names_a_day(text) is named


@pytest.mark.parametrize("text, told", [
    ("We had a vendor pitch yesterday, 60 slides in 30 minutes.", True),
    ("上周末在舟山中了一条四斤的海鲈，这趟值了。", True),
    ("Three days ago I lost my keys on the bus.", True),
    ("Last Sunday I took the duvet to the launderette.", True),
    ("The launderette is shut on Sundays.", False),
    ("Since last week I cycle to work.", False),  # a state that began then
    ("我一般上周末去水库。", False),  # a habit
    ("Our sprint planning is on Monday.", False),  # a weekday names no occasion just past
    ("Tomorrow I fly to Oslo.", False),
])
def test_a_story_of_an_occasion_just_past_is_told_by_a_day_or_week_just_past(text, told):
    assert tells_one_past_occasion(text) is told
