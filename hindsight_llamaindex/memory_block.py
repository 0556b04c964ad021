"""`HindsightMemoryBlock`: long-term memory as a block of LlamaIndex's `Memory`.

    from hindsight_core import Hindsight
    from hindsight_llamaindex import hindsight_memory

    memory = hindsight_memory(user_id="alice", memory=Hindsight(path="./memories"))
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory)

Where turns are written. LlamaIndex hands a block messages through `_aput`
only when they are flushed out of the short-term FIFO, which in a short
session is never. But every chat engine and agent reads the memory before each
LLM call, and `Memory` then calls the block's `_aget` with the whole active
history. So the block writes from `_aget`: first it recalls for the latest user
message, then it offers every user message (source "user") and assistant
message (source "agent") it has not offered before to the core's write gate.
Recall comes first so that a turn is never recalled into its own prompt. A
user message is therefore offered before the model answers it, and an
assistant reply at the next read (the next turn; for agents, the read that
follows each run). `_aput` offers flushed messages the same way.

A chat that is only written (`put`/`aput`, never read) would reach the block
only once its messages left the short-term history, which in a short chat is
never. So `hindsight_memory` returns a `HindsightChatMemory`: a `Memory` that
hands the turns it is put to the core's `AwaitingAnswer` (`session.turns`: a
turn waits for the agent's answer, so it is never recalled into its own
prompt) and offers those answered. A read offers the waiting ones too (recall
first); `HindsightChatMemory.flush()` offers them, and waits until every
offered turn is stored.

The turns are handed to the core's write queue (`hindsight_core.session.write_queue`):
journaled at once, then offered behind the conversation, so a turn never waits
for the embedding; `flush()` waits until they are stored.

De-duplication is the core's `TurnLog` (`hindsight_core.session.turns`): each user or
assistant message is offered at most once per user and session, and a chat
history reloaded by LlamaIndex's chat store after a restart is not written
twice. Shortening the block when the prompt is over its limit is the core's
`shorten_block`. The block itself only translates messages to turns and the
core's block to text.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from typing import Any, List, Optional

from llama_index.core.async_utils import asyncio_run
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.memory import BaseMemoryBlock, Memory

from hindsight_core import InvalidInputError, MemoryAPI
from hindsight_core.language.text import validate_id
from hindsight_core.session.asking import asking_as
from hindsight_core.session.context import MemoryBlock, StoreOutage, shorten_block
from hindsight_core.session.turns import AwaitingAnswer, Turn, TurnLog
from hindsight_core.session.write_queue import WriteQueue, write_queue

from ._convert import TURN_FIELD, latest_user_text, turns_from_messages
from ._validate import ASKER, check_k, check_memory

logger = logging.getLogger("hindsight_llamaindex")

_RENDERED_KEPT = 16  # recent blocks remembered so `atruncate` can re-render them with fewer memories


class HindsightMemoryBlock(BaseMemoryBlock[str]):
    """Recalls a user's long-term memories into the system message and stores their turns.

    Args:
        memory: the `Hindsight` instance to read from and write to.
        user_id: whose memories these are. If None, the `Memory`'s session id is
            used as the user id (then memories only carry over between
            Memories that share that session id).
        session_id: recorded on stored turns; defaults to the `Memory`'s session id.
        agent_id: recorded on stored turns.
        k: how many memories to show per turn (default 5).
        write_turns: offer user and assistant messages to the write gate (default True).
        name, priority: as for any block. Priority is 1 by default so that, when
            the prompt is over its token limit, `Memory` asks this block to shorten
            itself (it drops its weakest memories) rather than never touching it.
    """

    name: str = Field(default="long_term_memory", description="The name of the memory block.")
    priority: int = Field(default=1, description="Truncation priority (0 = never truncate).")
    memory: MemoryAPI = Field(description="The hindsight memory to recall from and write to.", exclude=True)
    user_id: Optional[str] = Field(default=None, description="User id; None uses the Memory's session id.")
    session_id: Optional[str] = Field(default=None, description="Session id; None uses the Memory's session id.")
    agent_id: Optional[str] = Field(default=None, description="Agent id recorded on stored turns.")
    k: int = Field(default=5, description="Memories shown per turn.")
    write_turns: bool = Field(default=True, description="Offer each user and assistant message to the write gate.")

    _turns: TurnLog = PrivateAttr()
    _writes: WriteQueue = PrivateAttr()
    _rendered: OrderedDict[str, Any] = PrivateAttr(default_factory=OrderedDict)
    _recalls: StoreOutage = PrivateAttr(default_factory=StoreOutage)  # a server that is down: no memories this turn

    def __init__(self, *, memory: MemoryAPI, user_id: str | None = None, session_id: str | None = None,
                 agent_id: str | None = None, k: int = 5, **fields: Any) -> None:
        check_k(check_memory(memory), k)
        for what, value in (("user_id", user_id), ("session_id", session_id), ("agent_id", agent_id)):
            validate_id(value, what=what, required=False)
        super().__init__(memory=memory, user_id=user_id, session_id=session_id, agent_id=agent_id, k=k, **fields)
        self._turns = TurnLog(memory, metadata_field=TURN_FIELD)
        self._writes = write_queue(memory)  # also stores what a crash left journaled

    def flush(self, timeout: float | None = None) -> None:
        """Wait until every turn handed to memory so far is stored."""
        self._writes.flush(timeout)

    # -- ids ------------------------------------------------------------------------------
    def _ids(self, memory_session_id: str | None) -> tuple[str, str | None]:
        session = self.session_id or memory_session_id
        user = self.user_id or session
        if user is None:
            raise InvalidInputError(
                "HindsightMemoryBlock needs a user id: pass user_id=..., or use it inside a Memory "
                "(whose session id then stands in for the user)")
        return user, session

    # -- reading --------------------------------------------------------------------------
    async def _aget(self, messages: Optional[List[ChatMessage]] = None, session_id: Optional[str] = None,
                    **block_kwargs: Any) -> str:
        """Recall for the latest user message, then offer the turns not offered yet."""
        messages = list(messages or [])
        user, session = self._ids(session_id)
        context = None
        query = latest_user_text(messages)
        if query is not None:
            context = await self._recall(query, user)
        if self.write_turns:
            await self._offer(messages, user, session)
        return context.text if context is not None else ""

    async def _recall(self, query: str, user: str) -> MemoryBlock | None:
        if self._writes.pending_for(user):  # read this user's earlier turns (stored unless the model was quicker)
            await asyncio.to_thread(self._writes.settle, user)
        try:
            with asking_as(ASKER):
                context = await self._recalls.ablock(self.memory, query, user_id=user, k=self.k)
        except InvalidInputError as exc:  # e.g. a pasted text over the size limit: answer without memories
            logger.warning("hindsight: no recall for this message: %s", exc)
            return None
        if context.text:
            self._rendered[context.text] = context
            while len(self._rendered) > _RENDERED_KEPT:
                self._rendered.popitem(last=False)
        return context

    async def atruncate(self, content: str, tokens_to_truncate: int) -> Optional[str]:
        """Drop the weakest memories until enough tokens are freed; the best one is kept."""
        block = self._rendered.get(content)
        if block is None or not block.memories:  # not text this block rendered recently: LlamaIndex's default
            return None
        return shorten_block(block, tokens_to_truncate).text

    # -- writing --------------------------------------------------------------------------
    async def _aput(self, messages: List[ChatMessage]) -> None:
        """Offer messages flushed out of the short-term FIFO (usually offered already by `_aget`)."""
        if not self.write_turns or not messages:
            return
        flushed_session = next((m.additional_kwargs.get("session_id") for m in messages
                                if m.additional_kwargs.get("session_id")), None)
        user, session = self._ids(flushed_session)
        await self._offer(messages, user, session)

    async def _offer(self, messages: List[ChatMessage], user: str, session: str | None) -> None:
        self._offer_turns(turns_from_messages(messages), user, session)

    def _offer_turns(self, turns: list[Turn], user: str, session: str | None) -> None:
        _, refused = self._writes.offer_turns(turns, user_id=user, session_id=session,
                                              agent_id=self.agent_id, log=self._turns)  # journaled; written behind
        for turn, error in refused:  # one unstorable message must not break the conversation
            logger.warning("hindsight: a %s message was not stored: %s", turn.source.value, error)


class HindsightChatMemory(Memory):
    """LlamaIndex's `Memory`, whose puts reach its hindsight blocks even in a chat that is never read.

    `put`, `aput`, `put_messages` and `aput_messages` store the messages as `Memory` does; their turns
    are offered to each `HindsightMemoryBlock` once answered (the core's `AwaitingAnswer`; the core's
    `TurnLog` offers each message once, whether it arrives here, at a read or when flushed out of the
    short-term history).

    `close()` (or `await aclose()`) closes the chat store it opened: LlamaIndex keeps the short-term history in
    SQLite through aiosqlite, one connection and one worker thread per memory, which stay open until closed.
    A chat store passed in (`chat_store=`, `async_engine=`) is its owner's to close.
    """

    _held: AwaitingAnswer = PrivateAttr(default_factory=AwaitingAnswer)
    _owns_store: bool = PrivateAttr(default=True)

    async def aput(self, message: ChatMessage) -> None:
        await super().aput(message)
        await self._offer_answered([message])

    async def aput_messages(self, messages: List[ChatMessage]) -> None:
        await super().aput_messages(messages)
        await self._offer_answered(list(messages))

    def flush(self, timeout: float | None = None) -> None:
        """Offer the turns still waiting for an answer too, then wait until everything offered is stored."""
        self._offer_to_blocks(self._held.release())
        for block in self._hindsight_blocks():
            block.flush(timeout)

    async def _offer_answered(self, messages: list[ChatMessage]) -> None:
        self._offer_to_blocks(self._held.add(turns_from_messages(messages)))

    def _offer_to_blocks(self, turns: list[Turn]) -> None:
        for block in self._hindsight_blocks():
            if block.write_turns and turns:
                user, session = block._ids(self.session_id)
                block._offer_turns(turns, user, session)  # one journal append: returns at once

    def _hindsight_blocks(self) -> list[HindsightMemoryBlock]:
        return [block for block in self.memory_blocks if isinstance(block, HindsightMemoryBlock)]

    async def aclose(self) -> None:
        """Close the SQLite connection (and its thread) of the chat store this memory opened; idempotent."""
        engine = getattr(self.sql_store, "_async_engine", None) if self._owns_store else None
        if engine is not None:
            await engine.dispose()

    def close(self) -> None:
        """`aclose` for synchronous code (sync chat engines, scripts)."""
        asyncio_run(self.aclose())


def hindsight_memory(*, user_id: str, memory: MemoryAPI, session_id: str | None = None, k: int = 5,
                     agent_id: str | None = None, memory_blocks: list[BaseMemoryBlock[Any]] | None = None,
                     **memory_options: Any) -> HindsightChatMemory:
    """A LlamaIndex `Memory` with a `HindsightMemoryBlock` installed, ready for any chat engine or agent.

    It is a `HindsightChatMemory`, so a chat that is only written (`put`, never read) is stored too; `close()` it
    (or `await aclose()`) when the session ends, to close its short-term history's SQLite connection and thread.

    `memory_blocks` are added after the hindsight block; other keyword arguments
    (`token_limit`, `chat_store`, `insert_method`, ...) go to `Memory.from_defaults`.
    """
    validate_id(user_id)  # required here: a user id is what carries memories across sessions
    validate_id(session_id, what="session_id", required=False)
    block = HindsightMemoryBlock(memory=memory, user_id=user_id, k=k, agent_id=agent_id)
    chat_memory = HindsightChatMemory.from_defaults(session_id=session_id,
                                                    memory_blocks=[block, *(memory_blocks or [])], **memory_options)
    assert isinstance(chat_memory, HindsightChatMemory)  # `Memory.from_defaults` builds `cls`
    chat_memory._owns_store = not ({"chat_store", "async_engine"} & set(memory_options))
    return chat_memory
