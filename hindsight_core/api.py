"""The contract at the centre: `MemoryAPI`, what every memory offers, typed to the last option.

Two siblings implement it, neither a subclass of the other: `Hindsight` (`memory.py`, this process holds the
store) and `HindsightClient` (`remote/client.py`, a `hindsight serve` holds it); `testing.conformance` runs the
same tests on both. It sits below the stages with its option values (`contract.options`), results and errors, so
importing it loads no stage and no store (ARCHITECTURE.md, "The contract").
"""

from __future__ import annotations

import functools
import inspect
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence, TextIO, TypeVar, cast

# typing_extensions' runtime protocols read members statically (Python 3.12's rule): `isinstance(client, MemoryAPI)`
# must not call the client's `config` property, which asks the server
from typing_extensions import Protocol, Self, Unpack, runtime_checkable

from .contract.checks import check_names
from .contract.options import (RECALL_OPTIONS, WRITE_MANY_OPTIONS, WRITE_OPTIONS, RecallKeywords, WriteKeywords,
                               WriteManyKeywords)
from .errors import InvalidInputError

if TYPE_CHECKING:
    from .config import HindsightConfig
    from .contract.results import ConsolidationReport, StoreStats, TransferSummary, WriteResult
    from .events import ForgetListener, Forgetting
    from .types import ForgetReceipt, MemoryRecord, RecallResults, ScoredMemory

__all__ = ["MemoryAPI", "keywords", "refuses_unknown"]


@runtime_checkable
class MemoryAPI(Protocol):
    """Long-term memory for agents, embedded or remote: the calls every face and adapter may make.

    Arguments, results and errors are the same on every implementation (`testing.conformance`): bad input is an
    `InvalidInputError`, an unknown id a `MemoryNotFoundError`, an unreachable or closed store a
    `StoreUnavailableError`.
    """

    #: whether the store lives in this process (embedded) rather than behind a server
    holds_store: bool

    @property
    def config(self) -> HindsightConfig: ...

    @property
    def embedding_model(self) -> str:
        """The name of the model the memories are embedded with."""
        ...

    def now(self) -> datetime: ...

    # -- writing
    def write(self, text: str, *, user_id: str, **options: Unpack[WriteKeywords]) -> WriteResult: ...

    def write_many(self, texts: Sequence[str], *, user_id: str, **options: Unpack[WriteManyKeywords]
                   ) -> list[WriteResult]: ...

    def remember(self, text: str, *, user_id: str, **options: Unpack[WriteKeywords]) -> MemoryRecord | None: ...

    # -- reading
    def recall(self, query: str, *, user_id: str, where: Callable[[MemoryRecord], bool] | None = None,
               **options: Unpack[RecallKeywords]) -> RecallResults: ...

    def get(self, memory_id: str, *, user_id: str) -> MemoryRecord: ...

    def memories(self, *, user_id: str, include_inactive: bool = True, agent_id: str | None = None
                 ) -> list[MemoryRecord]: ...

    def find(self, *, user_id: str, metadata: Mapping[str, Any]) -> list[MemoryRecord]: ...

    def users(self) -> list[str]: ...

    def release(self, *, user_id: str, memory_id: str) -> MemoryRecord: ...

    def unreadable(self, *, user_id: str) -> list[tuple[str, str]]: ...

    def retention_of(self, record: MemoryRecord, at: datetime | None = None) -> float: ...

    # -- forgetting and knowledge
    def forget(self, *, user_id: str, memory_id: str | None = None, about: str | None = None,
               everything: bool = False, dry_run: bool = False, for_good: bool = True) -> ForgetReceipt: ...

    def consolidate(self, *, user_id: str, dry_run: bool = False) -> ConsolidationReport: ...

    def consolidate_all(self, *, dry_run: bool = False) -> list[ConsolidationReport]: ...

    # -- the store as a whole
    def stats(self, *, users: Iterable[str] | None = None) -> StoreStats: ...

    def export_jsonl(self, out: TextIO, *, users: Iterable[str] | None = None, vectors: bool = True,
                     include_archive: bool = True) -> TransferSummary: ...

    def import_jsonl(self, lines: Iterable[str]) -> TransferSummary: ...

    def compact(self) -> int:
        """Rewrite the store's files so that deleted points leave them too; how many shards were rewritten."""
        ...

    def optimize(self, *, user_id: str) -> bool:
        """Build the engine's vector index for one user now, off the write path."""
        ...

    # -- the prompt, async twins
    @staticmethod
    def format_for_prompt(results: Iterable[ScoredMemory], *, header: str = ..., empty: str = "",
                          max_chars: int = ..., context_chars: int = ...) -> str: ...

    async def awrite(self, text: str, *, user_id: str, **options: Unpack[WriteKeywords]) -> WriteResult: ...

    async def arecall(self, query: str, *, user_id: str, where: Callable[[MemoryRecord], bool] | None = None,
                      **options: Unpack[RecallKeywords]) -> RecallResults: ...

    async def aforget(self, *, user_id: str, memory_id: str | None = None, about: str | None = None,
                      everything: bool = False, dry_run: bool = False, for_good: bool = True) -> ForgetReceipt: ...

    # -- who else holds a user's words (`events`), and the lifecycle
    def on_forget(self, listener: ForgetListener) -> None:
        """Call `listener` after each forget made through this memory, with what went."""
        ...

    def before_forget(self, listener: Callable[[Forgetting], None]) -> None:
        """Call `listener` when a forget through this memory starts, before it looks at the store."""
        ...

    def local_journal(self) -> Path | None:
        """Where a write queue over this memory journals on this machine; None to keep the queue in memory only."""
        ...

    def on_close(self, hook: Callable[[], None]) -> None: ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...


#: the calls whose options are typed keywords (`**options`): the names of their frozen values
_OPTIONS: Mapping[str, tuple[str, ...]] = {"write": WRITE_OPTIONS, "awrite": WRITE_OPTIONS,
                                           "remember": WRITE_OPTIONS, "aremember": WRITE_OPTIONS,
                                           "write_many": WRITE_MANY_OPTIONS, "recall": RECALL_OPTIONS,
                                           "arecall": RECALL_OPTIONS}


def keywords(call: str) -> tuple[str, ...]:
    """What `MemoryAPI.<call>` takes by name besides `user_id`, in order: the server's allow-list for that call.

    For a call with options, its frozen value's fields; for any other, the keyword-only parameters of its
    signature here.
    """
    if call in _OPTIONS:
        return _OPTIONS[call]
    parameters = inspect.signature(getattr(MemoryAPI, call)).parameters.values()
    return tuple(p.name for p in parameters if p.kind is p.KEYWORD_ONLY and p.name != "user_id")


_Method = TypeVar("_Method", bound=Callable[..., Any])


def refuses_unknown(call: str) -> Callable[[_Method], _Method]:
    """An implementation of `MemoryAPI.<call>` that refuses, before it runs, a keyword the call does not take or a
    missing required one with an `InvalidInputError` naming it (and the closest name, `check_names`), never
    Python's TypeError; the method's signature is kept (help, `inspect`).
    """
    def wrap(method: _Method) -> _Method:
        parameters = [p for p in inspect.signature(method).parameters.values() if p.name != "self"]
        options = keywords(call)
        own = [p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        known = tuple(dict.fromkeys([*(n for n in own if n not in options), "user_id", *options]))
        takes = frozenset([*known, *own])
        required = [p.name for p in parameters if p.kind is p.KEYWORD_ONLY and p.default is p.empty]

        def check(given: Mapping[str, Any]) -> None:
            if not takes.issuperset(given):
                check_names(given, known, call)
            missing = [name for name in required if name not in given]
            if missing:
                raise InvalidInputError(f"{call} needs {', '.join(f'{name}=...' for name in missing)}")

        if inspect.iscoroutinefunction(method):
            @functools.wraps(method)
            async def checked_async(*args: Any, **kwargs: Any) -> Any:
                check(kwargs)
                return await method(*args, **kwargs)
            return cast(_Method, checked_async)

        @functools.wraps(method)
        def checked(*args: Any, **kwargs: Any) -> Any:
            check(kwargs)
            return method(*args, **kwargs)
        return cast(_Method, checked)
    return wrap
