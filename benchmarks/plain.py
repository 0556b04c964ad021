"""Plain baselines over any list of units (a memory, a turn, an exchange): e5 dense, BM25 and their fusion.

A unit is one text and the labelled ids it covers (an exchange covers both of
its turns). The baselines see the same units as hindsight is given, so a hit is
credited the same way:

* `e5 dense (query side)`: memories on e5's "passage: " side, the query on its
  "query: " side (e5's intended use); `e5 dense (passage side)`: the query
  embedded as a passage too (what hindsight's default E5Embedder does).
* `bm25`: rank-bm25's Okapi over lower-cased words; text with Chinese, Japanese
  or Korean characters is cut into words with jieba (search mode) first.
* `e5 dense, top 5 newest first`: e5 dense on its query side, its top 5 sorted by
  date, the latest first (what "the latest statement wins" gives without knowing
  what a question asks about: right for the present, wrong for the past).
* `e5+bm25 rrf (...)`: the two rankings (100 deep each) fused by reciprocal rank,
  k = 60, equal weights; BM25 votes only for units that share a word with the
  query (as a search engine returns only matching documents), so a query in
  another language than the memories is ranked by e5 alone.

Every baseline returns min(k, units) results: nothing is hidden.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Sequence

import numpy as np

from hindsight_core.recall.formatting import CLOSE_TAG, DEFAULT_HEADER, OPEN_TAG, neutralise

_WORD = re.compile(r"\w+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")

DENSE_Q, DENSE_P, BM25 = "e5 dense (query side)", "e5 dense (passage side)", "bm25"
RRF_Q, RRF_P = "e5+bm25 rrf (query side)", "e5+bm25 rrf (passage side)"
NEWEST = "e5 dense, top 5 newest first"
BASELINES = (RRF_Q, RRF_P, DENSE_Q, DENSE_P, BM25)


@dataclass(frozen=True)
class Unit:
    text: str
    ids: tuple[str, ...]
    date: datetime | None = None

    def line(self) -> str:
        """The unit as one line of a prompt block shaped like hindsight's."""
        when = f"[{self.date:%Y-%m-%d}] " if self.date else ""
        return f"- {when}{neutralise(self.text)}"


def tokens(text: str) -> list[str]:
    """Lower-cased words; jieba's words where the text has CJK characters."""
    lowered = text.lower()
    if not _CJK.search(lowered):
        return _WORD.findall(lowered)
    import jieba

    jieba.setLogLevel(60)
    return [w for w in jieba.lcut_for_search(lowered) if _WORD.fullmatch(w)]


def block(units: Sequence[Unit]) -> str:
    """A prompt block with hindsight's header and tags, one line per unit ("" for none)."""
    return "\n".join([OPEN_TAG, DEFAULT_HEADER, *(u.line() for u in units), CLOSE_TAG]) if units else ""


def top(scores: np.ndarray, k: int) -> list[int]:
    k = min(k, len(scores))
    if k <= 0:
        return []
    part = np.argpartition(-scores, k - 1)[:k]
    return part[np.argsort(-scores[part], kind="stable")].tolist()


def rrf(rankings: Sequence[Sequence[int]], k: int = 60) -> list[int]:
    """Items by Σ 1 / (k + rank) over the rankings (ranks 1-based), best first."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            fused[item] = fused.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(fused, key=lambda i: -fused[i])


class PlainIndex:
    """The baselines over one list of units. `query_side` embeds queries as e5 "query: ", `passage_side` not."""

    def __init__(self, units: Sequence[Unit], *, passage_side, query_side, depth: int = 100) -> None:
        from rank_bm25 import BM25Okapi

        self.units = list(units)
        self.passage_side, self.query_side, self.depth = passage_side, query_side, depth
        self.matrix = np.asarray(passage_side.embed([u.text for u in self.units]), dtype=np.float32)
        words = [tokens(u.text) for u in self.units]
        self.bm25 = BM25Okapi(words) if any(words) else None

    def _dense(self, query: str, embedder, k: int) -> list[int]:
        vector = np.asarray(getattr(embedder, "embed_query", embedder.embed)([query])[0], dtype=np.float32)
        return top(self.matrix @ vector, k)

    def _bm25(self, query: str, k: int) -> list[int]:
        if self.bm25 is None:
            return []
        scores = np.asarray(self.bm25.get_scores(tokens(query)))
        return [i for i in top(scores, k) if scores[i] > 0]

    def rank(self, system: str, query: str, k: int) -> list[Unit]:
        if system == DENSE_Q:
            order = self._dense(query, self.query_side, k)
        elif system == DENSE_P:
            order = self._dense(query, self.passage_side, k)
        elif system == BM25:
            order = top(np.asarray(self.bm25.get_scores(tokens(query))), k) if self.bm25 else []
        elif system == NEWEST:
            dense = self._dense(query, self.query_side, k)
            order = sorted(dense[:5], key=lambda i: self.units[i].date or datetime.min, reverse=True) + dense[5:]
        elif system in (RRF_Q, RRF_P):
            side = self.query_side if system == RRF_Q else self.passage_side
            order = rrf([self._dense(query, side, self.depth), self._bm25(query, self.depth)])[:k]
        else:
            raise ValueError(f"unknown baseline {system!r}; one of {(*BASELINES, NEWEST)}")
        return [self.units[i] for i in order]
