"""A text -> vector cache in front of an embedder, optionally kept on disk between runs.

Benchmarks embed the same texts many times (every system and every variant
sees the same turns); the model is the slow part on a CPU, so each text is
embedded once. On disk: `<stem>.npy` (float32 rows) and `<stem>.keys.json`
(the sha1 of each row's text, and the model name), under benchmarks/results/cache/
which git ignores. `live = True` sends every call to the model, for timings.
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


class CachedEmbedder:
    """Serves vectors it has seen before and embeds the rest in one batch; looks like any `Embedder`."""

    def __init__(self, inner, path: Path | None = None) -> None:
        self.inner = inner
        self.name, self.dimension = inner.name, inner.dimension
        # what hindsight reads off an embedder besides embed(): passed through unchanged
        for attribute in ("multilingual", "similarity_baseline"):
            if hasattr(inner, attribute):
                setattr(self, attribute, getattr(inner, attribute))
        if hasattr(inner, "embed_query"):
            self.embed_query = self._embed_query
        self.path = path
        self.live = False
        self.model_calls = 0
        self._rows: dict[str, np.ndarray] = {}
        self._dirty = False
        if path is not None:
            self._load(path)

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
        """As `warm`, for the query side of embedders that embed queries apart (e5)."""
        if not hasattr(self.inner, "embed_query"):
            return self.warm(texts)
        missing = list(dict.fromkeys(t for t in texts if _key("query: " + t) not in self._rows))
        if missing:
            self.model_calls += 1
            for text, vector in zip(missing, np.asarray(self.inner.embed_query(missing), dtype=np.float32)):
                self._rows[_key("query: " + text)] = vector
            self._dirty = True
        return len(missing)

    def _embed_query(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if self.live:
            self.model_calls += 1
            return np.asarray(self.inner.embed_query(texts), dtype=np.float32)
        self.warm_queries(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._rows[_key("query: " + t)] for t in texts])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if self.live:
            self.model_calls += 1
            return np.asarray(self.inner.embed(texts), dtype=np.float32)
        self.warm(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._rows[_key(t)] for t in texts])
