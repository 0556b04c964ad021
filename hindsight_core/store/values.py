"""The values that cross the storage interface: scopes, search requests, hits.

Both backends and the recall plan speak these; the interfaces themselves are in `hindsight_core.store.base`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Generic, Mapping, TypeVar

import numpy as np

from ..contract.options import RecallOptions
from ..types import Layer, MemoryRecord, Status
from .fields import epoch_days, metadata_digests

# A user's spaces: the memories recall sees, the archive, and the staging copies of
# both that `hindsight migrate` fills with re-embedded vectors before swapping them in.
MEMORIES, ARCHIVE, STAGING, STAGING_ARCHIVE = "memories", "archive", "staging", "staging_archive"
SPACES = (MEMORIES, ARCHIVE, STAGING, STAGING_ARCHIVE)


@dataclass(frozen=True)
class Scope:
    """Which of a user's memories a query may see: every field narrows, None means any."""

    layers: frozenset[Layer] | None = None
    statuses: frozenset[Status] | None = frozenset({Status.ACTIVE})
    event_types: frozenset[str] | None = None
    session_id: str | None = None
    agent_id: str | None = None
    start: datetime | None = None
    end: datetime | None = None
    #: only episodes not yet consolidated into knowledge
    unconsolidated: bool = False
    #: metadata entries the memory must hold (top-level scalars, matched through their digests)
    metadata: Mapping[str, Any] | None = None
    #: only knowledge drawn from at least one of these memory ids
    derived_from: frozenset[str] | None = None

    @classmethod
    def of(cls, options: RecallOptions) -> Scope:
        """The filters of a recall's `checked` options."""
        window = options.time_range
        return cls(layers=frozenset(Layer(x) for x in options.layers) if options.layers is not None else None,
                   event_types=frozenset(options.event_types) if options.event_types is not None else None,
                   session_id=options.session_id, agent_id=options.agent_id,
                   start=getattr(window, "start", None), end=getattr(window, "end", None))


ALL = Scope(statuses=None)


def conditions(scope: Scope) -> list[tuple]:
    """A scope as engine-neutral conditions, each backend translates them:
    ("any", key, [values]), ("eq", key, value), ("range", key, gte, lt) on epoch-day floats."""
    out: list[tuple] = []
    for key, values in (("status", scope.statuses), ("layer", scope.layers), ("event_type", scope.event_types)):
        if values is not None:
            out.append(("any", key, sorted(v.value if hasattr(v, "value") else str(v) for v in values)))
    for key, value in (("session_id", scope.session_id), ("agent_id", scope.agent_id)):
        if value is not None:
            out.append(("eq", key, value))
    if scope.start is not None or scope.end is not None:
        out.append(("range", "ts_days", epoch_days(scope.start) if scope.start else None,
                    epoch_days(scope.end) if scope.end else None))
    if scope.unconsolidated:
        out.append(("range", "is_consolidated", None, 0.5))
    out.extend(("eq", "meta_keys", digest) for digest in metadata_digests(scope.metadata or {}))
    if scope.derived_from is not None:
        out.append(("any", "derived_from", sorted(scope.derived_from)))
    return out


@dataclass(frozen=True)
class Channel:
    """One prefetch of the recall plan: a dense or a sparse query with its own limit."""

    using: str  # "dense" or "bm25"
    vector: Any  # list[float] for dense, (indices, values) for sparse
    limit: int
    score_threshold: float | None = None


@dataclass(frozen=True)
class SearchRequest:
    """A recall plan as the engine runs it: channels fused by weighted RRF, then a formula.

    `formula` is an expression tree from `recall.formula` over the fused score (`"$score"`) and payload variables.
    """

    channels: tuple[Channel, ...]
    weights: tuple[float, ...]
    rrf_k: int
    formula: Any
    limit: int
    scope: Scope


@dataclass
class Hit:
    """A record the engine returned, with its score and (if asked) its dense vector."""

    record: MemoryRecord
    score: float = 0.0
    vector: np.ndarray | None = None
    #: sparse term ids of the record (for the keyword-coverage part of explanations)
    terms: frozenset[int] = field(default_factory=frozenset)
    #: the order records were written in (ties of equal timestamps keep it)
    seq: int = 0


@dataclass
class SearchResult:
    hits: list[Hit]


@dataclass
class LoadReport:
    """Records that could not be read: set aside, never fatal (see `Hindsight.health`)."""

    unreadable: list[tuple[str, str]] = field(default_factory=list)


def check_registered(entry: dict[str, Any], embedding_model: str, dimension: int) -> None:
    """Refuse an embedder other than the one a user's memories were embedded with, saying what to do."""
    from ..errors import EmbedderMismatchError

    if entry["dimension"] != dimension or entry["embedding_model"] != embedding_model:
        raise EmbedderMismatchError(
            f"the memories of this user were embedded with {entry['embedding_model']} "
            f"({entry['dimension']} dims), but the configured embedder is {embedding_model} "
            f"({dimension} dims). Use the same model, or run `hindsight migrate` to re-embed the store.")


def open_registered(entry: dict[str, Any] | None, embedding_model: str, dimension: int, *, create: bool,
                    register: Callable[[], None]) -> bool:
    """`open_user`'s rule on both backends: a registered user is checked against the embedder; an unknown
    one is registered (`register`: the registry entry and the memories space) only when `create`."""
    if entry is not None:
        check_registered(entry, embedding_model, dimension)
        return True
    if create:
        register()
    return create


_V = TypeVar("_V")

#: registry entries a store keeps in memory (the most recently used users; the others are read again)
USERS_KEPT = 4096


class Recent(Generic[_V]):
    """A map of the `size` most recently used keys (thread-safe): what a store caches per user stays bounded
    however many users a process serves."""

    def __init__(self, size: int = USERS_KEPT) -> None:
        self.size = int(size)
        self._items: OrderedDict[str, _V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> _V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def __setitem__(self, key: str, value: _V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def pop(self, key: str, default: _V | None = None) -> _V | None:
        with self._lock:
            return self._items.pop(key, default)

    def __len__(self) -> int:
        return len(self._items)
