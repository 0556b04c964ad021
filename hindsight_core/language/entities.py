"""Rule-based entity extraction (English and Chinese), with no model.

Entities make a memory findable and forgettable by name: proper names, codes such as "A4", dates, numbers with
units, e-mail addresses, and quoted or bracketed terms.
"""

from __future__ import annotations

import re

from .text_cache import per_text

_PROPER = re.compile(r"\b([A-Z][a-zA-Z0-9&'\-]+(?:\s+(?:of|de|van|von|the)?\s*[A-Z][a-zA-Z0-9&'\-]+)*)")
_CODE = re.compile(r"\b(?=[A-Za-z0-9\-]*[0-9])(?=[A-Za-z0-9\-]*[A-Za-z])[A-Za-z0-9\-]{2,}\b")
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.-]+\b")
_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|"
    r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?\b|"
    r"\d{4}年\d{1,2}月(?:\d{1,2}[日号])?|\d{1,2}月\d{1,2}[日号]"
)
_AMOUNT = re.compile(r"[$€£¥]\s?\d[\d,.]*|\b\d[\d,.]*\s?(?:%|kg|km|GB|MB|USD|EUR|RMB|元|块|万|点|号|个)")
_QUOTED = re.compile(r"[“\"「《『]([^”\"」》』]{1,40})[”\"」》』]")
_CJK_NAME = re.compile(r"(?:叫|是|名叫|名字是)([\u4e00-\u9fff]{2,4})(?=[，。,.\s]|$)")

_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s*|\n\s*)[\"'“(]*$")
_NOT_NAMES = frozenset(
    """I I'm I've I'll I'd The A An And But Or If So Then This That These Those There Here What When
    Where Why How Who Which Please Thanks Thank Yes No Ok Okay Hi Hello Hey Dear From Also Actually
    Maybe Sure Great Good Well Oh My Our Your We You He She It They Can Could Would Should Will
    Let Let's Remember Note Today Tomorrow Yesterday Monday Tuesday Wednesday Thursday Friday
    Saturday Sunday""".split()
)


def extract_entities(text: str, limit: int = 16) -> list[str]:
    """Entities in order of appearance, de-duplicated case-insensitively."""
    return list(_entities(text)[:limit])


@per_text
def _entities(text: str) -> tuple[str, ...]:
    """Every entity of a text (kept: a write reads them for its gate and its record, a request's check again)."""
    found: list[str] = []
    for pattern in (_EMAIL, _DATE, _AMOUNT, _CODE):
        found.extend(m.group(0).strip() for m in pattern.finditer(text))
    for m in _QUOTED.finditer(text):
        found.append(m.group(1).strip())
    for m in _CJK_NAME.finditer(text):
        found.append(m.group(1))
    for m in _PROPER.finditer(text):
        words = m.group(1).split()
        # a lone capitalised word opening a sentence is grammar, not a name (searched in a bounded window: linear)
        if len(words) == 1 and _SENTENCE_START.search(text, max(0, m.start() - 64), m.start()):
            continue
        words = [w for w in words if w not in _NOT_NAMES and w.split("'")[0] not in _NOT_NAMES]
        if words:
            found.append(" ".join(words))
    seen: set[str] = set()
    unique: list[str] = []
    for item in found:
        key = item.lower()
        if item and key not in seen:
            seen.add(key)
            unique.append(item)
    return tuple(unique)
