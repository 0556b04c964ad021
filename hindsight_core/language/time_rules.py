"""The rules `timeparse.time_hints` reads time with: one regex and one handler per kind of phrase.

Each handler takes the match and `now` (aware UTC) and returns ((start, end), strength), or None for a phrase that
gives no hint. Rules are listed from the most specific to the least, the order `timeparse` tries them in.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, timezone
from typing import Callable

# -- calendar helpers ----------------------------------------------------------------------------------

def start_of_day(day: date) -> datetime:
    """Midnight UTC at the start of `day`."""
    return datetime.combine(day, time.min, tzinfo=timezone.utc)


_at = start_of_day


def _day(day: date) -> tuple[datetime, datetime]:
    return _at(day), _at(day + timedelta(days=1))


def _month(year: int, month: int) -> tuple[datetime, datetime]:
    return _at(date(year, month, 1)), _at(date(year + (month == 12), month % 12 + 1, 1))


def _year(year: int) -> tuple[datetime, datetime]:
    return _at(date(year, 1, 1)), _at(date(year + 1, 1, 1))


def _add_months(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1


def _week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


_SEASON_FIRST_MONTH = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12,
                       "春": 3, "夏": 6, "秋": 9, "冬": 12}


def _season(year: int, first_month: int) -> tuple[datetime, datetime]:
    """Three months from `first_month` of `year` (winter runs into the next year)."""
    start = _month(year, first_month)[0]
    end_year, end_month = _add_months(year, first_month, 3)
    return start, _at(date(end_year, end_month, 1))


def _season_of(year: int, first_month: int, now: datetime, *, ended: bool) -> tuple[datetime, datetime]:
    """The latest such season that has ended (`ended`) or begun by `now`."""
    for y in (year, year - 1, year - 2):
        start, end = _season(y, first_month)
        if (end <= now) if ended else (start <= now):
            return start, end
    return _season(year - 2, first_month)


# -- words and numbers ----------------------------------------------------------------------------------

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(_MONTHS)} | {"sept": 9}
_MONTH_WORD = r"(?:january|february|march|april|may|june|july|august|september|october|november|december|" \
              r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_EN_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
               "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple of": 2, "a couple of": 2}
_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
              "九": 9}
_ZH_NUM = r"[零〇一二两三四五六七八九十\d]{1,3}"
_ZH_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}


def _month_number(word: str) -> int:
    word = word.lower().rstrip(".")
    return _MONTHS.index(word) + 1 if word in _MONTHS else _MONTH_ABBR[word[:4] if word == "sept" else word[:3]]


def _en_number(word: str) -> int | None:
    word = " ".join(word.lower().split())
    return int(word) if word.isdigit() else _EN_NUMBERS.get(word)


def _zh_int(token: str) -> int | None:
    """一 → 1, 十二 → 12, 二十三 → 23, 2023 → 2023, 二〇二三 → 2023."""
    if token.isdigit():
        return int(token)
    if "十" in token:
        tens, _, ones = token.partition("十")
        return (_ZH_DIGITS.get(tens, 1) if tens else 1) * 10 + (_ZH_DIGITS.get(ones, 0) if ones else 0)
    if all(ch in _ZH_DIGITS for ch in token):
        return int("".join(str(_ZH_DIGITS[ch]) for ch in token))
    return None


# -- the rules ----------------------------------------------------------------------------------------

Window = tuple[datetime, datetime]
Rule = tuple[re.Pattern[str], Callable[[re.Match[str], datetime], "tuple[Window, float] | None"]]
RULES: list[Rule] = []


def _rule(pattern: str, flags: int = re.I) -> Callable:
    def register(handler: Callable) -> Callable:
        RULES.append((re.compile(pattern, flags), handler))
        return handler
    return register


# Anchored to an event: recognised first so that their words give no other hint.
_ANCHORED_EN = (r"\b(?:(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|several|\d+)\s+"
                r"(?:days?|weeks?|months?|years?|hours?)|the (?:day|week|month|year|night|morning))\s+"
                r"(?:before|after|following|prior to|later than|earlier than)\b(?!\s+(?:yesterday|last)\b)"
                r"(?:\s+(?:the|my|our|his|her|their)"
                r"\s+\w+)?")
# 旅行后两周, 出差前三天, 回来之后的第二天: a duration counted from an event (not 三天前, "three days ago")
_ANCHORED_ZH = r"(?<=[\u4e00-\u9fff])(?<![天周期拜月年])(?:之|以)?[前后]的?第?" + _ZH_NUM + \
               r"\s*(?:天|周|个?星期|个?礼拜|个?月|年)"


@_rule(_ANCHORED_EN)
def _anchored_en(m, now):
    return None


@_rule(_ANCHORED_ZH)
def _anchored_zh(m, now):
    return None


#: the rules for a time counted from an event ("the night before", 出差前三天): they name no day on the calendar
COUNTED_FROM_AN_EVENT = frozenset({_anchored_en, _anchored_zh})


@_rule(r"(?:明天|明年|下周|下个?星期|下个?月|下礼拜|后天|将来|未来)")
def _future_zh(m, now):
    return None


@_rule(r"\b(?:next|coming|upcoming)\s+(?:week|month|year|weekend|" + _MONTH_WORD + r"|spring|summer|autumn|fall|"
       r"winter|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|\btomorrow\b|\bin\s+(?:a|an|one|two|"
       r"three|four|five|\d+)\s+(?:days?|weeks?|months?|years?)\b")
def _future_en(m, now):
    return None


@_rule(r"\b(\d{4})-(\d{2})-(\d{2})\b")
def _iso_date(m, now):
    try:
        return _day(date(int(m.group(1)), int(m.group(2)), int(m.group(3)))), 1.0
    except ValueError:
        return None


@_rule(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_WORD}),?\s+(\d{{4}})\b")
def _day_month_year(m, now):
    try:
        return _day(date(int(m.group(3)), _month_number(m.group(2)), int(m.group(1)))), 1.0
    except ValueError:
        return None


@_rule(rf"\b({_MONTH_WORD})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b")
def _month_day_year(m, now):
    try:
        return _day(date(int(m.group(3)), _month_number(m.group(1)), int(m.group(2)))), 1.0
    except ValueError:
        return None


@_rule(r"(\d{4}|[零〇一二三四五六七八九]{4})\s*年\s*(" + _ZH_NUM + r")\s*月\s*(" + _ZH_NUM + r")\s*[日号]")
def _zh_full_date(m, now):
    year, month, day = _zh_int(m.group(1)), _zh_int(m.group(2)), _zh_int(m.group(3))
    if year is None or month is None or day is None:
        return None
    try:
        return _day(date(year, month, day)), 1.0
    except (TypeError, ValueError):
        return None


@_rule(rf"\b(?:(?:in|during|of|since|by)\s+)?({_MONTH_WORD}),?\s+(?:of\s+)?(\d{{4}})\b")
def _month_year(m, now):
    if m.group(0).lower().startswith("since"):
        return (_month(int(m.group(2)), _month_number(m.group(1)))[0], max(now, _at(now.date()))), 0.6
    return _month(int(m.group(2)), _month_number(m.group(1))), 1.0


@_rule(r"(\d{4}|[零〇一二三四五六七八九]{4})\s*年\s*(" + _ZH_NUM + r")\s*月(?:份)?")
def _zh_month_year(m, now):
    year, month = _zh_int(m.group(1)), _zh_int(m.group(2))
    return (_month(year, month), 1.0) if year and month and 1 <= month <= 12 else None


@_rule(r"\b(?:in|during)\s+the\s+(spring|summer|autumn|fall|winter)\s+of\s+(\d{4})\b|"
       r"\b(spring|summer|autumn|fall|winter)\s+(?:of\s+)?(\d{4})\b")
def _season_year(m, now):
    name, year = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    return _season(int(year), _SEASON_FIRST_MONTH[name.lower()]), 0.9


@_rule(r"(\d{4}|[零〇一二三四五六七八九]{4})\s*年\s*的?\s*(春|夏|秋|冬)(?:天|季)")
def _zh_season_year(m, now):
    year = _zh_int(m.group(1))
    return (_season(year, _SEASON_FIRST_MONTH[m.group(2)]), 0.9) if year else None


@_rule(r"\bsince\s+((?:19|20)\d\d)\b")
def _since_year(m, now):
    return (_year(int(m.group(1)))[0], _at(now.date() + timedelta(days=1))), 0.6


@_rule(r"\b(?:in|during|throughout|for|of|early|late|mid|mid-)\s*((?:19|20)\d\d)\b|\bthe year\s+((?:19|20)\d\d)\b")
def _in_year(m, now):
    return _year(int(m.group(1) or m.group(2))), 0.8


@_rule(r"((?:19|20)\d\d|[零〇一二三四五六七八九]{4})\s*年(?![\u4e00-\u9fff]{0,1}(?:月|前|后|以前|以后|之前|之后))")
def _zh_year(m, now):
    year = _zh_int(m.group(1))
    return (_year(year), 0.8) if year and 1900 <= year <= 2100 else None


@_rule(r"\bthe day before yesterday\b")
def _day_before_yesterday(m, now):
    return _day(now.date() - timedelta(days=2)), 0.9


@_rule(r"大前天")
def _three_days_ago_zh(m, now):
    return _day(now.date() - timedelta(days=3)), 0.9


@_rule(r"前天")
def _day_before_yesterday_zh(m, now):
    return _day(now.date() - timedelta(days=2)), 0.9


@_rule(r"\blast night\b|昨晚|昨天晚上|昨夜")
def _last_night(m, now):
    midnight = _at(now.date())
    return (midnight - timedelta(hours=6), midnight + timedelta(hours=6)), 0.9


@_rule(r"\byesterday\b|昨天|昨日")
def _yesterday(m, now):
    return _day(now.date() - timedelta(days=1)), 0.9


@_rule(r"\b(?:today|this (?:morning|afternoon|evening))\b|今天|今日|今早|今天早上|今天上午|今天下午")
def _today(m, now):
    return _day(now.date()), 0.9


@_rule(r"\b(?:a few|a couple of|several|couple of)\s+(days|weeks|months|years)\s+ago\b")
def _few_ago(m, now):
    unit = {"days": 1, "weeks": 7, "months": 30.4, "years": 365.25}[m.group(1).lower()]
    low, high = (2, 6) if unit == 1 else (1.5, 3.5)
    return (now - timedelta(days=high * unit), now - timedelta(days=low * unit)), 0.6


@_rule(r"几(天|周|个?星期|个?月|年)(?:以|之)?前")
def _few_ago_zh(m, now):
    unit = {"天": 1, "周": 7, "星期": 7, "个星期": 7, "月": 30.4, "个月": 30.4, "年": 365.25}[m.group(1)]
    low, high = (2, 6) if unit == 1 else (1.5, 3.5)
    return (now - timedelta(days=high * unit), now - timedelta(days=low * unit)), 0.6


def _ago(amount: int, unit_days: float, now: datetime) -> tuple[Window, float]:
    center = now - timedelta(days=amount * unit_days)
    half = timedelta(days=max(0.5, unit_days / 2))
    return (center - half, center + half), 0.8


@_rule(r"\b(a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,3})\s+"
       r"(days?|weeks?|months?|years?)\s+ago\b")
def _n_ago(m, now):
    amount = _en_number(m.group(1))
    unit = {"day": 1, "week": 7, "month": 30.4, "year": 365.25}[m.group(2).lower().rstrip("s")]
    return _ago(amount, unit, now) if amount else None


@_rule(r"(" + _ZH_NUM + r")\s*(天|周|个?星期|个?礼拜|个?月|年)(?:以|之)?前")
def _n_ago_zh(m, now):
    amount = _zh_int(m.group(1))
    unit = {"天": 1, "周": 7, "月": 30.4, "年": 365.25}[m.group(2)[-1] if m.group(2)[-1] in "天周月年" else "周"]
    return _ago(amount, unit, now) if amount else None


@_rule(r"\bthe week before last\b|上上(?:周|个?星期|个?礼拜)")
def _week_before_last(m, now):
    start = _week_start(now.date()) - timedelta(weeks=2)
    return (_at(start), _at(start + timedelta(weeks=1))), 0.8


@_rule(r"\blast weekend\b|上(?:个)?周末")
def _last_weekend(m, now):
    saturday = _week_start(now.date()) - timedelta(days=2)
    return (_at(saturday), _at(saturday + timedelta(days=2))), 0.8


@_rule(r"\bthis weekend\b|这个?周末|本周末")
def _this_weekend(m, now):
    saturday = _week_start(now.date()) + timedelta(days=5)
    if _at(saturday) > now:  # a weekend not begun yet is the future
        return None
    return (_at(saturday), _at(saturday + timedelta(days=2))), 0.8


@_rule(r"上(?:周|个?星期|个?礼拜)([一二三四五六日天])")
def _weekday_last_week_zh(m, now):
    day = _week_start(now.date()) - timedelta(weeks=1) + timedelta(days=_ZH_WEEKDAY[m.group(1)])
    return _day(day), 0.8


@_rule(r"\blast week\b|上(?:周|个?星期|个?礼拜)")
def _last_week(m, now):
    start = _week_start(now.date()) - timedelta(weeks=1)
    return (_at(start), _at(start + timedelta(weeks=1))), 0.8


@_rule(r"\bthis week\b|这(?:周|个?星期|个?礼拜)|本(?:周|星期)")
def _this_week(m, now):
    start = _week_start(now.date())
    return (_at(start), _at(start + timedelta(weeks=1))), 0.8


@_rule(r"上上个?月")
def _month_before_last_zh(m, now):
    return _month(*_add_months(now.year, now.month, -2)), 0.8


@_rule(r"\blast month\b|上个?月(?!份?[一二三四五六七八九十\d])")
def _last_month(m, now):
    return _month(*_add_months(now.year, now.month, -1)), 0.8


@_rule(r"\bthis month\b|这个月|本月")
def _this_month(m, now):
    return _month(now.year, now.month), 0.8


@_rule(rf"\blast\s+({_MONTH_WORD})\b(?!\s+\d)")
def _last_named_month(m, now):
    month = _month_number(m.group(1))
    return _month(now.year if month < now.month else now.year - 1, month), 0.7


@_rule(rf"\bthis\s+({_MONTH_WORD})\b(?!\s+\d)")
def _this_named_month(m, now):
    month = _month_number(m.group(1))
    return (_month(now.year, month), 0.7) if month <= now.month else None


@_rule(r"(去年|今年|前年)\s*的?\s*(" + _ZH_NUM + r")\s*月(?:份)?(?:\s*(" + _ZH_NUM + r")\s*[日号])?")
def _zh_relative_year_month(m, now):
    year = now.year + {"去年": -1, "今年": 0, "前年": -2}[m.group(1)]
    month = _zh_int(m.group(2))
    if not month or not 1 <= month <= 12:
        return None
    if m.group(3):
        day = _zh_int(m.group(3))
        if day is None:
            return None
        try:
            return _day(date(year, month, day)), 1.0
        except (TypeError, ValueError):
            return None
    return _month(year, month), 0.9


@_rule(r"(去年|今年|前年)\s*的?\s*(春|夏|秋|冬)(?:天|季)")
def _zh_relative_season(m, now):
    year = now.year + {"去年": -1, "今年": 0, "前年": -2}[m.group(1)]
    first = _SEASON_FIRST_MONTH[m.group(2)]
    if m.group(1) == "今年" and _season(year, first)[0] > now:
        return None  # this year's season has not begun
    return _season(year, first), 0.8


@_rule(r"\b(last|this|in the|in|during the|during|over the)\s+(spring|summer|autumn|fall|winter)\b")
def _season_relative(m, now):
    first = _SEASON_FIRST_MONTH[m.group(2).lower()]
    word = m.group(1).lower()
    if word == "this":
        start, end = _season(now.year if first != 12 or now.month == 12 else now.year - 1, first)
        return ((start, end), 0.7) if start <= now else None
    return _season_of(now.year, first, now, ended=word == "last"), 0.7


@_rule(r"\b(?:the year before last)\b|前年")
def _year_before_last(m, now):
    return _year(now.year - 2), 0.7


@_rule(r"\blast year\b|去年")
def _last_year(m, now):
    return _year(now.year - 1), 0.7


@_rule(r"\bthis year\b|今年")
def _this_year(m, now):
    return _year(now.year), 0.7


@_rule(r"(?<![\d年])(" + _ZH_NUM + r")\s*月\s*(" + _ZH_NUM + r")\s*[日号]")
def _zh_month_day(m, now):
    month, day = _zh_int(m.group(1)), _zh_int(m.group(2))
    return _latest_day(month, day, now)


@_rule(rf"\b(?:on\s+)?({_MONTH_WORD})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*(?::|am|pm|\d))|"
       rf"\b(?:on\s+)?(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_WORD})\b")
def _month_day(m, now):
    word, day = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
    if _is_may_verb(word, m.group(0)):  # "may 3 people come?" is not a date
        return None
    return _latest_day(_month_number(word), int(day), now)


def _is_may_verb(word: str, phrase: str) -> bool:
    """A lower-case "may" is the verb unless "on" or an ordinal makes it a date ("on may 3", "3rd of may")."""
    return word.lower().startswith("may") and not word[0].isupper() and \
        not re.match(r"\s*on\b", phrase, re.I) and not re.search(r"\d(?:st|nd|rd|th)", phrase, re.I)


def _latest_day(month: int | None, day: int | None, now: datetime) -> tuple[Window, float] | None:
    """The latest `day` of `month` on or before `now`'s date."""
    if not month or not day or not 1 <= month <= 12:
        return None
    for year in (now.year, now.year - 1):
        try:
            moment = date(year, month, day)
        except ValueError:
            return None
        if moment <= now.date():
            return _day(moment), 0.9
    return None


@_rule(rf"\b(?:in|during|since|by|early|late|mid|mid-)\s*({_MONTH_WORD})\b(?!['’]|\s+\d)")
def _in_named_month(m, now):
    word = m.group(1)
    if _is_may_verb(word, m.group(0)) and not m.group(0).lower().startswith(("in", "during", "since")):
        return None
    month = _month_number(word)
    year = now.year if month <= now.month else now.year - 1
    if m.group(0).lower().startswith("since"):
        return (_month(year, month)[0], _at(now.date() + timedelta(days=1))), 0.5
    return _month(year, month), 0.7


@_rule(r"(?<![\d年上下这本个])(" + _ZH_NUM + r")\s*月份|(?<![\d年上下这本个])([一二三四五六七八九十]{1,2})月(?![\d一二三四五六七八九十])")
def _zh_named_month(m, now):
    month = _zh_int(m.group(1) or m.group(2))
    if not month or not 1 <= month <= 12:
        return None
    return _month(now.year if month <= now.month else now.year - 1, month), 0.7


def _weekday_before(name: str, now: datetime) -> tuple[Window, float]:
    """The last day named `name` before today."""
    back = (now.date().weekday() - _WEEKDAYS.index(name.lower())) % 7 or 7
    return _day(now.date() - timedelta(days=back)), 0.7


@_rule(r"\b(?:last|this past)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b")
def _last_weekday(m, now):
    return _weekday_before(m.group(1), now)


@_rule(r"\bon\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b")
def _weekday(m, now):
    return _weekday_before(m.group(1), now)


@_rule(r"\b(?:recently|lately|the other day)\b|最近|近来|前阵子|前段时间|前些天")
def _recently(m, now):
    return (now - timedelta(days=30), now), 0.3


#: the phrases of a day or a week just past ("yesterday", "last night", "three days ago", 上周末): a text that
#: names one tells what happened on one occasion (`timeparse.tells_one_past_occasion`)
JUST_PAST = frozenset({_day_before_yesterday, _three_days_ago_zh, _day_before_yesterday_zh, _last_night, _yesterday,
                       _few_ago, _few_ago_zh, _n_ago, _n_ago_zh, _week_before_last, _last_weekend,
                       _weekday_last_week_zh, _last_week, _last_weekday})
