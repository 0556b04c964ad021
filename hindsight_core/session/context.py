"""The context for one model call: long-term memories in the system prompt, plus the working-memory window.

    builder = ContextBuilder(hindsight, system_prompt="You are a helpful assistant.", context_limit=8192)
    context = builder.build(working)              # or: await builder.abuild(working)
    model.invoke(context.to_messages())           # [{"role": "system", ...}, *window]

Of the available tokens (context_limit − the answer reserve), the system prompt and the latest user message must fit
(else `ContextBudgetError`); the recalled memories take at most `long_term_share` (`fit_block`); the window gets the
rest. A recalled memory already in the window leaves the block, and the window is rebuilt with the tokens that freed.
Token counts use the working memory's tokenizer and add up exactly: total = system + long_term + working.
"""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable

from ..errors import ContextBudgetError, InvalidInputError, StoreUnavailableError
from ..language.tokens import Tokenizer, default_tokenizer
from ..recall.formatting import DEFAULT_CONTEXT_CHARS, DEFAULT_HEADER, admitted, format_for_prompt
from ..types import ScoredMemory
from ..working.window import ContextBudget, Window, WorkingMemory
from ..write.gate import asks_for_nothing

if TYPE_CHECKING:
    from ..api import MemoryAPI

logger = logging.getLogger("hindsight_core.session.context")


@dataclass(frozen=True)
class TokenReport:
    """Tokens each part of the context uses (`system`: the system prompt and its framing; `long_term`: the
    memories block; `working`: the window's messages), exact for the working memory's tokenizer."""

    system: int
    long_term: int
    working: int
    total: int
    available: int
    reserved: int
    context_limit: int

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class Context:
    """Everything for one model call, and what it cost."""

    system_prompt: str
    window: Window
    long_term: tuple[ScoredMemory, ...]
    tokens: TokenReport
    query: str | None
    #: recalled memories left out of the block because what a tool or an agent wrote reads as an order, with why
    withheld: tuple[tuple[ScoredMemory, str], ...] = ()

    @property
    def messages(self) -> list[dict[str, str]]:
        """The window's messages, chronological, as {"role", "content"} dicts."""
        return self.window.to_dicts()

    def to_messages(self) -> list[dict[str, str]]:
        """The system message (if any) followed by the window: ready for a chat API."""
        system = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        return system + self.messages


def _flat(text: str) -> str:
    return " ".join(text.split())


def fit(memories: list[ScoredMemory], cost: Callable[[list[ScoredMemory]], int], cap: int) -> list[ScoredMemory]:
    """The longest prefix of `memories` whose cost is within `cap` (the last ones go first)."""
    kept = list(memories)
    while kept and cost(kept) > cap:
        kept.pop()
    return kept


def context_widths(widest: int = DEFAULT_CONTEXT_CHARS) -> tuple[int, ...]:
    """The widths tried for the turns memories answer, widest first, down to 0 (none shown)."""
    return (widest, widest // 2, widest // 4, 0) if widest > 0 else (0,)


def fit_block(memories: list[ScoredMemory], cost: Callable[[list[ScoredMemory], int], int],
              cap: int | None) -> tuple[list[ScoredMemory], int]:
    """(the memories kept, in recall order, and the context width) whose block costs at most `cap` (None: no cap).

    The turns memories answer are shortened first, then left out; only then are the weakest memories dropped.
    """
    kept = list(memories)
    if cap is None:
        return kept, DEFAULT_CONTEXT_CHARS
    while kept:
        for width in context_widths():
            if cost(kept, width) <= cap:
                return kept, width
        kept.pop()
    return kept, 0


@dataclass(frozen=True)
class MemoryBlock:
    """Recalled memories rendered for a system prompt, and the tokens the text costs."""

    text: str
    memories: tuple[ScoredMemory, ...]
    tokens: int
    #: how much of the turn each memory answers the block shows (shortened to fit a budget)
    context_chars: int = DEFAULT_CONTEXT_CHARS
    #: recalled memories left out of the block because what a tool or an agent wrote reads as an order, with why
    withheld: tuple[tuple[ScoredMemory, str], ...] = ()


def memory_block(memory: "MemoryAPI", query: str, *, user_id: str, k: int = 5, max_tokens: int | None = None,
                 tokenizer: Tokenizer | None = None, header: str = DEFAULT_HEADER,
                 **recall_options: Any) -> MemoryBlock:
    """The top-`k` memories for `query` as a `format_for_prompt` block of at most `max_tokens` (see `fit_block`).

    A turn that asks for nothing (`gate.asks_for_nothing`) gets no block: recall never hides, so noise is kept out
    of the prompt here, by what the turn says. `recall_options` go to `recall`.
    """
    if asks_for_nothing(query):
        return MemoryBlock("", (), 0)
    found = memory.recall(query, user_id=user_id, k=k, **recall_options)
    return _rendered(found, max_tokens=max_tokens, tokenizer=tokenizer, header=header)


def _rendered(found: Iterable[ScoredMemory], *, max_tokens: int | None, tokenizer: Tokenizer | None,
              header: str) -> MemoryBlock:
    """Recall's results as a block of at most `max_tokens` (context shortened first, then the weakest dropped)."""
    count = (tokenizer or default_tokenizer()).count

    def cost(chosen: list[ScoredMemory], width: int) -> int:
        return count(format_for_prompt(chosen, header=header, context_chars=width))

    shown, withheld = admitted(found)
    memories, width = fit_block(shown, cost, max_tokens)
    text = format_for_prompt(memories, header=header, context_chars=width)
    return MemoryBlock(text, tuple(memories), count(text) if text else 0, width, tuple(withheld))


def shorten_block(block: MemoryBlock, tokens_to_free: int, *, tokenizer: Tokenizer | None = None,
                  header: str = DEFAULT_HEADER) -> MemoryBlock:
    """`block` shortened by `fit_block` (context first, then its weakest memories) to save `tokens_to_free` tokens.

    The first memory is always kept, even if it alone frees too little. A block with no memories comes back as is.
    """
    if isinstance(tokens_to_free, bool) or not isinstance(tokens_to_free, int):
        raise InvalidInputError(f"tokens_to_free must be an integer, got {tokens_to_free!r}")
    if not block.memories or tokens_to_free <= 0:
        return block
    count = (tokenizer or default_tokenizer()).count
    widest = min(block.context_chars, DEFAULT_CONTEXT_CHARS)
    kept, width = fit_block(list(block.memories),
                            lambda chosen, w: count(format_for_prompt(chosen, header=header,
                                                                      context_chars=min(w, widest))),
                            block.tokens - tokens_to_free)
    if not kept:
        kept, width = list(block.memories[:1]), 0
    width = min(width, widest)
    text = format_for_prompt(kept, header=header, context_chars=width)
    return MemoryBlock(text, tuple(kept), count(text), width, block.withheld)


async def amemory_block(memory: "MemoryAPI", query: str, *, user_id: str, k: int = 5, max_tokens: int | None = None,
                        tokenizer: Tokenizer | None = None, header: str = DEFAULT_HEADER,
                        **recall_options: Any) -> MemoryBlock:
    """Async twin of `memory_block`: awaits `Hindsight.arecall` (on the event loop for a `HindsightClient`)."""
    if asks_for_nothing(query):
        return MemoryBlock("", (), 0)
    found = await memory.arecall(query, user_id=user_id, k=k, **recall_options)
    return _rendered(found, max_tokens=max_tokens, tokenizer=tokenizer, header=header)


class StoreOutage:
    """The adapters' recall for a turn, which goes on without memories while the store cannot be reached.

    A `hindsight serve` that is down (`StoreUnavailableError`) must not fail the agent's turn: its block is empty, one
    warning is logged per outage, and the turn's writes stay journaled.
    """

    def __init__(self) -> None:
        self.down = False

    def block(self, memory: "MemoryAPI", query: str, **options: Any) -> MemoryBlock:
        """`memory_block(memory, query, **options)`, or an empty block while the store cannot be reached."""
        try:
            found = memory_block(memory, query, **options)
        except StoreUnavailableError as exc:
            return self._failed(exc)
        self.down = False
        return found

    async def ablock(self, memory: "MemoryAPI", query: str, **options: Any) -> MemoryBlock:
        """Async twin of `block`."""
        try:
            found = await amemory_block(memory, query, **options)
        except StoreUnavailableError as exc:
            return self._failed(exc)
        self.down = False
        return found

    def _failed(self, exc: StoreUnavailableError) -> MemoryBlock:
        if not self.down:
            logger.warning("hindsight: memory cannot be reached, so turns go on without recalled memories (what they "
                           "write is journaled and stored once it is back): %s", exc)
        self.down = True
        return MemoryBlock("", (), 0)


class ContextBuilder:
    """Builds the context for each model call from a `Hindsight` (optional) and a `WorkingMemory`.

    `memory`: the long-term store to recall from (None: working memory only). `context_limit` and `reserve_ratio`:
    the model's window and the share kept for its answer (default: the working memory's own). `k`: how many
    memories to recall; `long_term_share`: the most of the available tokens they may take.
    """

    def __init__(self, memory: "MemoryAPI | None" = None, *, system_prompt: str = "",
                 context_limit: int | None = None, reserve_ratio: float = 0.2, k: int = 5,
                 long_term_share: float = 0.3, reinforce: bool = True,
                 header: str = DEFAULT_HEADER) -> None:
        if not isinstance(system_prompt, str):
            raise InvalidInputError("system_prompt must be a str")
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise InvalidInputError("k must be an integer >= 0")
        if isinstance(long_term_share, bool) or not isinstance(long_term_share, (int, float)) or not (
                0 <= long_term_share <= 1):
            raise InvalidInputError("long_term_share must be within [0, 1]")
        self.memory = memory
        self.system_prompt = system_prompt.strip()
        self.budget = ContextBudget(context_limit, reserve_ratio) if context_limit is not None else None
        self.k = k
        self.long_term_share = float(long_term_share)
        self.reinforce = reinforce
        self.header = header

    def _recall(self, query: str | None, user_id: str | None) -> list[ScoredMemory]:
        if self.memory is None or query is None or self.k == 0:
            return []
        if user_id is None:
            raise InvalidInputError("long-term recall needs a user_id: give the WorkingMemory one, or pass user_id=")
        return list(self.memory.recall(query, user_id=user_id, k=self.k, reinforce=self.reinforce))

    def build(self, working: WorkingMemory, *, query: str | None = None, user_id: str | None = None) -> Context:
        """The system prompt (with recalled memories) and the window for the next model call; see the module doc."""
        budget = self.budget or working.budget
        available = budget.available
        count, overhead = working.tokenizer.count, working.message_overhead
        messages = working.messages()
        latest_user = next((m for m in reversed(messages) if m.role == "user"), None)
        query = query if query is not None else (latest_user.content if latest_user else None)

        base = self.system_prompt
        base_tokens = count(base) if base else 0

        def system_text(memories: list[ScoredMemory], width: int) -> str:
            block = format_for_prompt(memories, header=self.header, context_chars=width)
            return "\n\n".join(part for part in (base, block) if part)

        def long_term_tokens(memories: list[ScoredMemory], width: int) -> int:
            return count(system_text(memories, width)) - base_tokens

        framing = overhead if base else 0
        must = base_tokens + framing + (working.tokens_of(latest_user) if latest_user else 0)
        if must > available:
            raise ContextBudgetError(
                f"the system prompt and the latest user message need {must} tokens but {available} are available "
                f"(context limit {budget.context_limit}, {budget.reserved} reserved for the answer)")
        cap = min(math.floor(self.long_term_share * available), available - must)

        # the block brings the system message's framing along if there is no system prompt to carry it
        shown, withheld = admitted(self._recall(query, user_id or working.user_id))
        memories, width = fit_block(shown, lambda chosen, w: long_term_tokens(chosen, w) + (0 if base else overhead),
                                    cap)

        def spend(memories: list[ScoredMemory]) -> tuple[int, int]:
            lt = long_term_tokens(memories, width) if memories else 0
            system = base_tokens + (overhead if (base or memories) else 0)
            return system, lt

        system_tokens, lt_tokens = spend(memories)
        window = working.window(query, budget=available - system_tokens - lt_tokens)

        in_window = {_flat(m.content): m for m in window.messages}
        duplicates = [r for r in memories if _flat(r.memory.raw_content) in in_window]
        if duplicates:
            memories = [r for r in memories if r not in duplicates]
            system_tokens, lt_tokens = spend(memories)
            pin = [in_window[_flat(r.memory.raw_content)].id for r in duplicates]
            window = working.window(query, budget=available - system_tokens - lt_tokens, pin=pin)

        prompt = system_text(memories, width)
        report = TokenReport(system=system_tokens, long_term=lt_tokens, working=window.tokens,
                             total=system_tokens + lt_tokens + window.tokens, available=available,
                             reserved=budget.reserved, context_limit=budget.context_limit)
        return Context(prompt, window, tuple(memories), report, query, tuple(withheld))

    async def abuild(self, working: WorkingMemory, *, query: str | None = None, user_id: str | None = None) -> Context:
        return await asyncio.to_thread(self.build, working, query=query, user_id=user_id)

