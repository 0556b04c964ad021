"""What the agent saw: a bounded, per-user log of the recalls served, kept in the server's memory only.

Each entry holds the query, the memories returned with their explanations, the block injected and which caller asked; a
recall that gave nothing is not kept. It is bounded by `max_entries` per user, `max_total` across users (the oldest
leaving first) and `max_age`, and never written to disk. A forget removes a forgotten memory's traces: the memory leaves
every entry and each block is rebuilt without it; an entry whose query is a forgotten text or the topic goes whole, and
so, for a forget about a topic, does every entry whose results named a forgotten memory; forgetting a user drops their
log. User ids are keyed as the facade keys them (`normalise_id`).
"""

from __future__ import annotations

import itertools
import threading
from collections import deque
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Callable, Iterable

from ..events import Forgotten
from ..language.text import normalise_id
from ..recall.formatting import format_for_prompt
from ..types import ScoredMemory

DEFAULT_MAX_ENTRIES = 200
DEFAULT_MAX_AGE = timedelta(days=7)
#: entries kept across every user: many users each under their own cap still stop here (the oldest leave first)
DEFAULT_MAX_TOTAL = 10_000


@dataclass(frozen=True)
class RecallEntry:
    """One recall served: who asked, in which session, for what, and what they were given."""

    number: int
    at: datetime
    user_id: str
    session: str
    caller: str
    query: str
    results: tuple[ScoredMemory, ...]
    block: str
    #: memories later forgotten and taken out of this entry
    withdrawn: int = 0


@dataclass
class RecallLog:
    """Per-user ring of `RecallEntry`, thread-safe; `enabled=False` keeps nothing."""

    clock: Callable[[], datetime]
    enabled: bool = True
    max_entries: int = DEFAULT_MAX_ENTRIES
    max_age: timedelta = DEFAULT_MAX_AGE
    max_total: int = DEFAULT_MAX_TOTAL
    _entries: dict[str, deque[RecallEntry]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _numbers: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    #: users who withdrew their consent: nothing of theirs is kept
    _refused: set[str] = field(default_factory=set)
    #: (entry number, user) in the order entries came, for `max_total`
    _order: deque[tuple[int, str]] = field(default_factory=deque)

    def consent(self, user_id: str, given: bool) -> None:
        """A user's own say: withdrawing drops what is kept and keeps nothing more; giving it back resumes."""
        user_id = normalise_id(user_id)
        with self._lock:
            if given:
                self._refused.discard(user_id)
            else:
                self._refused.add(user_id)
                self._entries.pop(user_id, None)

    def keeps(self, user_id: str) -> bool:
        return self.enabled and normalise_id(user_id) not in self._refused

    def add(self, user_id: str, query: str, results: Iterable[ScoredMemory], *, caller: str,
            session: str | None = None) -> RecallEntry | None:
        user_id = normalise_id(user_id)
        results = tuple(results)
        if not results or not self.keeps(user_id):  # nothing shown (a user with no memories): only a query to hold
            return None
        entry = RecallEntry(next(self._numbers), self.clock(), user_id, session or "-", caller, query, results,
                            format_for_prompt(results))
        with self._lock:
            if user_id in self._refused:  # withdrawn while this recall ran
                return None
            ring = self._entries.setdefault(user_id, deque(maxlen=self.max_entries))
            ring.append(entry)
            self._expire(ring)
            self._order.append((entry.number, user_id))
            self._bound()
        return entry

    def _bound(self) -> None:
        """Drop the oldest entries of any user while more than `max_total` are kept (under the lock).

        `_order` lists entries in the order they came; those already gone are skipped, and swept when they
        outnumber the live ones."""
        if len(self._order) <= self.max_total:  # every entry kept is in `_order`
            return
        total = sum(len(ring) for ring in self._entries.values())
        while total > self.max_total and self._order:
            number, user = self._order.popleft()
            ring = self._entries.get(user)
            if ring and ring[0].number == number:
                ring.popleft()
                total -= 1
                if not ring:
                    del self._entries[user]
        if len(self._order) > 2 * total + 64:
            live = {(e.number, u) for u, ring in self._entries.items() for e in ring}
            self._order = deque(item for item in self._order if item in live)

    def entries(self, user_id: str, *, session: str | None = None) -> list[RecallEntry]:
        """The user's entries, newest first (only one session's, if named)."""
        with self._lock:
            ring = self._entries.get(normalise_id(user_id))
            if ring is None:
                return []
            self._expire(ring)
            found = list(ring)
        return [e for e in reversed(found) if session is None or e.session == session]

    def sessions(self, user_id: str) -> list[tuple[str, int]]:
        """(session, number of entries), the most recently active session first."""
        seen: dict[str, int] = {}
        for entry in self.entries(user_id):
            seen[entry.session] = seen.get(entry.session, 0) + 1
        return list(seen.items())

    def forget(self, event: Forgotten) -> int:
        """A `Hindsight.on_forget` listener: take forgotten memories out; returns how many entries changed."""
        user = normalise_id(event.user_id)
        with self._lock:
            if event.everything:
                ring = self._entries.pop(user, None)
                return len(ring) if ring else 0
            ring = self._entries.get(user)
            texts = event.texts or frozenset()
            named = texts | ({event.about} if event.about else set())
            if not ring or not named:
                return 0
            changed, left = 0, deque[RecallEntry](maxlen=ring.maxlen)
            for entry in ring:
                kept = tuple(r for r in entry.results if r.memory.raw_content not in texts)
                if _names(entry.query, named) or (event.about is not None and len(kept) != len(entry.results)):
                    changed += 1  # an entry about what went goes whole
                    continue
                if len(kept) != len(entry.results):
                    entry = replace(entry, results=kept, block=format_for_prompt(kept),
                                    withdrawn=entry.withdrawn + len(entry.results) - len(kept))
                    changed += 1
                left.append(entry)
            self._entries[user] = left
            return changed

    def _expire(self, ring: deque[RecallEntry]) -> None:
        oldest = self.clock() - self.max_age
        while ring and ring[0].at < oldest:
            ring.popleft()


def _names(query: str, texts: Iterable[str]) -> bool:
    """Whether a logged query is one of the forgotten texts, or one holds the other (spacing and case aside)."""
    asked = " ".join(query.split()).casefold()
    if not asked:
        return False
    return any(asked in said or said in asked
               for said in (" ".join(t.split()).casefold() for t in texts) if said)
