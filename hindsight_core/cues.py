"""Conflict cues: the cheap signals that two statements about the same thing disagree, in one place.

Two checks read them. `semantic.is_conflict` decides, at write time, whether a
new statement supersedes an older one; `consensus.conflict_reason` decides, at
recall time, whether two recalled memories contradict each other. The cues:

- `CHANGE_MARKERS`: words that mark a change of mind ("actually", "from now
  on", "现在", "改成"); `CHANGE_MARKER_TOKENS` are their keyword tokens, left
  out when two statements' values are compared;
- `EXCLUSIVE_STATEMENT`: the shape of a statement of which only one can hold
  at a time (a preference, a standing rule, a single-valued attribute such as
  an address);
- `EXCLUSIVE_TERMS`: groups of terms that exclude each other (landscape /
  portrait, 横向 / 纵向, window / aisle); `exclusive_clash(a, b)` says when two
  texts use different members of one group;
- `polarity(text)`: whether a statement is negated (EN cues, ZH characters);
- `value_slots(text)`: the values a statement pins down (times, weekdays,
  months, e-mail addresses, links, amounts, numbers), normalised so that
  "3pm" equals "15:00" and "下午三点半" equals "15:30".
"""

from __future__ import annotations

import re

from .text import keyword_tokens

#: words that mark a change of mind; they are not part of the value being compared
CHANGE_MARKERS = re.compile(
    r"\b(?:actually|now|anymore|no longer|instead|from now on|these days|changed|switch(?:ed)?|moved)\b|"
    r"现在|以后|不再|改成|改为|换成|以前|原来|其实|不对", re.I)
#: the keyword tokens of the change markers (and a few function words), left out of value comparisons
CHANGE_MARKER_TOKENS = frozenset(keyword_tokens(
    "actually now anymore longer instead from changed switch switched moved these days really "
    "现在 以后 不再 改成 改为 换成 以前 原来 其实 不对 了 的 是 我"))
#: statements of which only one can hold at a time: preferences, standing rules, single-valued attributes
EXCLUSIVE_STATEMENT = re.compile(
    r"\b(?:prefer|prefers|preferred|favou?rite|rather|always|never|from now on|instead)\b|"
    r"\bmy [a-z ]{1,30}(?:is|are)\b|\bi live\b|\bi work (?:at|for|in)\b|\bi moved\b|"
    r"\baddress\b|\bphone\b|\bemail\b|最喜欢|更喜欢|偏好|住在|地址|电话|邮箱|我的.{1,8}是|改成|改为|以后|始终|总是", re.I)

_NEGATION_EN = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|without|cannot|hate|hates|dislike|dislikes|avoid|"
    r"forbid|forbidden|refuse|refuses|stop|stopped)\b|n't\b", re.I)
_NEGATION_ZH = re.compile(r"不|没|别|勿|无|非|未|讨厌|拒绝|禁止|停止")
_TIME = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b|\b(\d{1,2}):(\d{2})\b", re.I)
_ZH_TIME = re.compile(r"(上午|早上|中午|下午|晚上)?\s*([零一二两三四五六七八九十\d]{1,3})\s*点(半)?")
_WEEKDAY = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b|"
                      r"(?:周|星期|礼拜)([一二三四五六日天])", re.I)
_MONTH = re.compile(r"\b(january|february|march|april|may|june|july|august|september|october|november|"
                    r"december)\b|([一二三四五六七八九十]{1,2}|\d{1,2})月", re.I)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"https?://\S+|www\.\S+")
_MONEY = re.compile(r"(?:[$€£¥]\s?\d[\d,.]*|\d[\d,.]*\s?(?:dollars|euros|pounds|usd|eur|gbp|元|美元|欧元|块))", re.I)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_WEEKDAY_ZH = {"一": "monday", "二": "tuesday", "三": "wednesday", "四": "thursday", "五": "friday",
               "六": "saturday", "日": "sunday", "天": "sunday"}

#: groups of terms that exclude each other: two related memories using different members disagree
EXCLUSIVE_TERMS: tuple[frozenset[str], ...] = tuple(frozenset(g) for g in (
    {"landscape", "portrait"}, {"横向", "纵向", "竖向"}, {"window", "aisle"}, {"靠窗", "靠过道"},
    {"morning", "afternoon", "evening", "night"}, {"上午", "下午", "晚上"}, {"a4", "a3", "letter"},
    {"metric", "imperial"}, {"celsius", "fahrenheit"}, {"vegetarian", "vegan", "pescatarian"},
))
# a sentence opening "No," or "不对，" marks a correction, not a negated statement
_LEADING_INTERJECTION = re.compile(
    r"(?:^|(?<=[.!?。！？]))\s*(?:(?:no|nope|not quite|not really)\b[,.!:]?|(?:不对|不是的|错了)[，,。！!]?)", re.I)


def zh_number(token: str) -> int | None:
    """一 → 1, 十 → 10, 二十三 → 23, 7 → 7; None if not a number."""
    if token.isdigit():
        return int(token)
    if token == "十":
        return 10
    if "十" in token:
        tens, _, ones = token.partition("十")
        return _ZH_DIGITS.get(tens, 1) * 10 + (_ZH_DIGITS.get(ones, 0) if ones else 0)
    return _ZH_DIGITS.get(token)


def polarity(text: str) -> int:
    """1 if the statement is negated an odd number of times (EN cues + ZH characters), else 0."""
    body = _LEADING_INTERJECTION.sub("", text)
    return (len(_NEGATION_EN.findall(body)) + len(_NEGATION_ZH.findall(body))) % 2


def value_slots(text: str) -> dict[str, frozenset[str]]:
    """The values a statement pins down, by kind: time, weekday, month, email, url, money, number."""
    slots: dict[str, set[str]] = {}
    rest = text
    for kind, pattern in (("email", _EMAIL), ("url", _URL), ("money", _MONEY)):
        for m in pattern.finditer(rest):
            slots.setdefault(kind, set()).add(re.sub(r"\s", "", m.group(0).lower()).rstrip(".,;"))
        rest = pattern.sub(" ", rest)
    for m in _TIME.finditer(rest):
        if m.group(3):
            hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "pm" else 0)
            minute = int(m.group(2) or 0)
        else:
            hour, minute = int(m.group(4)), int(m.group(5))
        slots.setdefault("time", set()).add(f"{hour:02d}:{minute:02d}")
    rest = _TIME.sub(" ", rest)
    for m in _ZH_TIME.finditer(rest):
        hour = zh_number(m.group(2))
        if hour is not None:
            hour += 12 if m.group(1) in ("下午", "晚上") and hour < 12 else 0
            slots.setdefault("time", set()).add(f"{hour:02d}:{30 if m.group(3) else 0:02d}")
    rest = _ZH_TIME.sub(" ", rest)
    for m in _WEEKDAY.finditer(rest):
        slots.setdefault("weekday", set()).add(m.group(1).lower() if m.group(1) else _WEEKDAY_ZH[m.group(2)])
    rest = _WEEKDAY.sub(" ", rest)
    for m in _MONTH.finditer(rest):
        if m.group(1):
            slots.setdefault("month", set()).add(m.group(1).lower())
        else:
            number = zh_number(m.group(2))
            if number:
                slots.setdefault("month", set()).add(str(number))
    rest = _MONTH.sub(" ", rest)
    for m in _NUMBER.finditer(rest):
        slots.setdefault("number", set()).add(m.group(0).replace(",", ""))
    return {kind: frozenset(values) for kind, values in slots.items()}


def exclusive_terms(text: str) -> dict[int, set[str]]:
    """The `EXCLUSIVE_TERMS` a text uses: group index -> the members found (whole words for Latin terms)."""
    lowered = text.lower()
    words = set(re.findall(r"[a-z0-9]+", lowered))
    found: dict[int, set[str]] = {}
    for i, group in enumerate(EXCLUSIVE_TERMS):
        for term in group:
            if (term in words) if term.isascii() else (term in lowered):
                found.setdefault(i, set()).add(term)
    return found


def exclusive_clash(a: str, b: str) -> str | None:
    """Why two texts disagree by their exclusive terms ("exclusive terms: landscape vs portrait"), or None.

    They clash when, within one `EXCLUSIVE_TERMS` group, each uses a member
    the other does not.
    """
    terms_a, terms_b = exclusive_terms(a), exclusive_terms(b)
    for group in sorted(terms_a.keys() & terms_b.keys()):
        only_a, only_b = terms_a[group] - terms_b[group], terms_b[group] - terms_a[group]
        if only_a and only_b:
            return f"exclusive terms: {', '.join(sorted(only_a))} vs {', '.join(sorted(only_b))}"
    return None
