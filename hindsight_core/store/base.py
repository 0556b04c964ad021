"""The storage interfaces both backends implement, split by use.

A backend stores memory records with two vectors each (dense and sparse BM25, `payload`) and runs the recall plan
(`recall.plan`) inside its engine; recall rules never live here.

- `LiveStore`: what a write or a recall calls (open a user, search, neighbours, get, commit, update fields, count);
- `MaintenanceStore`: what listing, export, migration and upkeep call; never on the recall path;
- `MemoryStore`: both, what a backend is: `EdgeStore` (Qdrant Edge, in-process, the default) or `ServerStore`.
"""

from __future__ import annotations

from typing import Any, Collection, Iterator, Protocol, Sequence

import numpy as np

from ..types import MemoryRecord
from .values import (ALL, ARCHIVE, MEMORIES, SPACES, STAGING, STAGING_ARCHIVE, Channel, Hit, LoadReport, Scope,
                     SearchRequest, SearchResult, check_registered, conditions)

__all__ = ["ALL", "ARCHIVE", "Channel", "Hit", "LiveStore", "LoadReport", "MEMORIES", "MaintenanceStore", "MemoryStore", "SPACES", "STAGING", "STAGING_ARCHIVE", "Scope", "SearchRequest",
           "SearchResult", "check_registered", "conditions"]


class LiveStore(Protocol):
    """The hot path: durable, per-user records and their vectors, with the engine's search."""

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
        """Change record fields in place (not journaled: each update is idempotent), in as few engine updates
        as the engine allows (updates that set the same fields to the same values share one).

        `durable=False`: the change may wait for the next flush (it survives a killed process through the
        engine's log, not a power cut): for bookkeeping such as reinforcement, never for what a user asked.
        """

    def recover(self, user_id: str) -> int:
        """Complete the changes a crash interrupted; returns how many were replayed."""

    def get(self, user_id: str, memory_ids: Sequence[str], *, with_vectors: bool = False) -> list[Hit]: ...

    def count(self, user_id: str, scope: Scope = ALL, *, space: str = MEMORIES) -> int: ...

    def neighbours(self, user_id: str, vectors: np.ndarray, *, limit: int, min_score: float,
                   scope: Scope, known: Collection[str] = ()) -> list[list[Hit]]:
        """For each vector, the closest records in scope (cosine ≥ min_score), with their vectors.

        `known`: ids the caller already holds. They count toward `limit` as any other, but are left out of
        the lists and their payloads are never read. The engine is asked for ids and scores first, then
        for the records of the distinct ids the caller lacks, once each (`payload.neighbour_lists`).
        """

    def search(self, user_id: str, request: SearchRequest) -> SearchResult:
        """Run a recall plan in the engine."""

    def load_report(self, user_id: str) -> LoadReport: ...

    def close(self) -> None: ...


class MaintenanceStore(Protocol):
    """Listing, archive, migration staging, upkeep and store metadata: never on the recall path."""

    def scan(self, user_id: str, scope: Scope = ALL, *, with_vectors: bool = False,
             space: str = MEMORIES) -> Iterator[Hit]:
        """Every record in scope (a maintenance and listing path, not the recall path)."""

    def users(self) -> list[str]: ...

    def drop_user(self, user_id: str) -> None: ...

    def compact(self, user_id: str | None = None) -> int:
        """Make deleted memories unrecoverable from the store's files (one user's, or every user's with None);
        returns the units rewritten."""

    def optimize(self, user_id: str) -> bool:
        """Build the user's vector index now (blocking); False when the backend's engine does it by itself."""

    def disk_usage(self) -> int | None: ...

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


class MemoryStore(LiveStore, MaintenanceStore, Protocol):
    """A backend: the hot path and maintenance together (`EdgeStore`, `ServerStore`)."""
