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

    def load(self, user_id: str) -> Iterator[tuple[MemoryRecord, np.ndarray]]: ...

    def drop_user(self, user_id: str) -> None: ...

    def users(self) -> list[str]: ...

    def close(self) -> None: ...
