"""The storage interface every backend implements; recall logic never lives here."""

from __future__ import annotations

from typing import Any, Iterator, Protocol, Sequence

import numpy as np

from ..types import MemoryRecord


class MemoryStore(Protocol):
    """Durable, per-user storage of memory records and their vectors."""

    def open_user(self, user_id: str, *, embedding_model: str, dimension: int, create: bool) -> bool:
        """Make sure the user's space exists (if `create`); False if it does not exist.

        Raises EmbedderMismatchError if it was built with another model or dimension.
        """

    def upsert(self, user_id: str, records: Sequence[MemoryRecord], vectors: np.ndarray) -> None: ...

    def update_fields(self, user_id: str, memory_id: str, fields: dict[str, Any]) -> None: ...

    def delete(self, user_id: str, memory_ids: Sequence[str]) -> None: ...

    def commit(self, user_id: str, *, upserts: Sequence[tuple[MemoryRecord, np.ndarray]] = (),
               updates: Sequence[tuple[str, dict[str, Any]]] = (), deletes: Sequence[str] = ()) -> None:
        """Apply several changes as one: after a crash, `recover` completes them."""

    def recover(self, user_id: str) -> int:
        """Complete the changes a crash interrupted; returns how many were replayed."""

    def load(self, user_id: str) -> Iterator[tuple[MemoryRecord, np.ndarray]]: ...

    def drop_user(self, user_id: str) -> None: ...

    def users(self) -> list[str]: ...

    def compact(self) -> int:
        """Make deleted memories unrecoverable from the store's files; returns files rewritten."""

    def close(self) -> None: ...


# A user's spaces: the memories recall sees, the archive, and the staging copies of
# both that `hindsight migrate` fills with re-embedded vectors before swapping them in.
MEMORIES, ARCHIVE, STAGING, STAGING_ARCHIVE = "memories", "archive", "staging", "staging_archive"
SPACES = (MEMORIES, ARCHIVE, STAGING, STAGING_ARCHIVE)


class MaintainableStore(MemoryStore, Protocol):
    """A store that `hindsight_core.maintenance` can archive, migrate, export and import.

    Spaces hold records with their vectors and any extra payload keys (such as the
    "archived" stamp); a space's collection is created on first `put_space`, sized
    by the vectors given. Nothing here is on the recall path.
    """

    def registered_embedding(self, user_id: str) -> tuple[str, int] | None:
        """The (model, dimension) a user's memories were embedded with; None for an unknown user."""

    def set_registered_embedding(self, user_id: str, model: str, dimension: int) -> None: ...

    def space_exists(self, user_id: str, space: str) -> bool: ...

    def load_space(self, user_id: str, space: str) -> Iterator[tuple[MemoryRecord, np.ndarray, dict[str, Any]]]: ...

    def ids_in_space(self, user_id: str, space: str) -> set[str]: ...

    def count_space(self, user_id: str, space: str) -> int: ...

    def put_space(self, user_id: str, space: str, records: Sequence[MemoryRecord], vectors: np.ndarray,
                  extras: Sequence[dict[str, Any]] | None = None) -> None: ...

    def ensure_space(self, user_id: str, space: str, dimension: int) -> None: ...

    def delete_from_space(self, user_id: str, space: str, memory_ids: Sequence[str]) -> None: ...

    def drop_space(self, user_id: str, space: str) -> None: ...

    def get_meta(self, key: str) -> dict[str, Any] | None: ...

    def set_meta(self, key: str, value: dict[str, Any] | None) -> None: ...

    def disk_usage(self) -> int | None:
        """Bytes on disk for an embedded store; None when that cannot be known."""
