"""What a question asks about in time: a date it names, the past, or the present.

Used to measure where a ranking prior helps and where it hurts. The classes are
read from small closed grammatical sets, never from topic words:

* `date`: the question names a time (`hindsight_core.language.timeparse.time_hints`:
  "last June", "in May 2023", "上个月");
* `past`: English past auxiliaries (did, was, were, had, used to, and their
  negations) or Chinese past-time adverbs (曾经, 以前, 之前, 当时, 那时, 上次) and the
  aspect particles 了 and 过 closing a clause;
* `present`: everything else ("What do I drink?", "Where does she live?",
  "我现在用什么数据库？").

A question made of a dialogue so far is classed by its last line, the turn
being answered (as `recall.plan.time_priors` reads it).
"""

from __future__ import annotations

import re
from datetime import datetime

from hindsight_core.language.timeparse import time_hints
from hindsight_core.recall.plan import last_utterance

CLASSES = ("date", "past", "present")
_EN_PAST = re.compile(r"\b(?:did|didn't|was|wasn't|were|weren't|had|hadn't|used to)\b", re.I)
_ZH_PAST = re.compile(r"曾经|以前|之前|当时|那时|上次|[了过](?=[吗呢吧啊？?。，,！!]|$)")


def query_class(query: str, now: datetime) -> str:
    """'date', 'past' or 'present' (see the module doc)."""
    line = last_utterance(query)
    if time_hints(line, now):
        return "date"
    if _EN_PAST.search(line) or _ZH_PAST.search(line):
        return "past"
    return "present"
