"""Storage: typed interfaces split by use (`LiveStore` for the hot path, `MaintenanceStore` for upkeep;
`MemoryStore` is both), two backends.

- `EdgeStore`: Qdrant Edge in this process, the users' points in 16 shards per space with a tenant-indexed
  `user_id` (the default);
- `ServerStore`: a Qdrant server through qdrant-client (`url=`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from .base import (ALL, ARCHIVE, MEMORIES, SPACES, STAGING, STAGING_ARCHIVE, LiveStore, MaintenanceStore, MemoryStore,
                   Scope)
from .edge import EdgeStore
from .server import ServerStore

__all__ = ["ALL", "ARCHIVE", "EdgeStore", "LiveStore", "MEMORIES", "MaintenanceStore", "MemoryStore", "SPACES", "STAGING", "STAGING_ARCHIVE", "Scope", "ServerStore",
           "open_store"]


def open_store(*, path: str | Path | None = None, location: str | None = None, url: str | None = None,
               api_key: str | None = None, default: Callable[[], Path] | None = None) -> MemoryStore:
    """The store for `Hindsight(...)`'s arguments: a folder, ":memory:", a server URL, or the default folder."""
    from ..errors import HindsightError

    given = [x for x in (path, location, url) if x is not None]
    if len(given) > 1:
        raise HindsightError("give at most one of path=, location= or url=")
    if url is not None:
        return ServerStore(url, api_key=api_key)
    if location is not None:
        return EdgeStore(location=location)
    if path is None:
        if default is None:
            raise HindsightError("give path=, location= or url= for the store")
        path = default() / "store"
    return EdgeStore(path)
