"""`WorkingMemory`: one session's messages, and the token-budgeted window built from them for each model call.

    wm = WorkingMemory("chat-42", user_id="alice", memory=hindsight, context_limit=8192)
    wm.append("user", "Confirmed: print the brochure at 300 dpi on A3 paper.")
    window = wm.window()            # query = the latest user message
    messages = window.to_dicts()    # chronological; window.explain() says why each message is in or out
    wm.end_session()                # offers the session to long-term memory (through the write gate), then drops it

The window takes messages from the highest priority (`working.priority`) down while they fit the budget, always keeps
the latest user message, and emits them in chronological order.
"""

from __future__ import annotations

import asyncio
import math
import threading
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np

from ..clock import Clock, read_clock, system_clock
from ..embed.embedder import Embedder, normalize_rows
from ..errors import ContextBudgetError, InvalidInputError
from ..language.text import validate_id, validate_text
from ..language.tokens import Tokenizer, default_tokenizer
from ..types import Source
from . import priority as prio
from .backends import InProcessBackend, WorkingBackend
from .forgetting import ForgetPurge, session_key
from .message import MESSAGE_OVERHEAD, Message, make_message

if TYPE_CHECKING:
    from ..contract.results import WriteResult
    from ..api import MemoryAPI

#: who wrote what, as told to the write gate when a session is handed to long-term memory
ROLE_SOURCES = {"user": Source.USER, "assistant": Source.AGENT, "tool": Source.TOOL, "system": Source.SYSTEM}


@dataclass(frozen=True)
class ContextBudget:
    """A model's context limit and the share of it kept free for the answer.

    reserved = ceil(context_limit · reserve_ratio); available = context_limit − reserved.
    """

    context_limit: int = 8192
    reserve_ratio: float = 0.2

    def __post_init__(self) -> None:
        if isinstance(self.context_limit, bool) or not isinstance(self.context_limit, int) or self.context_limit < 1:
            raise InvalidInputError(f"context_limit must be a positive integer, got {self.context_limit!r}")
        if isinstance(self.reserve_ratio, bool) or not isinstance(self.reserve_ratio, (int, float)) or not (
                0 <= self.reserve_ratio < 1):
            raise InvalidInputError(f"reserve_ratio must be within [0, 1), got {self.reserve_ratio!r}")

    @property
    def reserved(self) -> int:
        return math.ceil(self.context_limit * self.reserve_ratio)

    @property
    def available(self) -> int:
        return self.context_limit - self.reserved


@dataclass(frozen=True)
class _Scoring:
    """The window's per-message arrays; `Window.scores` turns them into `MessageScore`s when asked."""

    roles: tuple[str, ...]
    costs: tuple[int, ...]
    recency: np.ndarray
    relevance: np.ndarray
    density: tuple[prio.Density, ...]
    priority: np.ndarray
    kept: frozenset[int]
    pinned: frozenset[int]


@dataclass(frozen=True)
class Window:
    """The messages chosen for one model call (chronological), and the score of every session message."""

    messages: tuple[Message, ...]
    tokens: int
    budget: int
    query: str | None
    scoring: _Scoring = field(repr=False, compare=False)

    @cached_property
    def scores(self) -> tuple[prio.MessageScore, ...]:
        """Why each session message (chronological) is in the window or not."""
        s = self.scoring
        return tuple(
            prio.MessageScore(position=i, role=s.roles[i], tokens=s.costs[i], recency=float(s.recency[i]),
                              relevance=float(s.relevance[i]), density=s.density[i].score,
                              density_reasons=s.density[i].reasons, priority=float(s.priority[i]),
                              kept=i in s.kept, pinned=i in s.pinned)
            for i in range(len(s.roles)))

    def to_dicts(self) -> list[dict[str, str]]:
        return [m.to_dict() for m in self.messages]

    @property
    def dropped(self) -> tuple[prio.MessageScore, ...]:
        return tuple(s for s in self.scores if not s.kept)

    def explain(self) -> str:
        """One line per session message: its priority, the parts of it, and whether it made the window."""
        head = f"window: {len(self.messages)}/{len(self.scores)} messages, {self.tokens}/{self.budget} tokens"
        return "\n".join([head, *map(str, self.scores)])


def _check_budget(budget: object) -> int:
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise InvalidInputError(f"budget must be an integer >= 0, got {budget!r}")
    return budget


class WorkingMemory:
    """One session's working memory: its messages, and a token-budgeted window for the next model call.

    `session_id` (and `user_id`, needed to hand the session to long-term memory) name the session; two objects with
    the same ids and a shared backend (e.g. `RedisBackend`) see the same messages. `memory`: the `Hindsight` whose
    embedder, clock and store `end_session()` uses. `embedder`: for relevance (default: the memory's, else the
    library's default). `tokenizer`: anything with `count(text) -> int` (default cl100k_base); each message costs
    its content's tokens plus `message_overhead`. `context_limit` and `reserve_ratio`: see `ContextBudget`.
    """

    def __init__(self, session_id: str, *, user_id: str | None = None, memory: MemoryAPI | None = None,
                 backend: WorkingBackend | None = None, embedder: Embedder | None = None,
                 tokenizer: Tokenizer | None = None, clock: Clock | None = None,
                 priority: prio.PriorityConfig | None = None, context_limit: int = 8192,
                 reserve_ratio: float = 0.2, message_overhead: int = MESSAGE_OVERHEAD,
                 max_message_bytes: int = 32 * 1024) -> None:
        self.session_id = validate_id(session_id, what="session_id")
        self.user_id = validate_id(user_id, what="user_id", required=False)
        self.memory = memory
        self.backend: WorkingBackend = backend if backend is not None else InProcessBackend()
        if memory is not None:  # so that forgetting in long-term memory reaches this session's copies too
            memory.on_forget(ForgetPurge(self.backend))
        # relevance on the embedded memory's own model when it runs in this process (a client has none here)
        self._embedder = embedder if embedder is not None else getattr(memory, "embedder", None)
        self.tokenizer: Tokenizer = tokenizer if tokenizer is not None else default_tokenizer()
        self.clock: Clock = clock or (memory.now if memory is not None else system_clock)
        self.priority = priority or prio.PriorityConfig()
        self.budget = ContextBudget(context_limit, reserve_ratio)
        if isinstance(message_overhead, bool) or not isinstance(message_overhead, int) or message_overhead < 0:
            raise InvalidInputError("message_overhead must be an integer >= 0")
        self.message_overhead = message_overhead
        self.max_message_bytes = max_message_bytes
        self.key = session_key(self.user_id, self.session_id)
        self._lock = threading.Lock()
        self._parsed: dict[str, Message] = {}
        self._features: dict[str, tuple[int, prio.Density, float]] = {}
        self._vectors: dict[str, np.ndarray] = {}
        self._query_vector: tuple[str, np.ndarray] | None = None  # the builder asks twice with the same query

    # -- messages ---------------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:  # the library's default embedder, as Hindsight's
            from ..embed.embedder import DEFAULT_MODEL, embedder_named

            self._embedder = embedder_named(DEFAULT_MODEL)
        return self._embedder

    def _make(self, role: object, content: str, timestamp: datetime | None,
              metadata: Mapping[str, Any] | None) -> Message:
        clean = validate_text(content, max_bytes=self.max_message_bytes, what="message content")
        return make_message(role, clean, timestamp if timestamp is not None else read_clock(self.clock), metadata)

    def append(self, role: str, content: str, *, timestamp: datetime | None = None,
               metadata: Mapping[str, Any] | None = None) -> Message:
        """Add one message (role: user, assistant, system or tool) at the end of the session."""
        message = self._make(role, content, timestamp, metadata)
        self.backend.append(self.key, [message.to_json()])
        return message

    def extend(self, messages: Iterable[Mapping[str, Any]]) -> list[Message]:
        """Add several messages in one atomic append: dicts with role, content and optional timestamp, metadata."""
        made = []
        for item in messages:
            if not isinstance(item, Mapping) or "role" not in item or "content" not in item:
                raise InvalidInputError("each message must be a mapping with 'role' and 'content'")
            made.append(self._make(item["role"], item["content"], item.get("timestamp"), item.get("metadata")))
        if made:
            self.backend.append(self.key, [m.to_json() for m in made])
        return made

    def messages(self) -> list[Message]:
        """The session's messages, oldest first."""
        raws = self.backend.read(self.key)
        with self._lock:
            parsed = {raw: self._parsed.get(raw) or Message.from_json(raw) for raw in raws}
            self._parsed = parsed  # also drops what expired or was handed over
            return [parsed[raw] for raw in raws]

    def __len__(self) -> int:
        return len(self.backend.read(self.key))

    def tokens_of(self, message: Message) -> int:
        """What one message costs in the prompt: its content's tokens plus the per-message overhead."""
        return self._features_of(message)[0]

    def _features_of(self, message: Message) -> tuple[int, prio.Density, float]:
        """(token cost, density, POSIX timestamp) of a message, computed once."""
        features = self._features.get(message.id)
        if features is None:
            features = (self.tokenizer.count(message.content) + self.message_overhead, prio.density(message.content),
                        message.timestamp.timestamp())
            self._features[message.id] = features
        return features

    def _relevance(self, messages: Sequence[Message], query: str | None) -> np.ndarray:
        if query is None or not messages or self.priority.relevance_weight == 0:
            return np.zeros(len(messages))
        missing = [m for m in messages if m.id not in self._vectors]
        cached = self._query_vector[1] if self._query_vector and self._query_vector[0] == query else None
        texts = [m.content for m in missing] + ([query] if cached is None else [])
        vectors = normalize_rows(self.embedder.embed(texts)) if texts else np.zeros((0, 1), dtype=np.float32)
        for message, vector in zip(missing, vectors):
            self._vectors[message.id] = vector
        query_vector = cached if cached is not None else vectors[-1]
        self._query_vector = (query, query_vector)
        baseline = float(getattr(self.embedder, "similarity_baseline", 0.0) or 0.0)
        return prio.relevance(query_vector, np.stack([self._vectors[m.id] for m in messages]), baseline)

    # -- the window -------------------------------------------------------------------------
    def window(self, query: str | None = None, *, budget: int | None = None, pin: Iterable[str] = ()) -> Window:
        """The messages for the next model call, within `budget` tokens (default: `self.budget.available`).

        `query` is what relevance is measured against (default: the latest user message). The latest user message
        and the messages whose ids are in `pin` are always kept; `ContextBudgetError` if those alone do not fit.
        """
        limit = self.budget.available if budget is None else _check_budget(budget)
        if query is not None:
            query = validate_text(query, max_bytes=self.max_message_bytes, what="query")
        messages = self.messages()
        pinned = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "user"), None)
        if query is None and pinned is not None:
            query = messages[pinned].content
        now = read_clock(self.clock)
        with self._lock:
            live = {m.id for m in messages}
            self._features = {k: v for k, v in self._features.items() if k in live}
            self._vectors = {k: v for k, v in self._vectors.items() if k in live}
            features = [self._features_of(m) for m in messages]
            relevance = self._relevance(messages, query)
        costs = [tokens for tokens, _, _ in features]
        if isinstance(pin, str):
            raise InvalidInputError("pin takes a list of message ids, not one string")
        wanted = set(pin)
        must = {i for i, m in enumerate(messages) if m.id in wanted} | ({pinned} if pinned is not None else set())
        if sum(costs[i] for i in must) > limit:
            raise ContextBudgetError(
                f"the latest user message (and pinned messages) cost {sum(costs[i] for i in must)} tokens but the "
                f"budget is {limit}; raise context_limit, lower reserve_ratio, or shorten the message")
        n = len(messages)
        now_s = now.timestamp()
        recency = prio.recency(np.arange(n - 1, -1, -1), np.array([now_s - ts for _, _, ts in features]),
                               self.priority) * np.ones(n)  # a scalar when both half-lives are off
        densities = tuple(dens for _, dens, _ in features)
        priorities = prio.priority(recency, relevance, np.array([d.score for d in densities]), self.priority)
        keep = prio.select_within_budget(costs, priorities.tolist(), limit, pinned=sorted(must))
        scoring = _Scoring(tuple(m.role for m in messages), tuple(costs), recency, relevance, densities, priorities,
                           frozenset(keep), frozenset(must))
        return Window(tuple(messages[i] for i in keep), sum(costs[i] for i in keep), limit, query, scoring)

    # -- the end of a session ---------------------------------------------------------------
    def end_session(self, *, memory: MemoryAPI | None = None, hand_off: bool = True,
                    roles: Sequence[str] = ("user", "assistant", "tool")) -> list["WriteResult"]:
        """Offer the session's messages (of `roles`) to long-term memory through its write gate, then drop them.

        Each message keeps its timestamp and is attributed by role. Messages appended by another process meanwhile
        stay; if a write fails, nothing is dropped. `hand_off=False` only drops. One `WriteResult` per message offered.
        """
        raws = self.backend.read(self.key)
        results: list[WriteResult] = []
        if hand_off:
            target = memory if memory is not None else self.memory
            if target is None:
                raise InvalidInputError("end_session needs a Hindsight: pass memory=..., or hand_off=False to drop")
            if self.user_id is None:
                raise InvalidInputError("this WorkingMemory has no user_id; give one to hand the session over")
            offered = [m for m in (Message.from_json(raw) for raw in raws) if m.role in roles]
            batch = target.config.limits.max_batch
            for start in range(0, len(offered), batch):
                chunk = offered[start:start + batch]
                results.extend(target.write_many(
                    [m.content for m in chunk], user_id=self.user_id, session_id=self.session_id,
                    timestamps=[m.timestamp for m in chunk], sources=[ROLE_SOURCES[m.role] for m in chunk]))
        self.backend.drop_first(self.key, len(raws))
        return results

    def clear(self) -> None:
        """Drop the session without handing anything to long-term memory."""
        self.backend.clear(self.key)

    # -- async twins ------------------------------------------------------------------------
    async def aappend(self, role: str, content: str, **kwargs: Any) -> Message:
        return await asyncio.to_thread(self.append, role, content, **kwargs)

    async def aextend(self, messages: Iterable[Mapping[str, Any]]) -> list[Message]:
        return await asyncio.to_thread(self.extend, list(messages))

    async def amessages(self) -> list[Message]:
        return await asyncio.to_thread(self.messages)

    async def awindow(self, query: str | None = None, *, budget: int | None = None, pin: Iterable[str] = ()) -> Window:
        return await asyncio.to_thread(self.window, query, budget=budget, pin=tuple(pin))

    async def aend_session(self, **kwargs: Any) -> list["WriteResult"]:
        return await asyncio.to_thread(self.end_session, **kwargs)

    async def aclear(self) -> None:
        await asyncio.to_thread(self.clear)
