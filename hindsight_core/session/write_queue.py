"""Writes behind the agent: hand a turn to memory, return at once, lose nothing that was acknowledged.

    queue = write_queue(memory)                      # one per Hindsight, one writer thread
    queue.submit(["I live in Porto."], user_id="alice", session_id="s-1")   # journaled, then returns
    queue.flush()                                    # wait until everything handed over is written

`submit` checks at once what it can (`WriteOptions.checked`; a bad text is an `InvalidInputError` and nothing of that
call is queued), then appends the write to the journal and commits it (SQLite; `sync="full"` survives a power cut too)
before it returns. One writer thread runs the writes in order, `linger` seconds after the hand-over unless someone
waits, consecutive writes of one user with the same options as one batch; a write leaves the journal once stored.
`flush()` waits for everything, `settle(user_id)` for one user's writes; `close()` flushes and stops the writer, as the
end of the process does. What a crash left journaled is written when a queue is next made for the same store: at least
once, a repeat merging into what it repeats.

A forget that races a queued write wins (`Hindsight.before_forget`): for one memory or a topic, the user's writes handed
over before it are stored first; for everything, those still waiting are dropped from the queue and the journal
(`TurnLog.fence`), the one being stored is waited for, and those handed over meanwhile are dropped (over a client, for
forgets made through it). A write refused as input is retried text by text; what is still refused is logged and listed
in `failures`. Any other error stops the writer: the writes stay journaled, `flush()` raises `StoreUnavailableError`,
and the next `submit` starts the writer again. A journal entry names each option by its field, so an older entry replays
with its default; `journal=None` keeps the queue in memory only.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import logging
import threading
import weakref
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from ..api import MemoryAPI
from ..errors import HindsightError, InvalidInputError, StoreUnavailableError
from ..events import Forgetting, Forgotten
from ..language.text import validate_id, validate_text
from ..types import Source
from ..contract.checks import check_batch
from ..contract.options import PER_TEXT, per_text
from .queue_journal import JOURNAL_NAME, QueueJournal
from .turns import TURN_FIELD, Turn, TurnLog, shared_options

logger = logging.getLogger("hindsight_core.session.write_queue")

__all__ = ["JOURNAL_NAME", "WriteFailure", "WriteQueue", "close_write_queue", "replay_journal", "write_queue"]

_DEFAULT = object()


@dataclass(frozen=True)
class WriteFailure:
    """A handed-over write that was not stored: which user, which text, and why."""

    user_id: str
    text: str
    error: str


class WriteQueue:
    """Writes handed to memory, journaled at once and stored in order by one writer thread (see the module rules).

    `journal`: the journal file (default: `memory.local_journal()`). Prefer `write_queue(memory)`, one queue per memory.
    """

    def __init__(self, memory: MemoryAPI, *, journal: str | Path | None | object = _DEFAULT,
                 sync: str = "normal", linger: float = 0.02) -> None:
        path = memory.local_journal() if journal is _DEFAULT else journal
        if path is not None and not isinstance(path, (str, Path)):
            raise InvalidInputError(f"journal must be a file path or None, got {type(path).__name__}")
        self._journal = QueueJournal(path, sync=sync)
        self.memory = memory
        self.sync = sync
        #: seconds the writer waits after a hand-over before it starts: the caller's thread finishes its turn
        #: without sharing the interpreter with the writer, and hand-overs arriving meanwhile share one batch
        self.linger = float(linger)
        self._waiting = 0  # callers in flush/settle: the writer does not linger for them
        self.journal: Path | None = self._journal.path
        #: whether a later process finds what this queue journaled (not so with a journal in memory)
        self.durable = self.journal is not None
        self.failures: list[WriteFailure] = []
        self._cond = threading.Condition()
        self._queue: list[tuple[int, dict[str, Any]]] = self._journal.pending()
        self._busy = False
        self._stopped: BaseException | None = None
        self._closing = False
        self._logs: dict[str, TurnLog] = {}
        self._inflight = 0  # entries at the front of the queue the writer is storing now
        self._start()
        atexit.register(_flush_at_exit, weakref.ref(self))
        memory.on_forget(self._forgotten)
        memory.before_forget(self._forgetting)

    def _start(self) -> None:
        self._stopped = None
        self._thread = threading.Thread(target=self._run, name="hindsight-writer", daemon=True)
        self._thread.start()

    # -- handing over -------------------------------------------------------------------------
    @property
    def pending(self) -> int:
        """Writes handed over and not yet stored (the one being written included)."""
        with self._cond:
            return len(self._queue)

    def submit(self, texts: Sequence[str], *, user_id: str, **options: Any) -> int:
        """Journal one `write_many` call (its arguments) and return at once; returns its place in the queue."""
        config = self.memory.config
        texts = check_batch(texts, config.limits.max_batch)
        for one in per_text(options, len(texts)):  # every option checked as the write will, before it is journaled
            one.checked(config)
        entry = {"kind": "write", "user_id": self._user(user_id), "texts": self._texts(texts),
                 "options": {k: (list(v) if k in PER_TEXT and v is not None else v) for k, v in options.items()}}
        return self._append(entry)

    def offer_turns(self, turns: Sequence[Turn], *, user_id: str, session_id: str | None = None,
                    log: TurnLog | None = None, **options: Any
                    ) -> tuple[int | None, list[tuple[Turn, InvalidInputError]]]:
        """Journal conversation turns for `TurnLog.offer` behind the caller: returns (the place in the queue or
        None, the turns refused at once with their error). `log` is the caller's `TurnLog`, so its record of what
        was offered is kept."""
        user = self._user(user_id)
        shared = {"session_id": session_id, **options}
        shared_options(shared).checked(self.memory.config)
        accepted, refused = [], []
        for turn in turns:
            try:
                validate_text(turn.text, max_bytes=self.memory.config.limits.max_text_bytes)
                accepted.append(turn)
            except InvalidInputError as exc:
                refused.append((turn, exc))
        if not accepted:
            return None, refused
        field = log.metadata_field if log is not None else TURN_FIELD
        if log is not None:
            self._logs.setdefault(field, log)
        entry = {"kind": "turns", "user_id": user, "texts": [t.text for t in accepted],
                 "sources": [t.source.value for t in accepted],
                 "times": [t.timestamp.isoformat() if t.timestamp is not None else None for t in accepted],
                 "field": field,
                 "options": shared}
        return self._append(entry), refused

    def _user(self, user_id: object) -> str:
        return validate_id(user_id, max_chars=self.memory.config.limits.max_id_chars)

    def _texts(self, texts: Sequence[str]) -> list[str]:
        max_bytes = self.memory.config.limits.max_text_bytes
        for text in texts:
            validate_text(text, max_bytes=max_bytes)
        return list(texts)

    def _append(self, entry: dict[str, Any]) -> int:
        data = self._journal.encode(entry)
        with self._cond:
            if self._closing:
                raise InvalidInputError("this write queue is closed")
            seq, journaled = self._journal.add(data)
            self._queue.append((seq, journaled))
            if self._stopped is not None and not self._thread.is_alive():
                self._start()  # try again, from the write that failed
            self._cond.notify_all()
        return seq

    # -- waiting ------------------------------------------------------------------------------
    def flush(self, timeout: float | None = None) -> None:
        """Wait until every write handed over so far is stored (or `timeout` seconds pass: `TimeoutError`)."""
        with self._cond, self._waited():
            if not self._cond.wait_for(lambda: self._stopped is not None or (not self._queue and not self._busy),
                                       timeout):
                raise TimeoutError(f"{len(self._queue)} writes still queued after {timeout} s")
            if self._stopped is not None:
                kept = ("stay journaled and are written when a queue is next made for this store" if self.durable
                        else "are kept in this process only (no later process reads this queue's journal): the "
                             "next hand-over tries them again, and they are lost if the process ends first")
                raise StoreUnavailableError(
                    f"the background writer stopped ({self._stopped}); {len(self._queue)} writes {kept}"
                ) from self._stopped

    @contextlib.contextmanager
    def _waited(self) -> Iterator[None]:
        """Mark a caller waiting for the writer (under the condition's lock): it starts without lingering."""
        self._waiting += 1
        self._cond.notify_all()
        try:
            yield
        finally:
            self._waiting -= 1

    def pending_for(self, user_id: str) -> int:
        """Writes of one user handed over and not yet stored."""
        with self._cond:
            return sum(entry["user_id"] == user_id for _, entry in self._queue)

    def settle(self, user_id: str, timeout: float | None = None) -> bool:
        """Wait until the writes handed over so far for one user are stored; False if the writer stopped or timed out."""
        with self._cond, self._waited():
            target = self._last_of(user_id)
            self._cond.wait_for(lambda: self._stopped is not None or self._settled(user_id, target), timeout)
            return self._settled(user_id, target)

    def _last_of(self, user: str) -> int:
        """The place of the user's last write in the queue (under the lock); 0 when none waits."""
        return max((seq for seq, entry in self._queue if entry["user_id"] == user), default=0)

    def _settled(self, user: str, target: int) -> bool:
        """Whether none of the user's writes up to `target` is still queued (under the lock): stored, or dropped
        by a forget of everything, so a wait never outlives what it waits for."""
        return not any(seq <= target and entry["user_id"] == user for seq, entry in self._queue)

    def close(self) -> None:
        """Flush, then stop the writer. What could not be written stays journaled (and is logged)."""
        with self._cond:
            if self._closing:
                return
        try:
            if self._thread.is_alive():
                self.flush()
        except StoreUnavailableError as exc:
            logger.error("hindsight: %s", exc)
        finally:
            with self._cond:
                self._closing = True
                self._cond.notify_all()
            self._thread.join()
            self._journal.close()

    # -- the writer ---------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            while self._step():
                pass
        except BaseException as exc:  # the store or the embedder failed: keep the writes journaled, say so
            logger.error("hindsight: the background writer stopped: %s", exc)
            with self._cond:
                self._stopped, self._busy, self._inflight = exc, False, 0
                self._cond.notify_all()

    def _step(self) -> bool:
        """Store the next batch; False once the queue closes. Whatever it raises stops the writer (`_run`)."""
        with self._cond:
            self._cond.wait_for(lambda: self._queue or self._closing)
            if self.linger > 0 and not self._waiting and not self._closing:
                self._cond.wait_for(lambda: self._waiting or self._closing, self.linger)
            if self._closing:
                return False
            if not self._queue:  # a forget of everything dropped what was handed over while the writer lingered
                return True
            batch = self._next_batch()
            self._busy, self._inflight = True, len(batch)
            self._cond.notify_all()
        self._write(batch)
        with self._cond:
            self._journal.remove([seq for seq, _ in batch])
            del self._queue[:len(batch)]
            self._busy, self._inflight = False, 0
            self._cond.notify_all()
        return True

    def _forgetting(self, event: Forgetting) -> None:
        """A forget of a user starts: settle their writes handed over so far (see the module rules)."""
        if threading.current_thread() is self._thread:  # a forget from within a write: nothing to wait for
            return
        if event.everything and not event.dry_run:
            self._drop(event.user_id)
        with self._cond, self._waited():
            target = self._last_of(event.user_id)
            self._cond.wait_for(lambda: self._stopped is not None or self._closing or not self._thread.is_alive()
                                or self._settled(event.user_id, target))

    def _forgotten(self, event: Forgotten) -> int:
        """A user forgot everything: their writes handed over during the forget are dropped, not stored after it."""
        if event.everything:
            self._drop(event.user_id)
        return 0  # nothing was stored, so nothing counts as removed

    def _drop(self, user: str) -> None:
        """Drop the user's writes still waiting (not the one being stored) from the queue and the journal."""
        with self._cond:
            dropped = [(seq, entry) for seq, entry in self._queue[self._inflight:] if entry["user_id"] == user]
            if not dropped:
                return
            self._journal.remove([seq for seq, _ in dropped], stored=False)
            gone = {seq for seq, _ in dropped}
            self._queue = [item for item in self._queue if item[0] not in gone]
            self._cond.notify_all()
        for _, entry in dropped:  # their turns were said before the forget: never offered, never a context
            log = self._logs.get(entry["field"]) if entry["kind"] == "turns" else None
            if log is not None:
                log.fence(self._turns_of(entry), user, entry["options"].get("session_id"))

    def _next_batch(self) -> list[tuple[int, dict[str, Any]]]:
        """The first entry and those after it that can share its `write_many` call."""
        first = self._queue[0][1]
        batch = [self._queue[0]]
        if first["kind"] != "write":
            return batch
        size, limit = len(first["texts"]), self.memory.config.limits.max_batch
        for seq, entry in self._queue[1:]:
            if not _joinable(first, entry) or size + len(entry["texts"]) > limit:
                break
            batch.append((seq, entry))
            size += len(entry["texts"])
        return batch

    def _write(self, batch: list[tuple[int, dict[str, Any]]]) -> None:
        first = batch[0][1]
        if first["kind"] == "turns":
            self._offer(first)
            return
        texts = [t for _, e in batch for t in e["texts"]]
        options: dict[str, Any] = dict(first["options"])
        for name in PER_TEXT:
            if options.get(name) is not None:
                options[name] = [v for _, e in batch for v in e["options"][name]]
        try:
            self.memory.write_many(texts, user_id=first["user_id"], **options)
        except InvalidInputError:  # one bad text fails the call: write them one by one to keep the rest
            for i, text in enumerate(texts):
                one: dict[str, Any] = {k: ([v[i]] if k in PER_TEXT and v is not None else v)
                                       for k, v in options.items()}
                try:
                    self.memory.write_many([text], user_id=first["user_id"], **one)
                except InvalidInputError as exc:
                    self._failed(first["user_id"], text, exc)

    def _offer(self, entry: dict[str, Any]) -> None:
        log = self._logs.get(entry["field"])
        if log is None:
            log = self._logs[entry["field"]] = TurnLog(self.memory, metadata_field=entry["field"])
        for item in log.offer(self._turns_of(entry), user_id=entry["user_id"], **entry["options"]):
            if item.error is not None:
                self._failed(entry["user_id"], item.turn.text, item.error)

    @staticmethod
    def _turns_of(entry: dict[str, Any]) -> list[Turn]:
        times = entry.get("times") or [None] * len(entry["texts"])
        return [Turn(text, Source(source), datetime.fromisoformat(at) if at else None)
                for text, source, at in zip(entry["texts"], entry["sources"], times)]

    def _failed(self, user: str, text: str, error: HindsightError) -> None:
        logger.warning("hindsight: a queued write was not stored: %s", error)
        with self._cond:
            self.failures.append(WriteFailure(user, text, str(error)))


def _joinable(first: Mapping[str, Any], entry: Mapping[str, Any]) -> bool:
    """Whether `entry` can join `first`'s call: same user, same options, per-text lists present in both or neither."""
    if entry["kind"] != "write" or entry["user_id"] != first["user_id"]:
        return False
    a, b = first["options"], entry["options"]
    if set(a) != set(b):
        return False
    return all((a[k] is None) == (b[k] is None) if k in PER_TEXT else a[k] == b[k] for k in a)


def _flush_at_exit(ref: "weakref.ref[WriteQueue]") -> None:
    queue = ref()
    if queue is not None and queue._thread.is_alive():
        queue.close()


_QUEUES: "weakref.WeakKeyDictionary[MemoryAPI, WriteQueue]" = weakref.WeakKeyDictionary()
_QUEUES_LOCK = threading.Lock()
_HOOKED: "weakref.WeakSet[MemoryAPI]" = weakref.WeakSet()


def write_queue(memory: MemoryAPI) -> WriteQueue:
    """The write queue of `memory` (made on first use, which writes what a crash left in its journal)."""
    with _QUEUES_LOCK:
        queue = _QUEUES.get(memory)
        if queue is None or queue._closing:
            queue = _QUEUES[memory] = WriteQueue(memory)
            if memory not in _HOOKED:  # `Hindsight.close` flushes the queue before closing the store
                memory.on_close(functools.partial(_close_by_ref, weakref.ref(memory)))
                _HOOKED.add(memory)
        return queue


def replay_journal(memory: MemoryAPI) -> int:
    """Store what an earlier process journaled and did not store; how many writes it found (0 without a journal).

    The CLI, the inspector and `hindsight serve` call it when they open a store. `StoreUnavailableError` if they could
    not be stored now (they stay journaled).
    """
    path = memory.local_journal() if memory.holds_store else None  # a client's journal is its adapters' to replay
    if path is None or not path.exists():
        return 0
    journal = QueueJournal(path)
    try:
        if not journal.pending():
            return 0  # nothing waits: no writer thread for a command that only reads
    finally:
        journal.close()
    queue = write_queue(memory)
    found = queue.pending
    queue.flush()
    return found


def _close_by_ref(ref: "weakref.ref[MemoryAPI]") -> None:
    memory = ref()
    if memory is not None:
        close_write_queue(memory)


def close_write_queue(memory: MemoryAPI) -> None:
    """Flush and stop `memory`'s queue, if it has one (`Hindsight.close` runs this first, through `on_close`)."""
    with _QUEUES_LOCK:
        queue = _QUEUES.pop(memory, None)
    if queue is not None:
        queue.close()
