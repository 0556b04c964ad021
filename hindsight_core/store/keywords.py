"""Keyword statistics per user: the BM25 channel weighs a query's terms by the memories of the user who asks.

Users share the engine's shards, and an IDF over a whole shard would let one user's writes move another's keyword
scores (membership inference across tenants). So the shards keep plain BM25 term weights (no IDF modifier), and each
query term is weighted by the asking user's own counts:

    idf(t) = ln(1 + (N − n_t + 0.5) / (n_t + 0.5))

N: the user's memories holding at least one term, n_t: those holding t (Qdrant's formula over one user's points).
The counts of the users recently asked about are kept in memory (`KeywordStats`, bounded), read once from the user's
points and kept in step with every change the store makes to them.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace
from typing import Callable, Iterable, Sequence

from .fields import SPARSE
from .values import Recent, SearchRequest


def idf(documents: int, holding: int) -> float:
    """ln(1 + (N − n + 0.5) / (n + 0.5)): the weight of a term `holding` of a user's `documents` memories hold."""
    return math.log(1.0 + (documents - holding + 0.5) / (holding + 0.5))


class TermCounts:
    """How many of one user's memories hold each term, and how many hold any."""

    def __init__(self) -> None:
        self.documents = 0
        self.holding: dict[int, int] = {}

    def add(self, terms: Sequence[int], sign: int = 1) -> None:
        """Count one memory's terms in (`sign` 1) or out (-1); a memory with no term counts for nothing."""
        if not terms:
            return
        self.documents += sign
        holding = self.holding
        for term in terms:
            left = holding.get(term, 0) + sign
            if left > 0:
                holding[term] = left
            else:
                holding.pop(term, None)

    def weights(self, terms: Sequence[int], values: Sequence[float]) -> list[float]:
        """A query's term values weighted by this user's IDF."""
        n = self.documents
        return [value * idf(n, self.holding.get(term, 0)) for term, value in zip(terms, values)]


class KeywordStats:
    """The `TermCounts` of the `kept` users most recently asked about (the others are counted again when asked)."""

    def __init__(self, kept: int) -> None:
        self._users: Recent[TermCounts] = Recent(kept)

    def of(self, user_id: str, read: Callable[[], Iterable[Sequence[int]]]) -> TermCounts:
        """The user's counts; `read` gives every memory's terms when they are not kept (a user's first recall in a
        process reads them all, counted in bulk)."""
        counts = self._users.get(user_id)
        if counts is None:
            counts, holding = TermCounts(), Counter[int]()
            for terms in read():
                if terms:
                    counts.documents += 1
                    holding.update(terms)
            counts.holding = dict(holding)
            self._users[user_id] = counts
        return counts

    def kept(self, user_id: str) -> TermCounts | None:
        return self._users.get(user_id)

    def forget(self, user_id: str) -> None:
        self._users.pop(user_id)


def weighted(request: SearchRequest, counts: TermCounts) -> SearchRequest:
    """`request` with its keyword channel's values weighted by one user's counts."""
    channels = tuple(replace(c, vector=(list(c.vector[0]), counts.weights(*c.vector))) if c.using == SPARSE else c
                     for c in request.channels)
    return replace(request, channels=channels)
