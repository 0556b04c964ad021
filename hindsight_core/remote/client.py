"""`HindsightClient`: the memory API over HTTP, for processes that share a store held by `hindsight serve`.

A sibling of the embedded `Hindsight`, not a subclass: both implement `api.MemoryAPI` with the same results and
errors (`testing.conformance`); an error the server raised comes back as the same `HindsightError` subclass, a
server that does not answer as `StoreUnavailableError`, a refused token as `ServerAuthError`, never an httpx error.
Two differences, both from running elsewhere: `where` is applied here, to a few more results than `k`; and
forget listeners hear the forgets made by another process when `forgets_made_elsewhere` asks (`local_forgets`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import socket
import weakref
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, TextIO

import httpx
from typing_extensions import Unpack

from ..api import refuses_unknown
from ..clock import ensure_utc, read_clock, system_clock
from ..config import HindsightConfig
from ..contract.checks import check_batch, check_metadata, check_predicate, check_text_output, check_users
from ..contract.options import RecallKeywords, RecallOptions, WriteKeywords, WriteManyKeywords, per_text
from ..contract.results import ConsolidationReport, StoreStats, TransferSummary, WriteResult
from ..decay import retention_of
from ..errors import InvalidInputError, ServerAuthError, ServerError, StoreUnavailableError
from ..events import ForgetListener, Forgetting
from ..language.text import validate_id
from ..recall.formatting import format_for_prompt
from ..session.asking import asker
from ..types import ForgetReceipt, MemoryRecord, RecallResults
from . import wire
from .local_forgets import LocalForgets
from .local_journal import ClientJournal, default_folder

#: headers and body go out as two writes: without TCP_NODELAY the body waits for the server's delayed ACK of the
#: headers (about 40 ms on Linux) on every call
_NO_DELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]

class HindsightClient:
    """Long-term memory held by a `hindsight serve` at `url` (e.g. "http://127.0.0.1:8765").

    Every operation goes over HTTP (`holds_store` is False). `token`: the server's token or a user's own. `caller` names
    this process in the server's recall log, `session` groups its recalls there; `timeout` is in seconds.
    `queue_journal`: where a write queue over this client journals: True (default) a private folder under
    `HINDSIGHT_HOME/client-queues`, a path a folder of your own (made 0700), False in memory only.
    """

    #: the store lives in the server's process, not this one (see `MemoryAPI.holds_store`)
    holds_store = False

    def __init__(self, url: str, *, token: str | None = None, timeout: float = 60.0, caller: str = "python",
                 session: str | None = None, clock: Callable[[], datetime] = system_clock,
                 transport: httpx.BaseTransport | None = None, queue_journal: str | Path | bool = True) -> None:
        self.url = url.rstrip("/")
        self._token = token
        self._queue_journal = queue_journal
        self._journal_slot: ClientJournal | None = None
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if transport is None:
            transport = httpx.HTTPTransport(socket_options=_NO_DELAY)
        self._http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout, transport=transport,
                                  trust_env=False)
        self.caller = caller
        self.session = session
        self.clock = clock
        self._config: HindsightConfig | None = None
        self._model: str | None = None
        self._close_hooks: list[Callable[[], None]] = []
        self._forgets = LocalForgets()
        self._async_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = \
            weakref.WeakKeyDictionary()

    # -- transport -----------------------------------------------------------------------------
    def _request(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """The keyword arguments of the POST that calls `name` (refuses what cannot be sent as JSON)."""
        if self._http.is_closed:  # not the input's fault: a write queue keeps what it holds journaled
            raise StoreUnavailableError(f"this client of {self.url} is closed")
        headers = {"X-Hindsight-Caller": asker() or self.caller, "Content-Type": "application/json"}
        if self.session:
            headers["X-Hindsight-Session"] = self.session
        try:
            body = json.dumps(wire.value_out(args), allow_nan=False)
        except (TypeError, ValueError) as exc:  # NaN, a function, an object: the facade refuses these too
            raise InvalidInputError(f"an argument of {name} cannot be sent as JSON: {exc}") from None
        return {"url": f"{wire.PREFIX}/{name}", "content": body.encode(), "headers": headers}

    @contextlib.contextmanager
    def _reaching(self) -> Iterator[None]:
        """httpx's errors as hindsight's: a server that does not answer is a StoreUnavailableError."""
        try:
            yield
        except httpx.TimeoutException as exc:
            raise StoreUnavailableError(f"the hindsight server at {self.url} did not answer in time ({exc})") from None
        except httpx.HTTPError as exc:
            raise StoreUnavailableError(f"no hindsight server answers at {self.url} ({exc}); start one with "
                                        "`hindsight serve`, or check the address") from None

    def _result(self, response: httpx.Response) -> Any:
        """The result in the server's answer, or the error it carries, raised as the same HindsightError."""
        try:
            data = response.json()
        except ValueError:
            data = None
        if response.status_code == 401:
            message = (data or {}).get("error", {}).get("message") if isinstance(data, dict) else None
            raise ServerAuthError(f"the hindsight server at {self.url} refused this client: "
                                  f"{message or response.text[:200]}")
        if isinstance(data, dict) and "error" in data and isinstance(data["error"], dict):
            error = data["error"]
            raise wire.error_class(str(error.get("type")))(str(error.get("message")))
        if response.status_code != 200 or not isinstance(data, dict) or "result" not in data:
            raise ServerError(f"the hindsight server at {self.url} answered {response.status_code}: "
                              f"{response.text[:200]}")
        return data["result"]

    def _call(self, name: str, **args: Any) -> Any:
        request = self._request(name, args)
        with self._reaching():
            response = self._http.post(**request)
        return self._result(response)

    async def _acall(self, name: str, **args: Any) -> Any:
        """`_call` on the running event loop: the request waits on the socket, not in a thread."""
        request = self._request(name, args)
        with self._reaching():
            response = await self._async_http().post(**request)
        return self._result(response)

    def _async_http(self) -> httpx.AsyncClient:
        """This event loop's connection pool to the server (a pool belongs to the loop that opened it)."""
        loop = asyncio.get_running_loop()
        client = self._async_pools.get(loop)
        if client is None:
            client = self._async_pools[loop] = httpx.AsyncClient(
                base_url=self.url, headers=self._http.headers, timeout=self._http.timeout, trust_env=False,
                transport=httpx.AsyncHTTPTransport(socket_options=_NO_DELAY))
        return client

    async def aclose(self) -> None:
        """Close this event loop's connections to the server, then the client."""
        pool = self._async_pools.pop(asyncio.get_running_loop(), None)
        if pool is not None:
            await pool.aclose()
        self.close()

    def close(self) -> None:
        for hook in list(self._close_hooks):  # a write queue over this client sends what it holds first
            hook()
        self._http.close()
        if self._journal_slot is not None:
            self._journal_slot.release()

    def local_journal(self) -> Path | None:
        """The journal file of a write queue over this client (see `queue_journal`); None to keep it in memory.
        Taken on first use, with what a killed process left for this server moved into it."""
        if self._queue_journal is False:
            return None
        if self._journal_slot is None:
            folder = default_folder() if self._queue_journal is True else Path(self._queue_journal)
            self._journal_slot = ClientJournal(self.url, self._token, folder, reaches=self._token_reaches)
        return self._journal_slot.path

    def _token_reaches(self) -> str:
        """Whom the server says this client's token reaches: "*" (every user) or one user id."""
        return str(self._call("config")["reaches"])

    def __enter__(self) -> "HindsightClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self) -> datetime:
        return read_clock(self.clock)

    def health(self) -> dict[str, Any]:
        try:
            answer: dict[str, Any] = self._http.get("/healthz").json()
            return answer
        except (httpx.HTTPError, ValueError) as exc:
            raise StoreUnavailableError(f"no hindsight server answers at {self.url} ({exc})") from None

    @property
    def config(self) -> HindsightConfig:
        """The server's `HindsightConfig` (limits, decay, ...), fetched once. While no server answers, the defaults
        (not kept): an adapter started during an outage still journals its turns, which the server checks again."""
        if self._config is None:
            try:
                answer = self._call("config")
            except StoreUnavailableError:
                return HindsightConfig()
            self._config, self._model = wire.config_in(answer["config"]), answer["embedding_model"]
        return self._config

    @property
    def embedding_model(self) -> str:
        """The server's embedding model, fetched once with its config."""
        return self._model if self.config is not None and self._model else ""

    # -- writing --------------------------------------------------------------------------------
    @refuses_unknown("write")
    def write(self, text: str, *, user_id: str, **options: Unpack[WriteKeywords]) -> WriteResult:
        self._check_write(options, 1)
        return wire.write_result_in(self._call("write", text=text, user_id=user_id, **options))

    @refuses_unknown("write_many")
    def write_many(self, texts: Sequence[str], *, user_id: str, **options: Unpack[WriteManyKeywords]
                   ) -> list[WriteResult]:
        self._check_write(options, len(check_batch(texts, self.config.limits.max_batch)))
        return [wire.write_result_in(r) for r in self._call("write_many", texts=texts, user_id=user_id, **options)]

    def _check_write(self, options: Mapping[str, Any], count: int) -> None:
        """The options checked here as the server's facade checks them (`WriteOptions.checked`), so a value JSON
        would change on the way (a number as a metadata key, a set) is refused as it would be embedded."""
        for one in per_text(options, count):
            one.checked(self.config)

    def _check_recall(self, options: Mapping[str, Any], where: object) -> None:
        check_predicate(where)
        RecallOptions.named(options).checked(self.config)

    @refuses_unknown("remember")
    def remember(self, text: str, *, user_id: str, **options: Unpack[WriteKeywords]) -> MemoryRecord | None:
        return self.write(text, user_id=user_id, **options).record

    # -- reading --------------------------------------------------------------------------------
    @refuses_unknown("recall")
    def recall(self, query: str, *, user_id: str, where: Callable[[MemoryRecord], bool] | None = None,
               **options: Unpack[RecallKeywords]) -> RecallResults:
        self._check_recall(options, where)
        k = options.get("k", 5)
        found = self._call("recall", query=query, user_id=user_id, **{**options, "k": _asked(k, where)})
        return _kept(wire.results_in(found), k, where)

    def retention_of(self, record: MemoryRecord, at: datetime | None = None) -> float:
        """Retention of one record now (or at `at`), by the server's decay settings; see `hindsight_core.decay`."""
        moment = ensure_utc(at) if at is not None else self.now()
        return retention_of(record, moment, self.config.decay.reinforcement)

    def get(self, memory_id: str, *, user_id: str) -> MemoryRecord:
        return wire.record_in(self._call("get", memory_id=memory_id, user_id=user_id))

    def memories(self, *, user_id: str, include_inactive: bool = True, agent_id: str | None = None
                 ) -> list[MemoryRecord]:
        found = self._call("memories", user_id=user_id, include_inactive=include_inactive, agent_id=agent_id)
        return [wire.record_in(r) for r in found]

    def find(self, *, user_id: str, metadata: Mapping[str, Any]) -> list[MemoryRecord]:
        if metadata is not None:  # None is the server's to refuse, in its words
            limits = self.config.limits
            metadata = check_metadata(metadata, max_depth=limits.max_metadata_depth, max_bytes=limits.max_metadata_bytes)
        return [wire.record_in(r) for r in self._call("find", user_id=user_id, metadata=metadata)]

    def release(self, *, user_id: str, memory_id: str) -> MemoryRecord:
        return wire.record_in(self._call("release", user_id=user_id, memory_id=memory_id))

    def unreadable(self, *, user_id: str) -> list[tuple[str, str]]:
        return [(str(memory_id), str(why)) for memory_id, why in self._call("unreadable", user_id=user_id)]

    def users(self) -> list[str]:
        return list(self._call("users"))

    # -- forgetting and upkeep ------------------------------------------------------------------
    def forget(self, *, user_id: str, memory_id: str | None = None, about: str | None = None,
               everything: bool = False, dry_run: bool = False, for_good: bool = True) -> ForgetReceipt:
        """The server's forget, announced to this process's listeners first and after (a write queue settles)."""
        started = self._forgets.starting(user_id, memory_id, about, everything, dry_run)
        receipt = wire.receipt_in(self._call("forget", user_id=user_id, memory_id=memory_id, about=about,
                                             everything=everything, dry_run=dry_run, for_good=for_good))
        return self._forgets.done(started, receipt, about)

    def forgets_made_elsewhere(self, user_id: str) -> bool:
        """Whether a forget of `user_id` began since this client last asked (made by anyone); if so it is announced
        to this process's `on_forget` listeners, naming no text (`local_forgets.ForgetCounter`)."""
        return self._forgets.elsewhere(validate_id(user_id), str(self._call("forget_count", user_id=user_id)))

    def on_close(self, hook: Callable[[], None]) -> None:
        """Call `hook` first when this client closes (a write queue over it sends what it holds)."""
        self._close_hooks.append(hook)

    def on_forget(self, listener: ForgetListener) -> None:
        """Call `listener` after each forget made through this client, and of one made by another process when
        `forgets_made_elsewhere` finds it."""
        self._forgets.on_forget(listener)

    def before_forget(self, listener: Callable[[Forgetting], None]) -> None:
        """Call `listener` when a forget through this client starts, before the request leaves."""
        self._forgets.before_forget(listener)

    def compact(self) -> int:
        return int(self._call("compact"))

    def optimize(self, *, user_id: str) -> bool:
        return bool(self._call("optimize", user_id=user_id))

    def consolidate(self, *, user_id: str, dry_run: bool = False) -> ConsolidationReport:
        return wire.consolidation_in(self._call("consolidate", user_id=user_id, dry_run=dry_run))

    def consolidate_all(self, *, dry_run: bool = False) -> list[ConsolidationReport]:
        return [wire.consolidation_in(r) for r in self._call("consolidate_all", dry_run=dry_run)]

    def stats(self, *, users: Iterable[str] | None = None) -> StoreStats:
        """What `hindsight_core.maintenance.stats` reports, for the store the server holds."""
        return wire.stats_in(self._call("stats", users=check_users(users)))

    def export_jsonl(self, out: TextIO, *, users: Iterable[str] | None = None, vectors: bool = True,
                     include_archive: bool = True) -> TransferSummary:
        """Write the export (JSON Lines) to the file `out`; returns the counts."""
        check_text_output(out)
        answer = self._call("export_jsonl", users=check_users(users), vectors=vectors, include_archive=include_archive)
        out.write(answer["jsonl"])
        return _summary_in(answer["summary"])

    def import_jsonl(self, lines: Iterable[str], *, batch: int = 500) -> TransferSummary:
        """Load an export, `batch` lines per request; returns the summed counts. The whole file is checked here
        first, so a bad line stores none of it."""
        from ..maintenance.transfer import check_export

        if isinstance(lines, (str, bytes)) or not isinstance(lines, Iterable):
            raise InvalidInputError("lines must be the export's lines (an open text file or a list of strings), got "
                                    f"{type(lines).__name__}" + (": open the file first" if isinstance(lines, str) else ""))
        lines = list(lines)
        check_export(lines)
        total: dict[str, Any] = {"memories": 0, "archived": 0, "users": set(), "reembedded": 0}
        chunk: list[str] = []

        def send() -> None:
            summary = self._call("import_jsonl", lines=chunk)
            for key in ("memories", "archived", "reembedded"):
                total[key] += summary[key]
            total["users"] |= set(summary["users"])
            chunk.clear()

        for line in lines:
            chunk.append(line)
            if len(chunk) >= batch:
                send()
        if chunk:
            send()
        return _summary_in(total)

    def recall_log(self, *, user_id: str, session: str | None = None) -> list[dict[str, Any]]:
        """The server's log of what recall gave this user (newest first), if it keeps one."""
        entries: list[dict[str, Any]] = self._call("recall_log", user_id=user_id, session=session)
        for entry in entries:
            entry["results"] = [wire.scored_in(r) for r in entry["results"]]
        return entries

    def recall_log_consent(self, *, user_id: str, given: bool) -> bool:
        """Give or withdraw this user's consent to the recall log; returns whether it is kept now."""
        return bool(self._call("recall_log_consent", user_id=user_id, given=given))

    # -- prompt ---------------------------------------------------------------------------------
    format_for_prompt = staticmethod(format_for_prompt)

    # -- async twins: the same calls, awaited on the event loop ---------------------------------
    @refuses_unknown("awrite")
    async def awrite(self, text: str, *, user_id: str, **options: Unpack[WriteKeywords]) -> WriteResult:
        self._check_write(options, 1)
        return wire.write_result_in(await self._acall("write", text=text, user_id=user_id, **options))

    @refuses_unknown("aremember")
    async def aremember(self, text: str, *, user_id: str, **options: Unpack[WriteKeywords]) -> MemoryRecord | None:
        return (await self.awrite(text, user_id=user_id, **options)).record

    @refuses_unknown("arecall")
    async def arecall(self, query: str, *, user_id: str, where: Callable[[MemoryRecord], bool] | None = None,
                      **options: Unpack[RecallKeywords]) -> RecallResults:
        self._check_recall(options, where)
        k = options.get("k", 5)
        found = await self._acall("recall", query=query, user_id=user_id, **{**options, "k": _asked(k, where)})
        return _kept(wire.results_in(found), k, where)

    async def aforget(self, *, user_id: str, memory_id: str | None = None, about: str | None = None,
                      everything: bool = False, dry_run: bool = False, for_good: bool = True) -> ForgetReceipt:
        # listeners may wait for a write queue's writer thread: they run off the event loop (none: nothing waits)
        heard = self._forgets.heard
        starting = functools.partial(self._forgets.starting, user_id, memory_id, about, everything, dry_run)
        started = await asyncio.to_thread(starting) if heard else starting()
        receipt = wire.receipt_in(await self._acall("forget", user_id=user_id, memory_id=memory_id, about=about,
                                                    everything=everything, dry_run=dry_run, for_good=for_good))
        done = functools.partial(self._forgets.done, started, receipt, about)
        return await asyncio.to_thread(done) if heard else done()


def _summary_in(counts: Mapping[str, Any]) -> TransferSummary:
    return TransferSummary(set(counts["users"]), int(counts["memories"]), int(counts["archived"]),
                           int(counts.get("reembedded", 0)))


def _asked(k: Any, where: Callable[[MemoryRecord], bool] | None) -> Any:
    """How many results to ask the server for: a few more than `k` when `where` filters them here."""
    if where is None or not isinstance(k, int) or isinstance(k, bool):
        return k  # the server checks k
    return k + 5 + 4 * k


def _kept(found: RecallResults, k: int, where: Callable[[MemoryRecord], bool] | None) -> RecallResults:
    if where is None:
        return found
    return RecallResults([r for r in found if where(r.memory)][:k], consensus=found.consensus)
