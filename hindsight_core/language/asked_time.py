"""What a question asks about in time: a date it names, the past, or the present.

Read from small closed grammatical sets, never from topic words: `date` when the question names a time
(`timeparse.time_hints`); `past` for English past auxiliaries, Chinese past-time adverbs or 了 and 过 closing a clause, or
an adverb of a time before a change ("originally", 原来, "搬家前"); `present` otherwise. A query made of a dialogue is
classed by its last line. Recall reads it to decide whether a superseded memory steps back.
"""

from __future__ import annotations

import re
from datetime import datetime

from .timeparse import time_hints

CLASSES = ("date", "past", "present")
_EN_PAST = re.compile(r"\b(?:did|didn't|was|wasn't|were|weren't|had|hadn't|used to)\b", re.I)
_ZH_PAST = re.compile(r"曾经|以前|之前|当时|那时|上次|[了过](?=[吗呢吧啊？?。，,！!]|$)")
#: a time before a change, in either language: what held then, not now
_BEFORE = re.compile(r"\b(?:before|originally|at first|initially|previously|formerly|back then)\b|原来|原本|本来|起初|最初|"
                     r"一开始|当初|(?<![目当眼提])前(?![天年面端台])", re.I)


def last_utterance(query: str) -> str:
    """The last non-empty line of a query: in a dialogue so far, the turn being answered."""
    lines = [line for line in query.splitlines() if line.strip()]
    return lines[-1] if lines else query


def asks_about_past(line: str) -> bool:
    """Whether one line asks in the past tense (the module's closed sets)."""
    return bool(_EN_PAST.search(line) or _ZH_PAST.search(line) or _BEFORE.search(line))


def asked_time(query: str, now: datetime) -> str:
    """'date', 'past' or 'present' (see the module doc)."""
    line = last_utterance(query)
    if time_hints(line, now):
        return "date"
    return "past" if asks_about_past(line) else "present"
