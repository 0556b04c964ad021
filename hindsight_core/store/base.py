"""The storage interface both backends implement, and the values that cross it.

A backend stores memory records with two vectors each (a dense embedding and a
sparse BM25 vector, see `hindsight_core.store.points`) and runs the recall plan
(`hindsight_core.recall.plan`) inside its engine. Recall rules never live here:
a backend only translates a `SearchRequest` into its engine's query API and
records to and from its payload format.

Two backends: `EdgeStore` (Qdrant Edge, in-process, the default) and
`ServerStore` (a Qdrant server through qdrant-client). `tests/store/` runs one
behavioural suite on both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterator, Mapping, Protocol, Sequence

import numpy as np

from ..types import Layer, MemoryRecord, Status

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


ALL = Scope(statuses=None)


def conditions(scope: Scope) -> list[tuple]:
    """A scope as engine-neutral conditions, each backend translates them:
    ("any", key, [values]), ("eq", key, value), ("range", key, gte, lt) on epoch-day floats."""
    from .points import epoch_days, metadata_digests

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

    `formula` is an expression tree from `hindsight_core.recall.formula` over the
    fused score (`"$score"`) and payload variables; each backend compiles it.
    `probes` are extra single-channel top-n queries run in the same batch (the
    cue check needs each channel's own ranking).
    """

    channels: tuple[Channel, ...]
    weights: tuple[float, ...]
    rrf_k: int
    formula: Any
    limit: int
    scope: Scope
    probes: tuple[Channel, ...] = ()


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
    #: per probe, the ids it ranked, best first
    probes: list[list[str]]


@dataclass
class LoadReport:
    """Records that could not be read: set aside, never fatal (see `Hindsight.health`)."""

    unreadable: list[tuple[str, str]] = field(default_factory=list)


class MemoryStore(Protocol):
    """Durable, per-user storage of memory records and their vectors, with the engine's search."""

    #: True when the store lives in this process (one process at a time may open it)
    embedded: bool
    description: str

    def open_user(self, user_id: str, *, embedding_model: str, dimension: int, create: bool) -> bool:
        """Make sure the user's space exists (if `create`); False if it does not exist.

        Raises EmbedderMismatchError if it was built with another model or dimension.
        """

    def commit(self, user_id: str, *, upserts: Sequence[tuple[MemoryRecord, np.ndarray]] = (),
               updates: Sequence[tuple[str, dict[str, Any]]] = (), deletes: Sequence[str] = ()) -> None:
        """Apply several changes as one: after a crash, `recover` completes them."""

    def update_fields(self, user_id: str, updates: Sequence[tuple[str, dict[str, Any]]], *,
                      durable: bool = True) -> None:
        """Change record fields in place (not journaled: each update is one idempotent write).

        `durable=False`: the change may wait for the next flush (it survives a killed process through the
        engine's log, not a power cut): for bookkeeping such as reinforcement, never for what a user asked.
        """

    def recover(self, user_id: str) -> int:
        """Complete the changes a crash interrupted; returns how many were replayed."""

    def get(self, user_id: str, memory_ids: Sequence[str], *, with_vectors: bool = False) -> list[Hit]: ...

    def scan(self, user_id: str, scope: Scope = ALL, *, with_vectors: bool = False,
             space: str = MEMORIES) -> Iterator[Hit]:
        """Every record in scope (a maintenance and listing path, not the recall path)."""

    def count(self, user_id: str, scope: Scope = ALL, *, space: str = MEMORIES) -> int: ...

    def neighbours(self, user_id: str, vectors: np.ndarray, *, limit: int, min_score: float,
                   scope: Scope) -> list[list[Hit]]:
        """For each vector, the closest records in scope (cosine ≥ min_score), with their vectors."""

    def search(self, user_id: str, request: SearchRequest) -> SearchResult:
        """Run a recall plan in the engine."""

    def drop_user(self, user_id: str) -> None: ...

    def users(self) -> list[str]: ...

    def compact(self, user_id: str | None = None) -> int:
        """Make deleted memories unrecoverable from the store's files (one user's, or every user's with None);
        returns the units rewritten."""

    def close(self) -> None: ...

    def load_report(self, user_id: str) -> LoadReport: ...

    # -- maintenance (archive, migration staging, store metadata; never on the recall path) ----------
    def registered_embedding(self, user_id: str) -> tuple[str, int] | None: ...

    def set_registered_embedding(self, user_id: str, model: str, dimension: int) -> None: ...

    def space_exists(self, user_id: str, space: str) -> bool: ...

    def put_space(self, user_id: str, space: str, records: Sequence[MemoryRecord], vectors: np.ndarray,
                  extras: Sequence[dict[str, Any]] | None = None) -> None: ...

    def load_space(self, user_id: str, space: str) -> Iterator[tuple[MemoryRecord, np.ndarray, dict[str, Any]]]: ...

    def ids_in_space(self, user_id: str, space: str) -> set[str]: ...

    def count_space(self, user_id: str, space: str) -> int: ...

    def ensure_space(self, user_id: str, space: str, dimension: int) -> None: ...

    def delete_from_space(self, user_id: str, space: str, memory_ids: Sequence[str]) -> None: ...

    def drop_space(self, user_id: str, space: str) -> None: ...

    def get_meta(self, key: str) -> dict[str, Any] | None: ...

    def set_meta(self, key: str, value: dict[str, Any] | None) -> None: ...

    def disk_usage(self) -> int | None: ...


def check_registered(entry: dict[str, Any], embedding_model: str, dimension: int) -> None:
    """Refuse an embedder other than the one a user's memories were embedded with, saying what to do."""
    from ..errors import EmbedderMismatchError

    if entry["dimension"] != dimension or entry["embedding_model"] != embedding_model:
        raise EmbedderMismatchError(
            f"the memories of this user were embedded with {entry['embedding_model']} "
            f"({entry['dimension']} dims), but the configured embedder is {embedding_model} "
            f"({dimension} dims). Use the same model, or run `hindsight migrate` to re-embed the store.")


#: kept for maintenance code typed against the older name
MaintainableStore = MemoryStore
