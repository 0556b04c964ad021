"""The query vectors of recent queries: an agent asks the same thing again, and the embedding is most of a recall."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Sequence

import numpy as np


class QueryCache:
    """A small LRU of query vectors keyed by the query's text (`size` entries; 0 turns it off).

    `vectors(texts, embed)` returns one read-only row per text, embedding only the texts not cached, in one call.
    """

    def __init__(self, size: int = 256) -> None:
        self.size = int(size)
        self._rows: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self._owner: object = None

    def vectors(self, texts: Sequence[str], embed: Callable[[list[str]], np.ndarray], owner: object = None) -> np.ndarray:
        """One row per text; `owner` is the embedder: when it changes, the cache starts afresh."""
        texts = list(texts)
        with self._lock:
            if owner is not self._owner:
                self._rows.clear()
                self._owner = owner
            found = {t: self._rows[t] for t in texts if t in self._rows}
            for t in found:
                self._rows.move_to_end(t)
            self.hits += len(found)
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            fresh = np.asarray(embed(missing), dtype=np.float32)
            with self._lock:
                for text, row in zip(missing, fresh):
                    row = row.copy()
                    row.setflags(write=False)
                    found[text] = row
                    if self.size > 0:
                        self._rows[text] = row
                while len(self._rows) > self.size:
                    self._rows.popitem(last=False)
        return np.stack([found[t] for t in texts]) if texts else np.zeros((0, 0), dtype=np.float32)

    def clear(self) -> None:
        """Drop every cached text and vector (a forget: the texts are the user's words)."""
        with self._lock:
            self._rows.clear()
