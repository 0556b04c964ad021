"""The extractive summary of a group of episodes: knowledge that reads as knowledge, with no model.

`extractive_summary(records, vectors)` says what a group of repeated episodes shows, how often and over which days:

    Prefers printing reports in A4 landscape (said 5 times, 2026-03-18 to 03-22)
    偏好：用A4纸横向打印报告（说过5次，2026-03-18 至 03-22）

Shared words are keyword tokens used by at least half the episodes, and at least two. English requests read as VERB
[OBJECT] PREPOSITION PARAMETERS become "Prefers <verb>ing [<object>s] <preposition> <parameters>"; English preferences
and Chinese groups give the episode with the most shared words (Chinese prefixed with "偏好："); anything else gives the
medoid episode as it was said.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Callable, Sequence

import numpy as np

from ..language.cues import EXCLUSIVE_TERMS
from ..language.entities import extract_entities
from ..language.text import HAN_CHAR, STOP_WORDS, keyword_tokens
from ..types import EventType, MemoryRecord
from ..write.gate import REQUEST, strip_speaker

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_PREPOSITIONS = ("in", "on", "as", "with", "using", "to", "via", "into", "at", "by", "from")
_REQUEST_VERBS = frozenset("""print send email mail write use make format save export convert translate book
    schedule set put draft reply respond call text share forward order reserve remind add create generate render
    show display sort list summarise summarize rewrite code deploy run attach upload post sign plot chart give
    bring change switch keep copy file move name label colour color resize scan fax ship deliver pay transfer
    invite notify buy play read spell""".split())
_POLITE_EN = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|so|and|hey|hi)[, ]+)*(?:please|pls|plz|kindly|could you(?: please)?|can you(?: please)?|"
    r"would you(?: please)?|will you|i'?d like you to|i need you to|from now on,?|going forward,?)\s+|"
    r"[,;]?\s*\b(?:please|pls|plz|again|too|as well|as usual|thanks|thank you)\b[.!]*|[.!?…]+\s*$", re.I)
_DETERMINERS = frozenset("the this that these those my our your a an its their his her it them all every each".split())
_FILLER = frozenset("please pls plz again too thanks thank also just now time next new one ones".split())
_FIRST_PERSON = re.compile(
    r"^\s*i\s+(?:really\s+|strongly\s+|generally\s+|usually\s+|still\s+|much\s+)?"
    r"(prefer|like|love|enjoy|hate|dislike|want|need|favou?r)\b\s*", re.I)
_THIRD_PERSON = {"prefer": "Prefers", "like": "Likes", "love": "Loves", "enjoy": "Enjoys", "hate": "Hates",
                 "dislike": "Dislikes", "want": "Wants", "need": "Needs", "favor": "Favours", "favour": "Favours"}
_POLITE_ZH = re.compile(r"^(?:请你?|麻烦你?|帮我|帮忙|给我|能不能|能否|可不可以|你能|你可以|以后都?|今后都?|从现在(?:起|开始)都?|"
                        r"还是|再|照旧|照样)+|也(?!许)|一下|吧|哦|呀|啊|哈|，?(?:谢谢|谢啦|多谢)|这份|这个|这张|那份|这次的?|"
                        r"[。！!？?，,～~]+$")
_IRREGULAR_GERUND = {"format": "formatting", "ship": "shipping", "email": "emailing", "chat": "chatting",
                     "put": "putting", "set": "setting", "run": "running", "plan": "planning", "cut": "cutting"}


def _gerund(verb: str) -> str:
    verb = verb.lower()
    if verb in _IRREGULAR_GERUND:
        return _IRREGULAR_GERUND[verb]
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        return verb[:-1] + "ing"
    return verb + "ing"


def _plural(noun: str) -> str:
    if noun.endswith("y") and len(noun) > 2 and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def _key(word: str) -> str:
    tokens = keyword_tokens(word)
    return tokens[0] if tokens else word.lower()


def occurrences(records: Sequence[MemoryRecord]) -> str:
    """"said 5 times, 2026-03-18 to 03-22": how often and when, the second date's year left out if the same."""
    count = sum(max(1, r.confirmations) for r in records)
    return f"said {count} times, {_span(records, 'to')}"


def _span(records: Sequence[MemoryRecord], joiner: str) -> str:
    first = min(r.timestamp for r in records)
    last = max(r.last_confirmed or r.timestamp for r in records)
    if first.date() == last.date():
        return f"{first:%Y-%m-%d}"
    return f"{first:%Y-%m-%d} {joiner} {last:%m-%d}" if first.year == last.year else \
        f"{first:%Y-%m-%d} {joiner} {last:%Y-%m-%d}"


def _shared(texts: Sequence[str]) -> tuple[set[str], Counter[str]]:
    support: Counter[str] = Counter()
    for text in texts:
        support.update(set(keyword_tokens(text)))
    need = max(2, (len(texts) + 1) // 2)
    return {t for t, c in support.items() if c >= need}, support


def _medoid_order(vectors: np.ndarray) -> list[int]:
    similarity = np.asarray(vectors, dtype=np.float64) @ np.asarray(vectors, dtype=np.float64).T
    return [int(i) for i in np.argsort(-similarity.mean(axis=1), kind="stable")]


def _best(texts: Sequence[str], shared: set[str], order: list[int]) -> str:
    """The text using the most shared words; ties go to the more representative one."""
    rank = {i: position for position, i in enumerate(order)}
    best = max(range(len(texts)), key=lambda i: (len(shared & set(keyword_tokens(texts[i]))), -rank.get(i, 0)))
    return texts[best]


def _exclusive(word: str) -> bool:
    return any(word.lower() in group for group in EXCLUSIVE_TERMS)


def _request_summary(texts: Sequence[str], shared: set[str]) -> tuple[str, list[str]] | None:
    """("Prefers printing reports in A4 landscape", differing objects) or None if the group does not parse."""
    verbs: Counter[str] = Counter()
    preps: Counter[str] = Counter()
    opened_by: dict[str, Counter[str]] = {}  # shared key -> the prepositions that opened its zone
    zones: dict[str, str] = {}           # shared key -> "object" | "param"
    surface: dict[str, Counter[str]] = {}
    position: dict[str, list[float]] = {}
    objects: list[str] = []
    entity_keys: set[str] = set()
    for text in texts:
        entity_keys.update(_key(e) for e in extract_entities(text) if " " not in e)
        words = _WORD.findall(text)
        if not words:
            continue
        verb = words[0].lower() if words[0].lower() in _REQUEST_VERBS else None
        if verb:
            verbs[verb] += 1
        zone = "object" if verb else "param"
        opener = None
        object_words: list[str] = []
        for i, word in enumerate(words[1:] if verb else words, 1):
            low = word.lower()
            if low in _PREPOSITIONS:
                if zone == "object" or not preps:
                    preps[low] += 1
                zone, opener = "param", low
                continue
            key = _key(word)
            if zone == "object" and low not in _DETERMINERS:
                object_words.append(word)
            if key in shared and low not in STOP_WORDS and low not in _FILLER:
                zones.setdefault(key, zone)
                if zone == "param":
                    zones[key] = "param"
                surface.setdefault(key, Counter())[word] += 1
                if zone == "param" and opener:
                    opened_by.setdefault(key, Counter())[opener] += 1
                position.setdefault(key, []).append(i / len(words))
        if object_words:
            objects.append(" ".join(object_words))
    if not verbs:
        return None
    verb, count = verbs.most_common(1)[0]
    if count < max(2, (len(texts) + 1) // 2) and _key(verb) not in shared:
        return None
    verb_key = _key(verb)
    params = [k for k, z in zones.items() if k != verb_key and (z == "param" or k in entity_keys or
                                                                 any(_exclusive(w) for w in surface[k]))]
    if not params:
        return None
    params.sort(key=lambda k: sum(position[k]) / len(position[k]))
    object_keys = [k for k, z in zones.items() if z == "object" and k not in params and k != verb_key]
    head = [surface[k].most_common(1)[0][0] for k in object_keys][-1:]
    # each parameter after the preposition it usually follows: "on A4 in landscape", "in A4 landscape"
    pieces, previous = [], None
    fallback = preps.most_common(1)[0][0] if preps else "in"
    for k in params:
        prep = opened_by[k].most_common(1)[0][0] if k in opened_by else (previous or fallback)
        pieces.append(surface[k].most_common(1)[0][0] if prep == previous else f"{prep} {surface[k].most_common(1)[0][0]}")
        previous = prep
    thing = f" {_plural(head[0].lower())}" if head else ""
    differing = [] if head else list(dict.fromkeys(o.lower() for o in objects))[:3]
    return f"Prefers {_gerund(verb)}{thing} {' '.join(pieces)}", differing


def _is_chinese(texts: Sequence[str]) -> bool:
    mostly = sum(len(HAN_CHAR.findall(t)) >= 0.3 * max(1, len(t.replace(" ", ""))) for t in texts)
    return mostly * 2 > len(texts)


def extractive_summary(records: Sequence[MemoryRecord], vectors: np.ndarray) -> str:
    """What the group shows, how often and when; the rules are in the module docstring."""
    texts = [strip_speaker(r.summary) for r in records]
    order = _medoid_order(vectors)
    kinds = Counter(r.event_type for r in records)
    wishes = kinds[EventType.REQUEST.value] + kinds[EventType.PREFERENCE.value] + \
        sum(bool(REQUEST.search(t)) for t in texts if not _is_chinese([t]))
    if _is_chinese(texts):
        cleaned = [_POLITE_ZH.sub("", t).strip() or t for t in texts]
        shared, _ = _shared(cleaned)
        clause = _best(cleaned, shared, order)
        prefix = "偏好：" if 2 * (kinds[EventType.REQUEST.value] + kinds[EventType.PREFERENCE.value]) >= len(records) \
            else ""
        count = sum(max(1, r.confirmations) for r in records)
        return f"{prefix}{clause}（说过{count}次，{_span(records, '至')}）"
    cleaned = [_POLITE_EN.sub("", _POLITE_EN.sub("", t)).strip(" ,.") or t for t in texts]
    shared, _ = _shared(cleaned)
    if 2 * wishes >= len(records):
        parsed = _request_summary(cleaned, shared)
        if parsed is not None:
            text, differing = parsed
            extra = f"{', '.join(differing)}; " if differing else ""
            return f"{text} ({extra}{occurrences(records)})"
    best = _best(cleaned, shared, order) if shared else texts[order[0]].rstrip(" .!")
    stated = _FIRST_PERSON.match(best)
    if stated:
        best = f"{_THIRD_PERSON[stated.group(1).lower()]} {best[stated.end():]}".rstrip(" .!")
    return f"{best.rstrip(' .!')} ({occurrences(records)})"


def shared_entities(records: Sequence[MemoryRecord]) -> list[str]:
    """Entities at least half of the group mentions, most frequent first."""
    counts: Counter[str] = Counter()
    spelling: dict[str, str] = {}
    for record in records:
        for entity in {e.lower(): e for e in record.entities}.items():
            counts[entity[0]] += 1
            spelling.setdefault(entity[0], entity[1])
    need = max(1, (len(records) + 1) // 2)
    return [spelling[key] for key, c in counts.most_common() if c >= need]


SUMMARY_PROMPT = """These statements were made by one user on different days:
{statements}

Write ONE short sentence (at most 30 words) stating the stable preference or fact they show, about "the user".
Keep these names and values exactly: {entities}.
Answer with JSON only: {{"summary": "..."}}"""


class SummaryRejected(ValueError):
    """A model's summary failed validation; nothing was written."""


def llm_summary(llm: Callable[[str], str], records: Sequence[MemoryRecord], entities: Sequence[str]) -> str:
    """Ask a model for the summary and validate it; raises SummaryRejected."""
    statements = "\n".join(f"- {r.summary}" for r in records)
    answer = llm(SUMMARY_PROMPT.format(statements=statements, entities=", ".join(entities) or "(none)"))
    return validate_summary(answer, entities)


def validate_summary(answer: Any, entities: Sequence[str]) -> str:
    if not isinstance(answer, str):
        raise SummaryRejected(f"the summariser returned {type(answer).__name__}, not text")
    match = re.search(r"\{.*\}", answer, re.S)
    if not match:
        raise SummaryRejected("the summariser's answer has no JSON object")
    try:
        summary = json.loads(match.group(0)).get("summary")
    except (json.JSONDecodeError, AttributeError) as exc:
        raise SummaryRejected(f"the summariser's JSON is malformed: {exc}") from None
    if not isinstance(summary, str) or not summary.strip():
        raise SummaryRejected("the summary is empty")
    summary = " ".join(summary.split())
    if len(summary) > 400:
        raise SummaryRejected("the summary is longer than 400 characters")
    missing = [e for e in entities if e.lower() not in summary.lower()]
    if missing:
        raise SummaryRejected(f"the summary drops the group's entities: {', '.join(missing)}")
    return summary
