"""`HindsightStore`: a LangGraph `BaseStore` whose items are hindsight memories.

How namespaces map onto hindsight
---------------------------------
A namespace is `(*prefix, user_id, *rest)`. With the default prefix
`("memories",)`, the one LangMem's tools use (`("memories", "{langgraph_user_id}")`):

    ("memories", "alice")             -> user "alice"
    ("memories", "alice", "profile")  -> user "alice", sub-namespace ("profile",)
    HindsightStore(memory, prefix=())  : ("alice",) -> user "alice"

Every operation names one user: hindsight never searches across users, so a
namespace that stops before the user id (`("memories",)`) is refused. LangGraph
forbids "." in a label, so a user id with a period (an e-mail address) cannot
be reached through the store; the other adapters take it as it is. An
optional `agent_id` scopes the store to one agent: its items carry that agent id
and it reads only that agent's memories of the user.

An item is one memory. Its text is the text at the put's `index` paths if
given, else the value's first string field among `text_fields` (default
`content`, `text`, `memory`), else the value as JSON; the labels after the user
id, the key, the exact value and the creation time travel in the memory's
metadata under "langgraph" (so the prefix is only a view: the same memories
appear under `("memories", "alice")` or, with `prefix=()`, `("alice",)`).
Memories written another way (by `HindsightMiddleware`, the tools, the core)
show up in their user's root namespace, keyed by memory id, with the value
`{"content": text}`, so LangMem's tools see everything hindsight knows.

Semantics
---------
* put is an explicit write: it skips the gate's yes/no (`force=True`), though
  the gate still files the memory under an event type (and so a decay rate).
  It never skips the core's write audit: a value the audit rejects raises
  `InvalidInputError` and changes nothing; one it quarantines is kept for
  review, never read back, and leaves the key's previous value in place.
  Putting an existing key writes the new memory first, then forgets the old.
  The core merges a write that repeats a memory it already holds; when a put
  repeats another item or memory, the put only confirms that memory, its key
  holds nothing, and a warning says so (the core has no per-write opt-out yet).
* search with a query is `Hindsight.recall`: hybrid ranking weighted by
  retention, faded memories left out, returned memories reinforced. With a
  `filter` or a sub-namespace, recall over-fetches without reinforcing and the
  store filters. Without a query, items come oldest first.
* get and delete find a key by scanning the user's memories (the core has no
  lookup by metadata yet); get also returns faded memories. list_namespaces
  scans every user's memories.
* TTL is not supported: decay is hindsight's way of letting things go.
* `index=False` on put is ignored: every memory is embedded.
"""

from __future__ import annotations

import asyncio
import json
import threading
import warnings
from datetime import datetime
from typing import Any, Iterable, Mapping, Sequence

from langgraph.store.base import (BaseStore, GetOp, Item, ListNamespacesOp, Op, PutOp, Result, SearchItem, SearchOp,
                                  get_text_at_path)

from hindsight_core import Hindsight, InvalidInputError, MemoryRecord, Source, Status, WriteResult

from ._filters import matches_filter, matches_namespace

META = "langgraph"
Namespace = tuple[str, ...]
KeyMap = dict[tuple[Namespace, str], MemoryRecord]


class HindsightStore(BaseStore):
    """A LangGraph `BaseStore` on hindsight (see the module docstring for the namespace mapping).

    Args:
        memory: the `Hindsight` instance that holds the items.
        prefix: the namespace labels before the user id (default `("memories",)`).
        agent_id: if given, items are written as this agent's and only its memories are read.
        source: who put items are recorded as coming from (default "agent", trusted a little less
            than the user by the gate's confidence).
        text_fields: value fields whose string is the memory's text, first match wins.
    """

    supports_ttl = False

    def __init__(self, memory: Hindsight, *, prefix: Sequence[str] = ("memories",), agent_id: str | None = None,
                 source: Source | str = Source.AGENT,
                 text_fields: Sequence[str] = ("content", "text", "memory")) -> None:
        self.memory = memory
        self.prefix: Namespace = tuple(prefix)
        self.agent_id = agent_id
        self.source = Source(source)
        self.text_fields = tuple(text_fields)
        self._lock = threading.RLock()

    # -- the BaseStore interface --------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        with self._lock:
            keymaps: dict[str, KeyMap] = {}
            return [self._run(op, keymaps) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # the core's calls are synchronous; run the whole batch off the event loop
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op, keymaps: dict[str, KeyMap]) -> Result:
        if isinstance(op, GetOp):
            user, _ = self._scope(op.namespace)
            record = self._keymap(user, keymaps).get((tuple(op.namespace), op.key))
            return self._item(record) if record is not None else None
        if isinstance(op, PutOp):
            self._put(op, keymaps)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise InvalidInputError(f"unknown store operation {type(op).__name__}")

    # -- mapping ------------------------------------------------------------------------------
    def _scope(self, namespace: Namespace) -> tuple[str, Namespace]:
        """(user id, the labels after it) for a namespace; refuses one that names no user."""
        namespace = tuple(namespace)
        n = len(self.prefix)
        if len(namespace) <= n or namespace[:n] != self.prefix:
            shape = ", ".join([*map(repr, self.prefix), "'<user_id>'", "..."])
            raise InvalidInputError(
                f"namespace {namespace!r} names no user; this store's namespaces are ({shape}) and hindsight "
                "never reads across users")
        return namespace[n], namespace[n + 1:]

    def _root(self, user: str) -> Namespace:
        return (*self.prefix, user)

    def _placement(self, record: MemoryRecord) -> tuple[Namespace, str]:
        meta = record.metadata.get(META)
        if isinstance(meta, Mapping):
            return (*self._root(record.user_id), *meta["path"]), str(meta["key"])
        return self._root(record.user_id), record.id

    def _item(self, record: MemoryRecord) -> Item:
        namespace, key = self._placement(record)
        value, created = self._value_and_created(record)
        return Item(value=value, key=key, namespace=namespace, created_at=created, updated_at=record.timestamp)

    def _search_item(self, record: MemoryRecord, score: float | None) -> SearchItem:
        namespace, key = self._placement(record)
        value, created = self._value_and_created(record)
        return SearchItem(namespace, key, value, created, record.timestamp, score)

    @staticmethod
    def _value_and_created(record: MemoryRecord) -> tuple[dict[str, Any], datetime]:
        meta = record.metadata.get(META)
        if isinstance(meta, Mapping):
            return json.loads(meta["value"]), datetime.fromisoformat(meta["created_at"])
        return {"content": record.raw_content}, record.timestamp

    def _records(self, user: str) -> list[MemoryRecord]:
        """The user's active memories in this store's agent scope, oldest first."""
        records = self.memory.memories(user_id=user, include_inactive=False)
        if self.agent_id is not None:
            records = [r for r in records if r.agent_id == self.agent_id]
        return records

    def _keymap(self, user: str, keymaps: dict[str, KeyMap]) -> KeyMap:
        if user not in keymaps:
            keymaps[user] = {self._placement(r): r for r in self._records(user)}
        return keymaps[user]

    def _text(self, value: Mapping[str, Any], index: Any) -> str:
        if isinstance(index, list) and index:
            texts = [str(t) for path in index for t in get_text_at_path(value, path) if t]
            if any(t.strip() for t in texts):
                return "\n".join(texts)
        for name in self.text_fields:
            if isinstance(value.get(name), str) and value[name].strip():
                return value[name]
        return json.dumps(value, ensure_ascii=False, sort_keys=True)

    # -- operations ---------------------------------------------------------------------------
    def _put(self, op: PutOp, keymaps: dict[str, KeyMap]) -> None:
        namespace = tuple(op.namespace)
        user, path = self._scope(namespace)
        keymap = self._keymap(user, keymaps)
        old = keymap.pop((namespace, op.key), None)
        if op.value is None:
            if old is not None:
                self.memory.forget(user_id=user, memory_id=old.id)
            return
        value = op.value
        if not isinstance(value, Mapping):
            raise InvalidInputError(f"a store value must be a mapping (dict), got {type(value).__name__}")
        try:
            encoded = json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"store value for key {op.key!r} is not JSON-serialisable: {exc}") from None
        created = self._item(old).created_at if old is not None else self.memory.now()
        metadata = {META: {"path": list(path), "key": op.key, "value": encoded, "created_at": created.isoformat()}}

        def write() -> WriteResult:
            try:
                return self.memory.write(self._text(value, op.index), user_id=user, agent_id=self.agent_id,
                                         source=self.source, metadata=metadata, force=True)
            except InvalidInputError as exc:
                raise type(exc)(f"cannot put {namespace!r} / {op.key!r}: {exc}") from exc

        # write before forgetting the old item, so a refused value loses nothing
        result = write()
        if result.record is None:  # force=True skips the gate, never the write audit
            raise InvalidInputError(f"hindsight's write audit refused the value put at {namespace!r} / {op.key!r}; "
                                    "nothing was changed: " + "; ".join(result.decision.reasons))
        if result.record.status is Status.QUARANTINED:
            warnings.warn(f"hindsight's write audit quarantined the value put at {namespace!r} / {op.key!r}: it is "
                          "kept for review but never read back, and the key keeps its previous value: "
                          + "; ".join(result.audit.reasons if result.audit else ()), stacklevel=4)
            if old is not None:
                keymap[(namespace, op.key)] = old
            return
        if old is not None:
            self.memory.forget(user_id=user, memory_id=old.id)
            if result.record.id == old.id:
                # the core merged a near-identical update into the very memory it replaces; store it afresh
                result = write()
        if result.merged or result.record is None:
            warnings.warn(
                f"hindsight already holds the value put at {namespace!r} / {op.key!r} as memory "
                f"{result.record.id if result.record else '?'} and merged the put into it, so get() on that "
                "key finds nothing; the core cannot yet be asked not to merge a keyed write", stacklevel=4)
            return
        keymap[(namespace, op.key)] = result.record

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        user, sub = self._scope(prefix)
        wanted = op.offset + op.limit
        if op.limit <= 0:
            return []

        def keep(record: MemoryRecord) -> bool:
            namespace, _ = self._placement(record)
            if namespace[:len(prefix)] != prefix:
                return False
            return not op.filter or matches_filter(self._value_and_created(record)[0], op.filter)

        if not op.query:
            listed = [r for r in self._records(user) if keep(r)]
            return [self._search_item(r, None) for r in listed[op.offset:wanted]]
        narrowed = bool(sub or op.filter)
        limit = self.memory.config.limits.max_k
        # with no filtering to do, recall exactly the page and let recall reinforce what it returns;
        # otherwise over-fetch without reinforcing, since most candidates may be filtered out
        results = self.memory.recall(op.query, user_id=user, k=limit if narrowed else min(wanted, limit),
                                     agent_id=self.agent_id, reinforce=not narrowed)
        hits = [r for r in results if keep(r.memory)]
        return [self._search_item(r.memory, r.score) for r in hits[op.offset:wanted]]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[Namespace]:
        found: set[Namespace] = set()
        for user in self.memory.users():
            found.update(self._placement(r)[0] for r in self._records(user))
        namespaces = [ns for ns in found if all(matches_namespace(ns, c) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            namespaces = list({ns[:op.max_depth] for ns in namespaces})
        return sorted(namespaces)[op.offset:op.offset + op.limit]
