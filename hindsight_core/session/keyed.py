"""Keyed memories: items a program puts under a key, reads back by it, replaces and deletes.

    keyed = KeyedMemory(memory)
    keyed.put(("profile", "city"), "I live in Lyon.", user_id="alice", value={"city": "Lyon"})
    keyed.get(("profile", "city"), user_id="alice").value      # {"city": "Lyon"}

* A key is a tuple of non-empty labels (a plain string is a one-label key) and belongs to one user; with `agent_id`, to
  that agent of the user (without, every agent's items are seen and a put replaces any of them).
* A key holds at most one memory. `put` skips the gate's yes/no (`force=True`), never the write audit, and never merges
  (`merge_duplicates=False`), so what is put under a key can be read back.
* `put` writes the new memory first and only then forgets the old one (`for_good=False`), so a value the audit refuses
  leaves the previous one. After a crash between the two, the higher revision is read, and the next put or delete of the
  key removes both.
* `created_at` is when a key was first put, `updated_at` when it was last put. A memory written without a key is
  addressed by its id, as a one-label key. Reading sees active memories only.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Mapping, Sequence, Union

from ..errors import InvalidInputError, MemoryNotFoundError
from ..types import MemoryRecord, Source, Status
from ..contract.options import WriteOptions
from .outcome import WriteOutcome, outcome_of

if TYPE_CHECKING:
    from ..api import MemoryAPI
    from ..contract.results import WriteResult

#: metadata field holding an item's key, encoded (the one field looked up)
KEY_FIELD = "hindsight_key"
#: metadata field holding the rest of what a key remembers: created_at, revision, value
ITEM_FIELD = "hindsight_item"

KeyLike = Union[str, Sequence[str]]

_MAX_KEY_CHARS = 1024


def as_key(key: KeyLike) -> tuple[str, ...]:
    """A key as a tuple of labels; refuses an empty key, an empty label or a label that is not a string."""
    labels = (key,) if isinstance(key, str) else tuple(key) if isinstance(key, Sequence) else None
    if not labels or not all(isinstance(label, str) and label for label in labels):
        raise InvalidInputError(f"a key is a non-empty string or a tuple of non-empty strings, got {key!r}")
    if len(encode_key(labels)) > _MAX_KEY_CHARS:
        raise InvalidInputError(f"key {labels!r} is longer than {_MAX_KEY_CHARS} characters")
    return labels


def encode_key(labels: Sequence[str]) -> str:
    """The one string a key is stored and looked up as (JSON, so no two keys share it)."""
    return json.dumps(list(labels), ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class KeyedItem:
    """What a key holds: its memory, the JSON value put with the text, and when it was first put."""

    key: tuple[str, ...]
    record: MemoryRecord
    created_at: datetime
    revision: int
    value: Any = None

    @property
    def text(self) -> str:
        return self.record.raw_content

    @property
    def updated_at(self) -> datetime:
        return self.record.timestamp


def key_of(record: MemoryRecord) -> tuple[str, ...] | None:
    """The key a memory was put under; None for a memory written without one."""
    encoded = record.metadata.get(KEY_FIELD)
    if not isinstance(encoded, str):
        return None
    try:
        labels = json.loads(encoded)
    except ValueError:
        return None
    return tuple(labels) if isinstance(labels, list) and labels and all(isinstance(x, str) for x in labels) else None


def item_of(record: MemoryRecord) -> KeyedItem:
    """A memory as a keyed item: its own key, or its id as a one-label key if it has none."""
    key = key_of(record)
    if key is None:
        return KeyedItem((record.id,), record, record.timestamp, 0)
    meta = record.metadata.get(ITEM_FIELD)
    meta = meta if isinstance(meta, Mapping) else {}
    try:  # what a key remembers is read leniently: a damaged field must not hide the memory itself
        created = datetime.fromisoformat(meta["created_at"])
    except (KeyError, TypeError, ValueError):
        created = record.timestamp
    try:
        value = json.loads(meta["value"]) if isinstance(meta.get("value"), str) else None
    except ValueError:
        value = None
    revision = meta.get("revision")
    return KeyedItem(key, record, created, revision if isinstance(revision, int) else 0, value)


@dataclass(frozen=True)
class PutResult:
    """What a put did: its outcome, the item the key now holds, and the memories it replaced."""

    key: tuple[str, ...]
    #: STORED, QUARANTINED (the key keeps its previous item) or REJECTED (nothing changed)
    outcome: WriteOutcome
    #: what the key holds after the put (the previous item, or None, unless the outcome is STORED)
    item: KeyedItem | None
    #: the write itself, for its gate decision and audit verdict
    write: "WriteResult"
    #: ids of the memories the put replaced (forgotten)
    replaced: tuple[str, ...] = ()


#: the write options a put always sets (an explicit write, never merged: see the module rules)
_SET_BY_PUT = frozenset(("force", "merge_duplicates"))


class KeyedMemory:
    """Keyed, idempotent items over a `Hindsight` (see the module docstring for the rules)."""

    def __init__(self, memory: "MemoryAPI") -> None:
        self.memory = memory
        self._lock = threading.RLock()  # a put's write-then-forget is one step for this instance

    def _held(self, key: tuple[str, ...], user_id: str, agent_id: str | None) -> list[KeyedItem]:
        """The items `key` holds for the user (in the agent's scope), highest revision first."""
        records = self.memory.find(user_id=user_id, metadata={KEY_FIELD: encode_key(key)})
        items = [item_of(r) for r in records
                 if r.status is Status.ACTIVE and (agent_id is None or r.agent_id == agent_id)]
        if not items and len(key) == 1:
            try:
                record = self.memory.get(key[0], user_id=user_id)
            except MemoryNotFoundError:
                record = None
            if record is not None and key_of(record) is None and record.status is Status.ACTIVE \
                    and (agent_id is None or record.agent_id == agent_id):
                items = [item_of(record)]
        return sorted(items, key=lambda item: (item.revision, item.updated_at), reverse=True)

    def get(self, key: KeyLike, *, user_id: str, agent_id: str | None = None) -> KeyedItem | None:
        """The item `key` holds, or None. Faded memories are still read: a key is asked for by name."""
        return next(iter(self._held(as_key(key), user_id, agent_id)), None)

    def put(self, key: KeyLike, text: str, *, user_id: str, value: Any = None, agent_id: str | None = None,
            source: Source | str = Source.AGENT, metadata: Mapping[str, Any] | None = None,
            **options: Any) -> PutResult:
        """Make `key` hold `text` (and the JSON `value`), replacing what it held; see the module rules.

        `options`: the other write options (`session_id`, ...: `WriteOptions`), but not the two a put sets
        itself (`force`, `merge_duplicates`)."""
        labels = as_key(key)
        own = sorted(set(options) & _SET_BY_PUT)
        if own:
            raise InvalidInputError(f"{', '.join(own)}: a put sets it itself (see KeyedMemory's rules)")
        WriteOptions.named(options)  # an unknown name is refused before anything is read
        extra = dict(metadata or {})
        if KEY_FIELD in extra or ITEM_FIELD in extra:
            raise InvalidInputError(f"metadata fields {KEY_FIELD!r} and {ITEM_FIELD!r} are the key's own")
        try:
            encoded_value = json.dumps(value, ensure_ascii=False, allow_nan=False) if value is not None else None
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"the value put at {labels!r} is not JSON-serialisable: {exc}") from None
        with self._lock:
            held = self._held(labels, user_id, agent_id)
            previous = held[0] if held else None
            created = previous.created_at if previous is not None else self.memory.now()
            revision = (previous.revision if previous is not None else 0) + 1
            extra[KEY_FIELD] = encode_key(labels)
            extra[ITEM_FIELD] = {"created_at": created.isoformat(), "revision": revision, "value": encoded_value}
            result = self.memory.write(text, user_id=user_id, agent_id=agent_id, source=source, metadata=extra,
                                       force=True, merge_duplicates=False, **options)
            outcome = outcome_of(result)
            if outcome is not WriteOutcome.STORED:  # refused or held for review: the key keeps what it held
                return PutResult(labels, outcome, previous, result)
            for old in held:  # a replaced revision: unreadable at once, its vector left to the next compaction
                self.memory.forget(user_id=user_id, memory_id=old.record.id, for_good=False)
            assert result.record is not None  # stored
            return PutResult(labels, outcome, item_of(result.record), result, tuple(old.record.id for old in held))

    def delete(self, key: KeyLike, *, user_id: str, agent_id: str | None = None) -> tuple[str, ...]:
        """Forget what `key` holds; returns the ids forgotten (none if the key held nothing)."""
        labels = as_key(key)
        with self._lock:
            held = self._held(labels, user_id, agent_id)
            for item in held:
                self.memory.forget(user_id=user_id, memory_id=item.record.id)
        return tuple(item.record.id for item in held)
