"""What every operation of the facade stands on: the store, the embedder and the rules it was built with,
one lock per user, opening a user's space (finishing what a crash interrupted), and the close and forget hooks.

`Hindsight` (`hindsight_core.memory`) adds the operations.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import threading
from collections import OrderedDict
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, TypeVar

import numpy as np

from ..clock import Clock, read_clock, system_clock
from ..config import HindsightConfig, on_similarity_scale, scaled_for_embedder
from ..embed.checked import embed_passages, embed_queries
from ..embed.embedder import DEFAULT_MODEL, Embedder, embedder_named
from ..embed.query_cache import QueryCache
from ..language.text_cache import forget_cached_texts
from ..errors import StoreUnavailableError
from ..events import ForgetListener, ForgetListeners, Forgetting, Forgotten
from ..language.text import validate_id
from ..recall.consensus import ConsensusConfig
from ..safety.audit import AuditVerdict, WriteAudit
from ..safety.held import AuditMemory
from ..safety.session_window import SessionWindow
from ..store import MemoryStore, open_store
from ..types import Source
from ..write.gate import RuleBasedGate, WriteGate
from ..contract.checks import check_clock, check_store_path
from ..write.judge import KnowledgeJudge


def default_home() -> Path:
    """`HINDSIGHT_HOME`, or ~/.hindsight: where the embedded store lives by default."""
    return Path(os.environ.get("HINDSIGHT_HOME") or Path.home() / ".hindsight")


_Facade = TypeVar("_Facade", bound="FacadeBase")

#: users remembered as opened (their interrupted changes finished) per process
OPENED_KEPT = 4096


class FacadeBase:
    """The state and plumbing of `Hindsight`; see its docstring for the arguments."""

    def __init__(self, path: str | Path | None = None, *, location: str | None = None, url: str | None = None,
                 api_key: str | None = None, store: MemoryStore | None = None,
                 embedder: Embedder | str | None = None, clock: Clock = system_clock,
                 gate: WriteGate | None = None, summarizer: Callable[[str], str] | None = None,
                 audit: Callable[[str, Source], AuditVerdict] | None = None,
                 consensus: ConsensusConfig | None | bool = True, judge: Callable[[str], str] | None = None,
                 knowledge_judge: KnowledgeJudge | None = None, config: HindsightConfig | None = None) -> None:
        if store is None and path is not None:
            path = check_store_path(path)
        # everything that can refuse is checked before the store opens: a refusal leaves no folder or open shard
        if embedder is None or isinstance(embedder, str):
            embedder = embedder_named(embedder or DEFAULT_MODEL)
        self.embedder = embedder
        # thresholds are stated on one scale; an embedder whose unrelated texts sit at a higher cosine moves them
        baseline = float(getattr(embedder, "similarity_baseline", 0.0) or 0.0)
        self.config = scaled_for_embedder(config or HindsightConfig(), baseline,
                                          getattr(embedder, "query_similarity_baseline", None))
        self.clock = check_clock(clock)
        self.store = store if store is not None else open_store(path=path, location=location, url=url,
                                                                 api_key=api_key, default=default_home)
        self.gate = gate or RuleBasedGate()
        self.summarizer = summarizer
        self.audit = audit or WriteAudit()
        #: the audit's verdicts in this process, and the texts it held back (never another memory's context)
        self._audited = AuditMemory(self.audit)
        self.session_window = SessionWindow()  # recent agent/tool writes per session, for orders split across them
        self.consensus = ConsensusConfig() if consensus is True else (consensus or None)
        if self.consensus is not None and baseline:
            scaled: dict[str, Any] = {name: on_similarity_scale(getattr(self.consensus, name), baseline)
                                      for name in ("relate_at", "support_at", "polarity_at")}
            self.consensus = dataclasses.replace(self.consensus, **scaled)
        self.judge = judge
        #: who decides supersession and groups, when they are on (`write.judge`; None: the rules)
        self.knowledge_judge = knowledge_judge
        #: users whose interrupted changes were finished in this process (the most recent `OPENED_KEPT`)
        self._opened: OrderedDict[str, None] = OrderedDict()
        #: each user's lock and how many callers hold or wait for it (an entry lives only while in use)
        self._user_locks: dict[str, list] = {}
        self._forget_listeners: ForgetListeners[Forgotten] = ForgetListeners()
        self._before_forget: ForgetListeners[Forgetting] = ForgetListeners()
        self._close_hooks: list[Callable[[], None]] = []
        self._lock = threading.RLock()
        self._closed = False
        self._query_cache = QueryCache()
        #: statements' texts alone, as the knowledge rules compare them (`write.decisions`)
        self._alone_cache = QueryCache(size=4096)

    # -- lifecycle ------------------------------------------------------------------------
    def close(self) -> None:
        for hook in list(self._close_hooks):  # the write queue stores what was handed to it before the store closes
            hook()
        with self._lock:
            if not self._closed:
                self._closed = True
                self.store.close()
            self._drop_cached_texts()
            self.session_window.clear()

    def __enter__(self: _Facade) -> _Facade:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self) -> datetime:
        return read_clock(self.clock)

    @property
    def embedding_model(self) -> str:
        return self.embedder.name

    def local_journal(self) -> Path | None:
        """Beside an embedded store on disk; None for a store that goes with the process or lives on a server."""
        root = getattr(self.store, "root", None)  # the embedded store's folder
        if root is None or self.store.description == ":memory:":
            return None
        return Path(root) / "write-queue.sqlite"  # `session.queue_journal.JOURNAL_NAME`

    # -- helpers --------------------------------------------------------------------------
    def _user(self, user_id: object) -> str:
        return validate_id(user_id, max_chars=self.config.limits.max_id_chars)

    @contextlib.contextmanager
    def _locked(self, user: str) -> Iterator[None]:
        """One lock per user: a slow write for one user never holds up another."""
        with self._lock:
            entry = self._user_locks.setdefault(user, [threading.RLock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self._lock:
                entry[1] -= 1
                if entry[1] == 0:
                    del self._user_locks[user]

    def _open(self, user: str, *, create: bool) -> bool:
        """Whether the user has a space (made if `create`); finishes any change a crash interrupted."""
        if self._closed:  # not the input's fault: a write queue keeps what it holds journaled
            raise StoreUnavailableError("this Hindsight instance is closed")
        exists = self.store.open_user(user, embedding_model=self.embedder.name, dimension=self.embedder.dimension,
                                      create=create)
        if not exists or self._seen_open(user):
            return exists
        migration = self.store.get_meta("migration")
        if migration and user in migration.get("swapping", ()):
            raise StoreUnavailableError(
                f"a migration to {migration.get('model')} is half done for this user; run `hindsight migrate` "
                "to finish it before using the store")
        self.store.recover(user)
        with self._lock:
            self._opened[user] = None
            while len(self._opened) > OPENED_KEPT:
                self._opened.popitem(last=False)
        return True

    def _seen_open(self, user: str) -> bool:
        """Whether the user was opened lately (then nothing is left to finish)."""
        with self._lock:
            if user in self._opened:
                self._opened.move_to_end(user)
                return True
            return False

    def on_close(self, hook: Callable[[], None]) -> None:
        """Call `hook` first when this memory closes, before the store does (the write queue flushes there)."""
        self._close_hooks.append(hook)

    def on_forget(self, listener: ForgetListener) -> None:
        """Call `listener` after each forget with what went (see `hindsight_core.events`); WorkingMemory does."""
        self._forget_listeners.add(listener)

    def before_forget(self, listener: Callable[[Forgetting], None]) -> None:
        """Call `listener` when a forget starts, before it looks at the store (the write queue settles there)."""
        self._before_forget.add(listener)

    def _drop_cached_texts(self) -> None:
        """No cached query or statement keeps a user's words once a forget ran (both caches are keyed by them)."""
        self._query_cache.clear()
        self._alone_cache.clear()
        self._audited.clear()
        forget_cached_texts()  # what the rules read of statements, kept for the whole process

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        return embed_passages(self.embedder, texts)

    def _embed_alone(self, texts: Sequence[str]) -> np.ndarray:
        """Texts alone on the passage side, for the knowledge rules (`write.decisions.decision_vectors`); cached."""
        return self._alone_cache.vectors(texts, lambda fresh: embed_passages(self.embedder, fresh), owner=self.embedder)

    def _embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """A repeated query from the cache (never a vector another embedder made)."""
        return self._query_cache.vectors(texts, lambda fresh: embed_queries(self.embedder, fresh), owner=self.embedder)
