"""Conflict cues: the cheap signals that two statements about the same thing disagree, for `write.rules.is_conflict` and
`consensus.conflict_reason`.

`CHANGE_MARKER_TOKENS` are left out when values are compared; `EXCLUSIVE_STATEMENT` is the shape of a statement of which
only one can hold at a time; `EXCLUSIVE_VALUES` are groups of values that exclude each other; `attributes(text)` the
single-valued attributes a statement sets; `polarity(text)` whether it is negated; `value_slots(text)` the values it
pins down (times, weekdays, months, e-mail addresses, links, amounts, numbers), normalised ("3pm" = "15:00").
"""

from __future__ import annotations

import re
from typing import Any

import ahocorasick

from .text import keyword_tokens

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
# an address or an amount is tried only from the start of its run of characters (the look-behinds): from every
# position of a long run, each attempt would run to the run's end and fail (quadratic)
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"https?://\S+|www\.\S+")
_MONEY = re.compile(r"(?:[$€£¥]\s?\d[\d,.]*|"
                    r"(?<![\d,.])\d[\d,.]*\s?(?:dollars|euros|pounds|usd|eur|gbp|元|美元|欧元|块))", re.I)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_WEEKDAY_ZH = {"一": "monday", "二": "tuesday", "三": "wednesday", "四": "thursday", "五": "friday",
               "六": "saturday", "日": "sunday", "天": "sunday"}

#: groups of values that exclude each other, each value with its spellings in English and Chinese: two related
#: statements naming different values of one group disagree ("landscape" and "纵向" are two orientations)
EXCLUSIVE_VALUES: tuple[dict[str, frozenset[str]], ...] = tuple(
    {value: frozenset(spellings) for value, spellings in group.items()} for group in (
        {"landscape": {"landscape", "横向", "横版"}, "portrait": {"portrait", "纵向", "竖向", "竖版"}},
        {"window": {"window", "靠窗"}, "aisle": {"aisle", "靠过道"}},
        {"morning": {"morning", "上午", "早上"}, "afternoon": {"afternoon", "下午"},
         "evening": {"evening", "night", "晚上"}},
        {"a4": {"a4"}, "a3": {"a3"}, "letter": {"letter"}},
        {"metric": {"metric", "公制"}, "imperial": {"imperial", "英制"}},
        {"celsius": {"celsius", "摄氏"}, "fahrenheit": {"fahrenheit", "华氏"}},
        {"vegetarian": {"vegetarian", "素食"}, "vegan": {"vegan", "纯素"}, "pescatarian": {"pescatarian"}},
        {"dark": {"dark mode", "深色"}, "light": {"light mode", "浅色"}},
        {"tabs": {"tabs"}, "spaces": {"spaces"}},
    ))
#: every spelling of each group, for code that only needs to know a word is an exclusive value
EXCLUSIVE_TERMS: tuple[frozenset[str], ...] = tuple(frozenset().union(*g.values()) for g in EXCLUSIVE_VALUES)
# a sentence opening "No," or "不对，" marks a correction, not a negated statement ("No cold water for me" is one)
_LEADING_INTERJECTION = re.compile(
    r"(?:^|(?<=[.!?。！？]))\s*(?:(?:no|nope|not quite|not really)\b[,.!:]|(?:不对|不是的|错了)[，,。！!]?)", re.I)


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
        spoken = zh_number(m.group(2))
        if spoken is not None:
            hour = spoken
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


def without_clock_times(text: str) -> str:
    """The text with its clock times blanked out ("3pm", "15:00", "下午三点半"): a part of the day inside one
    ("下午" in "下午三点") pins the time, it names no chosen value."""
    return _ZH_TIME.sub(" ", _TIME.sub(" ", text))


def _spelling_finders() -> tuple[Any, Any]:
    """Two automata (Aho-Corasick, C) that find every spelling of `EXCLUSIVE_VALUES` in one pass each: Latin ones as
    whole words (" landscape " in the text's words joined by spaces), the others anywhere (横向)."""
    latin, other = ahocorasick.Automaton(), ahocorasick.Automaton()
    for i, group in enumerate(EXCLUSIVE_VALUES):
        for value, spellings in group.items():
            for term in spellings:
                finder, key = (latin, f" {term} ") if term.isascii() else (other, term)
                found = finder.get(key, [])
                finder.add_word(key, found + [(i, value)])
    for finder in (latin, other):
        finder.make_automaton()
    return latin, other


_LATIN_SPELLINGS, _OTHER_SPELLINGS = _spelling_finders()


def exclusive_terms(text: str) -> dict[int, set[str]]:
    """The exclusive values a text names: group index -> the values found (whole words for Latin spellings)."""
    lowered = text.lower()
    words = " " + " ".join(re.findall(r"[a-z0-9]+", lowered)) + " "
    found: dict[int, set[str]] = {}
    for finder, haystack in ((_LATIN_SPELLINGS, words), (_OTHER_SPELLINGS, lowered)):
        for _, values in finder.iter(haystack):
            for i, value in values:
                found.setdefault(i, set()).add(value)
    return found


def exclusive_clash(a: str, b: str) -> str | None:
    """Why two texts disagree by their exclusive values ("exclusive terms: landscape vs portrait"), or None.

    They clash when, within one `EXCLUSIVE_VALUES` group, each names a value the other does not, in any language.
    """
    terms_a, terms_b = exclusive_terms(a), exclusive_terms(b)
    for group in sorted(terms_a.keys() & terms_b.keys()):
        only_a, only_b = terms_a[group] - terms_b[group], terms_b[group] - terms_a[group]
        if only_a and only_b:
            return f"exclusive terms: {', '.join(sorted(only_a))} vs {', '.join(sorted(only_b))}"
    return None


#: single-valued attributes a statement can set, each with how it is said in English and Chinese; a statement
#: sets the attribute when one of its patterns matches (`attributes`)
ATTRIBUTES: dict[str, re.Pattern[str]] = {name: re.compile(pattern, re.I) for name, pattern in {
    "residence": r"\bi (?:now )?live (?:in|at|on)\b|\bi(?:'ve| have)? (?:just )?moved (?:to|into)\b|"
                 r"\bmy (?:home |new |postal |delivery |shipping )?address\b|\bmy new (?:place|flat|apartment|home)\b|"
                 r"住在|搬到|搬家到|我的?(?:新)?(?:家庭|收货|邮寄)?地址",
    "phone": r"\bmy (?:new )?(?:phone|mobile|cell)(?: number)?\b|我的?(?:新)?(?:电话|手机)(?:号码?)?",
    "email": r"\bmy (?:new )?e-?mail(?: address)?\b|我的?(?:新)?邮箱",
    "employer": r"\bi (?:now )?work (?:at|for)\b|\bmy (?:new )?(?:job|employer) is (?:at|with)\b|\bmy employer is\b|"
                r"我在.{1,12}(?:工作|上班)",
    "name": r"\bmy name is\b|\bcall me\b|我叫|我的名字是",
}.items()}
#: "I prefer blue for the slide theme", "use tabs in every Go file": a preference for one purpose
_PREFERENCE_FOR = re.compile(r"\b(?:prefer|prefers|like|likes|want|wants|use|uses)\b[^.;!?]{1,40}?\b(?:for|in|on) "
                             r"(?:the |my |our |all |every |each |any )*([a-z]+(?: [a-z]+)?)", re.I)
#: "my favourite colour is", "my preferred airline is", "我最喜欢的颜色是": the attribute is the words in between
_FAVOURITE = re.compile(r"\bmy (?:new |current )?(?:favou?rite|preferred) ([a-z]+(?: [a-z]+)?)\b|"
                        r"我(?:现在)?最喜欢的([一-鿿]{1,4}?)(?:是|变成|换成)", re.I)
#: attribute words said differently in the two languages, for the favourite-thing slot
_SAME_ATTRIBUTE = {"color": "colour", "颜色": "colour", "colour": "colour", "食物": "food", "菜": "food",
                   "饮料": "drink", "歌": "song", "歌曲": "song", "电影": "movie", "film": "movie", "书": "book",
                   "运动": "sport", "城市": "city", "动物": "animal", "季节": "season", "水果": "fruit"}


#: colours are everywhere in description ("the red and blue in this painting"); only a preference sets one
_COLOUR = re.compile(r"\b(?:red|blue|green|yellow|black|white|purple|orange|pink|grey|gray)\b|"
                     r"红色|蓝色|绿色|黄色|黑色|白色|紫色|橙色|粉色|灰色", re.I)
_PREFERS = re.compile(r"\b(?:prefer|prefers|favou?rite)\b|最喜欢|更喜欢|偏好", re.I)


def attributes(text: str) -> set[str]:
    """The single-valued attributes a statement sets: "residence", "favourite:colour", "exclusive:0" ..."""
    found = {name for name, pattern in ATTRIBUTES.items() if pattern.search(text)}
    if _PREFERS.search(text) and _COLOUR.search(text):
        found.add("favourite:colour")
    for m in _FAVOURITE.finditer(text):
        word = (m.group(1) or m.group(2) or "").lower().split(" ")[0]
        found.add("favourite:" + _SAME_ATTRIBUTE.get(word, word))
    for m in _PREFERENCE_FOR.finditer(text):
        found.add("for:" + m.group(1).lower())
    found |= {f"exclusive:{group}" for group in exclusive_terms(text)}
    return found
