"""An incremental BM25 (Okapi) index over integer slots, scored with numpy.

Unlike rank-bm25 and bm25s, which build a static index, this one takes adds
and removes in place, so a write or a forget never rebuilds it. Scoring is

    score(d, q) = Σ_{t ∈ q} idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))
    idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))

(the Lucene variant, never negative).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np


class BM25Index:
    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self._postings: dict[str, dict[int, int]] = {}
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._doc_terms: dict[int, Counter[str]] = {}
        self._doc_len = np.zeros(0, dtype=np.float32)
        self._total_len = 0

    def __len__(self) -> int:
        return len(self._doc_terms)

    def __contains__(self, slot: int) -> bool:
        return slot in self._doc_terms

    def add(self, slot: int, tokens: list[str]) -> None:
        if slot in self._doc_terms:
            self.remove(slot)
        terms = Counter(tokens)
        self._doc_terms[slot] = terms
        if slot >= len(self._doc_len):
            grown = np.zeros(max(slot + 1, 2 * len(self._doc_len), 64), dtype=np.float32)
            grown[: len(self._doc_len)] = self._doc_len
            self._doc_len = grown
        self._doc_len[slot] = len(tokens)
        self._total_len += len(tokens)
        for term, tf in terms.items():
            self._postings.setdefault(term, {})[slot] = tf
            self._arrays.pop(term, None)

    def remove(self, slot: int) -> None:
        terms = self._doc_terms.pop(slot, None)
        if terms is None:
            return
        self._total_len -= int(self._doc_len[slot])
        self._doc_len[slot] = 0
        for term in terms:
            posting = self._postings.get(term)
            if posting is not None:
                posting.pop(slot, None)
                if not posting:
                    del self._postings[term]
            self._arrays.pop(term, None)

    def _posting_arrays(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        cached = self._arrays.get(term)
        if cached is None:
            posting = self._postings.get(term)
            if not posting:
                return None
            cached = (np.fromiter(posting.keys(), dtype=np.int64, count=len(posting)),
                      np.fromiter(posting.values(), dtype=np.float32, count=len(posting)))
            self._arrays[term] = cached
        return cached

    def scores(self, query_tokens: list[str], size: int) -> np.ndarray:
        """BM25 score of every slot below `size` (0 where no query term occurs)."""
        out = np.zeros(size, dtype=np.float32)
        n = len(self._doc_terms)
        if n == 0:
            return out
        avgdl = max(self._total_len / n, 1e-9)
        for term in set(query_tokens):
            arrays = self._posting_arrays(term)
            if arrays is None:
                continue
            slots, tf = arrays
            df = len(slots)
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            norm = self.k1 * (1.0 - self.b + self.b * self._doc_len[slots] / avgdl)
            keep = slots < size
            out[slots[keep]] += (idf * tf * (self.k1 + 1.0) / (tf + norm))[keep]  # slots are unique per term
        return out
