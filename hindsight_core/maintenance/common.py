"""What the maintenance operations share: the store check, the users to work on, batches, embedding."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, cast

from ..errors import HindsightError
from ..contract.checks import check_users
from ..store.base import MemoryStore

if TYPE_CHECKING:
    pass

EXPORT_FORMAT = "hindsight-export"
EXPORT_VERSION = 1
MIGRATION_KEY = "migration"

Progress = Callable[[int], None]


def maintainable(store: object) -> MemoryStore:
    """The store, if it supports maintenance; a clear error if not."""
    needed = ("load_space", "put_space", "drop_space", "get_meta", "set_meta", "registered_embedding")
    missing = [name for name in needed if not callable(getattr(store, name, None))]
    if missing:
        raise HindsightError(f"{type(store).__name__} does not support maintenance (missing {', '.join(missing)}); "
                             "use an EdgeStore or a ServerStore")
    return cast(MemoryStore, store)


def recovered_users(store: MemoryStore, users: Iterable[str] | None) -> list[str]:
    """The users to work on, each with any change a crash left half-applied finished first."""
    chosen = store.users() if users is None else check_users(users) or []
    for user in chosen:
        store.recover(user)
    return chosen


def batches(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
