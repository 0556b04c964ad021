"""A conformance suite for LangGraph stores: a store's answers compared with LangGraph's own `InMemoryStore`.

LangGraph publishes a conformance suite for checkpointers, not for stores. This one
runs the same script of store calls (put, get, search with and without a filter or a
query, delete, list_namespaces, a mixed `batch` and `abatch`) on the store under test
and on a reference store, and reports every answer that differs:

    from hindsight_langchain.testing import check_store

    report = check_store(make_store=lambda: MyStore(...))
    assert not report.unexpected, report.describe()

Any `BaseStore` can be checked. Everything the script touches lives under `root` and
`other_root` (two namespaces, e.g. two users' roots for a store that keys namespaces by
user), so a store that accepts only some namespace shapes can still be run. Items are
compared by namespace, key and value; timestamps and scores are not compared. A search
with a query is compared as a set when `ranked_queries=False`: the reference ranks by
its own embedding, a memory store by what is worth recalling.

`intended` names the steps whose differences are by design, with the reason; they are
reported apart (`report.intended`), never hidden.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from langgraph.store.base import BaseStore, GetOp, Item, ListNamespacesOp, MatchCondition, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore

__all__ = ["Difference", "Report", "Step", "check_store", "conformance_steps"]

Namespace = tuple[str, ...]

# values with a text field (stores that embed read it) and fields the filters test
ITEMS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("tea", {"content": "I drink green tea every morning.", "kind": "habit", "score": 3, "tags": ["food"]}),
    ("a4", {"content": "Print my reports in A4 landscape.", "kind": "preference", "score": 7}),
    ("bike", {"content": "I cycle to work when it does not rain.", "kind": "habit", "score": 5}),
    ("vegetarian", {"content": "I only eat vegetarian food.", "kind": "preference", "score": 9,
                    "detail": {"since": 2019}}),
)


@dataclass(frozen=True)
class Step:
    """One named call (or a few) whose normalised answer is compared between the stores."""

    name: str
    run: Callable[[BaseStore], Any]
    ranked: bool = True  # False: a list answer is compared as a set


@dataclass(frozen=True)
class Difference:
    step: str
    expected: Any
    got: Any
    reason: str | None = None  # why it is intended, for an intended one

    def describe(self) -> str:
        why = f" (intended: {self.reason})" if self.reason else ""
        return f"{self.step}{why}:\n  reference: {self.expected!r}\n  store:     {self.got!r}"


@dataclass
class Report:
    steps: list[str] = field(default_factory=list)
    unexpected: list[Difference] = field(default_factory=list)
    intended: list[Difference] = field(default_factory=list)

    def describe(self) -> str:
        lines = [f"{len(self.steps)} steps, {len(self.unexpected)} unexpected differences, "
                 f"{len(self.intended)} intended"]
        lines += [d.describe() for d in self.unexpected + self.intended]
        return "\n".join(lines)


def _item(item: Item | None) -> Any:
    return None if item is None else (tuple(item.namespace), item.key, _plain(item.value))


def _plain(value: Any) -> Any:
    """A value in a comparable, hashable form."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _plain(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v) for v in value)
    return value


def _items(found: Sequence[Item]) -> list[Any]:
    return [_item(i) for i in found]


def _put_all(store: BaseStore, namespace: Namespace) -> Any:
    for key, value in ITEMS:
        store.put(namespace, key, value)
    return None


def _then(change: Callable[[], None], read: Callable[[], Any] = lambda: None) -> Any:
    """`read()` after `change()`: a step that changes the store, then shows what it holds."""
    change()
    return read()


def _with_item(store: BaseStore, namespace: Namespace, key: str, value: dict[str, Any],
               read: Callable[[], Any]) -> Any:
    """`read()` while one more item exists; the item goes again even if the read raises."""
    store.put(namespace, key, value)
    try:
        return read()
    finally:
        store.delete(namespace, key)


def conformance_steps(root: Namespace, other_root: Namespace, *, ranked_queries: bool = False) -> list[Step]:
    """The script: each step's answer must be the reference store's answer."""
    sub = (*root, "profile")
    other_sub = (*other_root, "notes")
    a4 = dict(ITEMS)["a4"]
    return [
        Step("get before any put is None", lambda s: _item(s.get(root, "tea"))),
        Step("put items", lambda s: _put_all(s, root)),
        Step("get each item", lambda s: [_item(s.get(root, key)) for key, _ in ITEMS]),
        Step("get a missing key is None", lambda s: _item(s.get(root, "nothing-here"))),
        Step("put replaces the value", lambda s: _then(lambda: s.put(root, "a4", {**a4, "content": "Print my reports "
                                                                                                      "in A3."}),
                                                       lambda: _item(s.get(root, "a4")))),
        Step("put in a sub-namespace", lambda s: _then(lambda: s.put(sub, "name", {"content": "My name is Alice.",
                                                                                   "score": 0}),
                                                       lambda: _item(s.get(sub, "name")))),
        Step("the sub-namespace item is not under the parent's key", lambda s: _item(s.get(root, "name"))),
        Step("search without a query lists the prefix", lambda s: _items(s.search(root, limit=20)), ranked=False),
        Step("search a sub-namespace", lambda s: _items(s.search(sub))),
        Step("search with an equality filter", lambda s: _items(s.search(root, filter={"kind": "habit"})),
             ranked=False),
        Step("search with $gt", lambda s: _items(s.search(root, filter={"score": {"$gt": 5}})), ranked=False),
        Step("search with $gte and $lte", lambda s: _items(s.search(root, filter={"score": {"$gte": 5, "$lte": 7}})),
             ranked=False),
        Step("search with $ne", lambda s: _items(s.search(root, filter={"kind": {"$ne": "habit"}})), ranked=False),
        Step("a numeric filter on an item without the field",
             lambda s: _with_item(s, sub, "nickname", {"content": "Call me Al."},
                                  lambda: _items(s.search(sub, filter={"score": {"$gt": 5}})))),
        Step("search with a nested filter", lambda s: _items(s.search(root, filter={"detail": {"since": 2019}}))),
        Step("search with a list filter", lambda s: _items(s.search(root, filter={"tags": ["food"]}))),
        Step("search with a filter nothing matches", lambda s: _items(s.search(root, filter={"kind": "none"}))),
        Step("search limit and offset page through", lambda s: len(s.search(root, limit=2, offset=1))),
        Step("search past the end is empty", lambda s: _items(s.search(root, limit=5, offset=50))),
        Step("search with a query", lambda s: _items(s.search(root, query="what do I eat?", limit=20)),
             ranked=ranked_queries),
        Step("search with a query and a filter",
             lambda s: _items(s.search(root, query="morning drink", filter={"kind": "habit"}, limit=20)),
             ranked=ranked_queries),
        Step("search with a query, limit 0", lambda s: _items(s.search(root, query="tea", limit=0))),
        Step("put for another root", lambda s: _then(lambda: s.put(other_sub, "n1", {"content": "Bob likes jazz."}))),
        Step("another root's items stay apart", lambda s: _items(s.search(other_root))),
        Step("list_namespaces under a root", lambda s: sorted(s.list_namespaces(prefix=root))),
        Step("list_namespaces with max_depth", lambda s: sorted(s.list_namespaces(prefix=root,
                                                                                   max_depth=len(root)))),
        Step("list_namespaces with a suffix", lambda s: sorted(s.list_namespaces(suffix=("profile",)))),
        Step("list_namespaces of the whole store", lambda s: sorted(s.list_namespaces())),
        Step("list_namespaces with a wildcard", lambda s: sorted(
            s.list_namespaces(prefix=(*root[:-1], "*")) if root[:-1] else s.list_namespaces())),
        Step("delete an item", lambda s: _then(lambda: s.delete(root, "bike"), lambda: _item(s.get(root, "bike")))),
        Step("delete a missing key is no error", lambda s: _then(lambda: s.delete(root, "never-put"))),
        Step("search after delete", lambda s: _items(s.search(root, limit=20)), ranked=False),
        Step("batch of mixed operations", lambda s: _batch_answers(s.batch(_mixed_ops(root, sub)))),
        Step("abatch gives the same answers", lambda s: _batch_answers(asyncio.run(s.abatch(_mixed_ops(root, sub))))),
        Step("async get and search", lambda s: asyncio.run(_async_reads(s, root))),
    ]


def _mixed_ops(root: Namespace, sub: Namespace) -> list[Any]:
    return [PutOp(root, "batch", {"content": "I keep my keys in the blue bowl.", "kind": "habit", "score": 1}),
            GetOp(root, "batch"), GetOp(root, "nothing-here"), GetOp(sub, "name"),
            SearchOp(root, filter={"kind": "preference"}, limit=20),
            ListNamespacesOp(match_conditions=(MatchCondition("prefix", root),), max_depth=None, limit=100),
            PutOp(root, "batch", None), GetOp(root, "batch")]


def _batch_answers(results: Sequence[Any]) -> list[Any]:
    answers: list[Any] = []
    for result in results:
        if isinstance(result, Item):
            answers.append(_item(result))
        elif isinstance(result, list):
            answers.append(sorted(_item(r) if isinstance(r, Item) else tuple(r) for r in result))
        else:
            answers.append(result)
    return answers


async def _async_reads(store: BaseStore, root: Namespace) -> Any:
    got = await store.aget(root, "tea")
    found = await store.asearch(root, filter={"kind": "preference"}, limit=20)
    return _item(got), sorted(_items(found))


def _normal(answer: Any, ranked: bool) -> Any:
    if not ranked and isinstance(answer, list):
        return sorted(answer, key=repr)
    return answer


def check_store(make_store: Callable[[], BaseStore], *, root: Namespace = ("memories", "alice"),
                other_root: Namespace = ("memories", "bob"),
                make_reference: Callable[[], BaseStore] = InMemoryStore,
                intended: Mapping[str, str] | None = None, ranked_queries: bool = False) -> Report:
    """Run the script on a new store and a new reference store; report each step whose answers differ.

    A step that raises on one store and not the other is a difference too (its answer is the
    exception's type and message).
    """
    intended = dict(intended or {})
    store, reference = make_store(), make_reference()
    report = Report()
    for step in conformance_steps(root, other_root, ranked_queries=ranked_queries):
        report.steps.append(step.name)
        expected, got = (_normal(_answer(step, s), step.ranked) for s in (reference, store))
        if expected != got:
            reason = intended.get(step.name)
            (report.intended if reason else report.unexpected).append(Difference(step.name, expected, got, reason))
    unknown = set(intended) - set(report.steps)
    if unknown:
        raise ValueError(f"intended differences name steps that do not exist: {sorted(unknown)}")
    return report


def _answer(step: Step, store: BaseStore) -> Any:
    try:
        return step.run(store)
    except Exception as exc:  # noqa: BLE001 - a refusal is an answer to compare, not a crash of the suite
        return ("raised", type(exc).__name__, str(exc))
