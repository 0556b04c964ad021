"""A text -> vector cache in front of an embedder, optionally kept on disk between runs.

Benchmarks embed the same texts many times (every system and every variant
sees the same turns); the model is the slow part on a CPU, so each text is
embedded once. On disk: `<stem>.npy` (float32 rows) and `<stem>.keys.json`
(the sha1 of each row's text, and the model name), under benchmarks/results/cache/
which git ignores. `live = True` sends every call to the model, for timings.

Queries: an embedder that embeds queries apart (e5 with `symmetric=False`) has
its query vectors cached under their own keys; a symmetric one (e5's default:
queries embedded as passages) is served from the passage rows. `sharing(inner)`
gives a second view on the same rows for the same model used the other way (one
file, one save), so a run can compare e5's query side with its passage side.
Every other attribute (`similarity_baseline`, `query_similarity_baseline`,
`multilingual`, `symmetric`, ...) is read from the embedder, so hindsight
configures itself exactly as it would without the cache.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Sequence

import numpy as np

CACHE_DIR = Path(__file__).resolve().parent / "results" / "cache"


def ensure_cache_dir(folder: Path = CACHE_DIR) -> Path:
    """Create the cache folder with a .gitignore that keeps it out of git."""
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n")
    return folder


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


#: prefix of the cache key of a query-side vector (the earlier "query: " keys may hold passage vectors: unused)
_QUERY = "query-side\x00"


def embeds_queries_apart(embedder) -> bool:
    """Whether `embedder.embed_query` differs from `embed` (e5 on its query side; not e5 symmetric)."""
    return hasattr(embedder, "embed_query") and not getattr(embedder, "symmetric", False)


class _Rows:
    """The vectors of one cache file, shared by every view on it."""

    def __init__(self) -> None:
        self.vectors: dict[str, np.ndarray] = {}
        self.dirty = False


class CachedEmbedder:
    """Serves vectors it has seen before and embeds the rest in one batch; looks like any `Embedder`."""

    def __init__(self, inner, path: Path | None = None, *, _rows: _Rows | None = None) -> None:
        self.inner = inner
        self.name, self.dimension = inner.name, inner.dimension
        if hasattr(inner, "embed_query"):
            self.embed_query = self._embed_query
        self.path = path
        self.live = False
        self.model_calls = 0
        self._store = _rows or _Rows()
        if path is not None and _rows is None:
            self._load(path)

    def __getattr__(self, name: str):
        # what hindsight reads off an embedder besides embed() (similarity_baseline, query_similarity_baseline,
        # multilingual, symmetric, ...): the embedder's own values
        if name.startswith("__") or name in ("inner", "_store"):
            raise AttributeError(name)
        return getattr(self.inner, name)

    @property
    def _rows(self) -> dict[str, np.ndarray]:
        return self._store.vectors

    @_rows.setter
    def _rows(self, rows: dict[str, np.ndarray]) -> None:
        self._store.vectors = rows

    @property
    def _dirty(self) -> bool:
        return self._store.dirty

    @_dirty.setter
    def _dirty(self, value: bool) -> None:
        self._store.dirty = value

    def sharing(self, inner) -> "CachedEmbedder":
        """A view on the same rows (same file) for `inner`, the same model used another way (e5's other side)."""
        if inner.name != self.name or inner.dimension != self.dimension:
            raise ValueError(f"{inner.name} cannot share the vectors of {self.name}")
        return CachedEmbedder(inner, self.path, _rows=self._store)

    def _load(self, path: Path) -> None:
        keys_file = path.with_suffix(".keys.json")
        if not (path.exists() and keys_file.exists()):
            return
        meta = json.loads(keys_file.read_text())
        if meta.get("model") != self.name:
            return
        vectors = np.load(path)
        if len(vectors) == len(meta["keys"]):
            self._rows = dict(zip(meta["keys"], vectors))

    def save(self) -> None:
        if self.path is None or not self._dirty:
            return
        ensure_cache_dir(self.path.parent)
        keys = list(self._rows)
        matrix = np.stack([self._rows[k] for k in keys]) if keys else np.zeros((0, self.dimension), np.float32)
        np.save(self.path, matrix.astype(np.float32))
        self.path.with_suffix(".keys.json").write_text(json.dumps({"model": self.name, "keys": keys}))
        self._dirty = False

    def __contains__(self, text: str) -> bool:
        return _key(text) in self._rows

    def warm(self, texts: Sequence[str]) -> int:
        """Embed whatever of `texts` is not cached yet (one batch); returns how many were new."""
        missing = list(dict.fromkeys(t for t in texts if _key(t) not in self._rows))
        if missing:
            self.model_calls += 1
            for text, vector in zip(missing, np.asarray(self.inner.embed(missing), dtype=np.float32)):
                self._rows[_key(text)] = vector
            self._dirty = True
        return len(missing)

    def warm_queries(self, texts: Sequence[str]) -> int:
        """As `warm`, for the query side of embedders that embed queries apart (e5 with symmetric=False)."""
        if not embeds_queries_apart(self.inner):
            return self.warm(texts)
        missing = list(dict.fromkeys(t for t in texts if _key(_QUERY + t) not in self._rows))
        if missing:
            self.model_calls += 1
            for text, vector in zip(missing, np.asarray(self.inner.embed_query(missing), dtype=np.float32)):
                self._rows[_key(_QUERY + text)] = vector
            self._dirty = True
        return len(missing)

    def _embed_query(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if self.live:
            self.model_calls += 1
            return np.asarray(self.inner.embed_query(texts), dtype=np.float32)
        if not embeds_queries_apart(self.inner):
            return self.embed(texts)
        self.warm_queries(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._rows[_key(_QUERY + t)] for t in texts])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if self.live:
            self.model_calls += 1
            return np.asarray(self.inner.embed(texts), dtype=np.float32)
        self.warm(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._rows[_key(t)] for t in texts])
