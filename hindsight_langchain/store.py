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

An item is one keyed memory of the core (`hindsight_core.session.keyed`): the item at
`(*prefix, user_id, *rest)` / `key` is the core key `(*rest, key)`, so the
core's rules hold here unchanged. The item's text is the text at the put's
`index` paths if given, else the value's first string field among
`text_fields` (default `content`, `text`, `memory`), else the value as JSON;
the exact value travels with it. Memories written another way (by
`HindsightMiddleware`, the tools, the core) show up in their user's root
namespace, keyed by memory id, with the value `{"content": text}`, so LangMem's
tools see everything hindsight knows.

Semantics
---------
* batch (and abatch) answers its reads on the state before the batch, then applies
  its puts, the last per key winning, as LangGraph's own stores do.
* put, get and delete are `KeyedMemory.put`, `get` and `delete`: one lookup by
  key; a put skips the gate's yes/no, never the write audit, never merges, and
  replaces the key's previous memory only once the new one is stored. A value
  the audit rejects raises `InvalidInputError` and changes nothing; one it
  quarantines is kept for review, never read back, leaves the key's previous
  value in place, and a warning says so in the core's words.
* search with a query is `Hindsight.recall`: hybrid ranking weighted by
  retention, faded memories (retention below the threshold) ranked lower but never
  left out, returned memories reinforced. With a
  `filter` or a sub-namespace, recall over-fetches without reinforcing and the
  store filters. Without a query, items come oldest first.
* list_namespaces lists the namespaces of the users this store is bound to
  (`user_ids=`), or of the one user its prefix names; it never lists who else
  is in the store. `list_all_namespaces()` is the explicit, store-wide admin
  call. A store bound to users refuses every operation on anyone else.
* TTL is not supported: decay is hindsight's way of letting things go.
* `index=False` on put is ignored: every memory is embedded.
"""

from __future__ import annotations

import asyncio
import json
import threading
import warnings
from typing import Any, Iterable, Mapping, Sequence

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    get_text_at_path,
)

from hindsight_core import InvalidInputError, MemoryAPI, MemoryRecord, Source
from hindsight_core.language.text import validate_id
from hindsight_core.session.keyed import KeyedItem, KeyedMemory, item_of
from hindsight_core.session.outcome import WriteOutcome, describe, reasons_of

from ._filters import matches_filter, matches_namespace

Namespace = tuple[str, ...]


class HindsightStore(BaseStore):
    """A LangGraph `BaseStore` on hindsight (see the module docstring for the namespace mapping).

    Args:
        memory: the `Hindsight` instance that holds the items.
        prefix: the namespace labels before the user id (default `("memories",)`).
        agent_id: if given, items are written as this agent's and only its memories are read.
        source: who put items are recorded as coming from (default "agent", trusted a little less
            than the user by the gate's confidence). The developer sets it; a model never does.
        text_fields: value fields whose string is the memory's text, first match wins.
        user_ids: the users this store serves; if given, `list_namespaces` lists theirs and any
            operation on another user is refused. Without, each operation names its user.
    """

    supports_ttl = False

    def __init__(self, memory: MemoryAPI, *, prefix: Sequence[str] = ("memories",), agent_id: str | None = None,
                 source: Source | str = Source.AGENT,
                 text_fields: Sequence[str] = ("content", "text", "memory"),
                 user_ids: Sequence[str] | None = None) -> None:
        self.memory = memory
        self.keyed = KeyedMemory(memory)
        self.prefix: Namespace = tuple(prefix)
        self.agent_id = agent_id
        self.source = Source(source)
        self.text_fields = tuple(text_fields)
        if isinstance(user_ids, str):
            raise InvalidInputError("user_ids takes a list of user ids, not one string")
        self.user_ids: tuple[str, ...] | None = (
            tuple(validate_id(u) for u in user_ids) if user_ids is not None else None)
        self._lock = threading.RLock()

    # -- the BaseStore interface --------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Answer the reads on the state before the batch, then apply its puts, the last per key winning.

        The order LangGraph's own stores keep (`InMemoryStore`, the Postgres store): a get in the
        batch does not see a put of the same batch.
        """
        ops = list(ops)
        with self._lock:
            results = [None if isinstance(op, PutOp) else self._run(op) for op in ops]
            last_puts = {(tuple(op.namespace), op.key): op for op in ops if isinstance(op, PutOp)}
            for op in last_puts.values():
                self._put(op)
            return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # the core's calls are synchronous; run the whole batch off the event loop
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            user, path = self._scope(op.namespace)
            item = self.keyed.get((*path, op.key), user_id=user, agent_id=self.agent_id)
            return self._item(item) if item is not None else None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op, self._listed_users(op))
        raise InvalidInputError(f"unknown store operation {type(op).__name__}")

    # -- mapping ------------------------------------------------------------------------------
    def _scope(self, namespace: Namespace) -> tuple[str, Namespace]:
        """(user id, the labels after it) for a namespace; refuses one that names no user (or not ours)."""
        namespace = tuple(namespace)
        n = len(self.prefix)
        if len(namespace) <= n or namespace[:n] != self.prefix:
            raise InvalidInputError(self._names_no_user(namespace))
        user = namespace[n]
        if self.user_ids is not None and user not in self.user_ids:
            raise InvalidInputError(f"this store serves users {list(self.user_ids)}, not {user!r}")
        return user, namespace[n + 1:]

    def _names_no_user(self, namespace: Namespace) -> str:
        """Why a namespace is refused, and the namespace to pass instead (Deep Agents' `("filesystem",)` too)."""
        rest = namespace[len(self.prefix):] if namespace[:len(self.prefix)] == self.prefix else namespace
        shape = "(" + ", ".join([*map(repr, self.prefix), "'<user_id>'", "..."]) + ")"
        instead = "(" + ", ".join([*map(repr, self.prefix), "'<user_id>'", *map(repr, rest)]) + ")"
        message = (f"namespace {namespace!r} names no user; this store's namespaces are {shape} and hindsight "
                   f"never reads across users: pass {instead}")
        if self.prefix:
            message += ", or use HindsightStore(memory, prefix=()) for namespaces that start with the user id"
        return message

    def _root(self, user: str) -> Namespace:
        return (*self.prefix, user)

    def _placement(self, item: KeyedItem) -> tuple[Namespace, str]:
        return (*self._root(item.record.user_id), *item.key[:-1]), item.key[-1]

    @staticmethod
    def _value(item: KeyedItem) -> dict[str, Any]:
        return item.value if isinstance(item.value, dict) else {"content": item.text}

    def _item(self, item: KeyedItem) -> Item:
        namespace, key = self._placement(item)
        return Item(value=self._value(item), key=key, namespace=namespace, created_at=item.created_at,
                    updated_at=item.updated_at)

    def _search_item(self, item: KeyedItem, score: float | None) -> SearchItem:
        namespace, key = self._placement(item)
        return SearchItem(namespace, key, self._value(item), item.created_at, item.updated_at, score)

    def _records(self, user: str) -> list[MemoryRecord]:
        """The user's active memories in this store's agent scope, oldest first."""
        return self.memory.memories(user_id=user, include_inactive=False, agent_id=self.agent_id)

    def _text(self, value: Mapping[str, Any], index: Any) -> str:
        if isinstance(index, list) and index:
            texts = [str(t) for path in index for t in get_text_at_path(value, path) if t]
            if any(t.strip() for t in texts):
                return "\n".join(texts)
        for name in self.text_fields:
            text = value.get(name)
            if isinstance(text, str) and text.strip():
                return text
        return json.dumps(value, ensure_ascii=False, sort_keys=True)

    # -- operations ---------------------------------------------------------------------------
    def _put(self, op: PutOp) -> None:
        namespace = tuple(op.namespace)
        user, path = self._scope(namespace)
        key = (*path, op.key)
        if op.value is None:
            self.keyed.delete(key, user_id=user, agent_id=self.agent_id)
            return
        value = op.value
        if not isinstance(value, Mapping):
            raise InvalidInputError(f"a store value must be a mapping (dict), got {type(value).__name__}")
        try:
            put = self.keyed.put(key, self._text(value, op.index), user_id=user, value=value, agent_id=self.agent_id,
                                 source=self.source)
        except InvalidInputError as exc:
            raise type(exc)(f"cannot put {namespace!r} / {op.key!r}: {exc}") from exc
        if put.outcome is WriteOutcome.REJECTED:
            raise InvalidInputError(f"hindsight's write audit refused the value put at {namespace!r} / {op.key!r}; "
                                    "nothing was changed: " + "; ".join(reasons_of(put.write)))
        if put.outcome is WriteOutcome.QUARANTINED:
            warnings.warn(f"hindsight's write audit quarantined the value put at {namespace!r} / {op.key!r}, and the "
                          f"key keeps its previous value. {describe(put.write)}", stacklevel=4)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        user, sub = self._scope(prefix)
        wanted = op.offset + op.limit
        if op.limit <= 0:
            return []

        def keep(item: KeyedItem) -> bool:
            namespace, _ = self._placement(item)
            if namespace[:len(prefix)] != prefix:
                return False
            return not op.filter or matches_filter(self._value(item), op.filter)

        if not op.query:
            listed = [item for item in map(item_of, self._records(user)) if keep(item)]
            return [self._search_item(item, None) for item in listed[op.offset:wanted]]
        narrowed = bool(sub or op.filter)
        limit = self.memory.config.limits.max_k
        # with no filtering to do, recall exactly the page and let recall reinforce what it returns;
        # otherwise over-fetch without reinforcing, since most candidates may be filtered out
        results = self.memory.recall(op.query, user_id=user, k=limit if narrowed else min(wanted, limit),
                                     agent_id=self.agent_id, reinforce=not narrowed)
        hits = [(item_of(r.memory), r.score) for r in results]
        return [self._search_item(item, score) for item, score in hits if keep(item)][op.offset:wanted]

    # -- namespaces ---------------------------------------------------------------------------
    def _listed_users(self, op: ListNamespacesOp) -> tuple[str, ...]:
        """Whose namespaces a listing shows: the bound users, or the one user its prefix names."""
        n = len(self.prefix)
        named = {tuple(c.path)[n] for c in op.match_conditions or ()
                 if c.match_type == "prefix" and len(c.path) > n and tuple(c.path)[:n] == self.prefix
                 and c.path[n] != "*"}
        if self.user_ids is not None:
            return tuple(u for u in self.user_ids if not named or u in named)
        if len(named) == 1:
            return (validate_id(named.pop()),)
        shape = ", ".join([*map(repr, self.prefix), "'<user_id>'"])
        raise InvalidInputError(
            f"list_namespaces lists one user's namespaces: pass prefix=({shape}), or build the store with "
            "user_ids=[...]; it never reveals who else is in the store. An administrator can call "
            "list_all_namespaces() to list every user's.")

    def _list_namespaces(self, op: ListNamespacesOp, users: Iterable[str]) -> list[Namespace]:
        found: set[Namespace] = set()
        for user in users:
            found.update(self._placement(item_of(r))[0] for r in self._records(user))
        namespaces = [ns for ns in found if all(matches_namespace(ns, c) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            namespaces = list({ns[:op.max_depth] for ns in namespaces})
        return sorted(namespaces)[op.offset:op.offset + op.limit]

    def list_all_namespaces(self, *, prefix: Namespace | None = None, suffix: Namespace | None = None,
                            max_depth: int | None = None, limit: int = 100, offset: int = 0) -> list[Namespace]:
        """Every user's namespaces, store-wide: an administrator's call, never one to hand an agent.

        Takes the arguments of `list_namespaces`; a store bound to `user_ids` still lists only theirs.
        """
        # `kind` is "prefix" or "suffix" (LangGraph types it as a Literal, the loop as a str)
        conditions = tuple(MatchCondition(match_type=kind, path=tuple(path))  # type: ignore[arg-type]
                           for kind, path in (("prefix", prefix), ("suffix", suffix)) if path)
        op = ListNamespacesOp(match_conditions=conditions, max_depth=max_depth, limit=limit, offset=offset)
        users = self.user_ids if self.user_ids is not None else self.memory.users()
        with self._lock:
            return self._list_namespaces(op, users)
