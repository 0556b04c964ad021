"""`HindsightMiddleware`: long-term memory for a `langchain.agents.create_agent` agent.

    from langchain.agents import create_agent
    from hindsight_langchain import HindsightMiddleware

    agent = create_agent(model, tools, middleware=[HindsightMiddleware(memory)])
    agent.invoke({"messages": [...]}, context={"user_id": "alice"})

Before each model call the middleware recalls the memories most worth bringing
back for the latest user message and appends them, as a delimited block, to the
system prompt of *that request only*: the block never enters the message state,
so a checkpointer does not save it and the next turn recalls afresh. After the
agent finishes a turn, the user's message and the final answer are handed to
the core's write queue (`hindsight_core.session.write_queue`): journaled at once, then
put through the write gate and stored behind the agent, so the turn never waits
for the embedding. `flush()` waits until every handed-over turn is stored.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langgraph.config import get_config
from langgraph.runtime import Runtime
from langgraph.types import TracePolicy

from hindsight_core import InvalidInputError, MemoryAPI, Source
from hindsight_core.session.asking import asking_as
from hindsight_core.session.context import StoreOutage
from hindsight_core.session.turns import Turn, TurnLog
from hindsight_core.session.write_queue import write_queue

from ._context import ASKER
from ._convert import latest_user_text, resolve_user_id, thread_id, turn_texts, with_memory_block

logger = logging.getLogger("hindsight_langchain")


def _current_config() -> dict[str, Any]:
    """The RunnableConfig of the running graph node ({} outside one, or in async code on Python 3.10)."""
    try:
        return dict(get_config())
    except RuntimeError:
        return {}


class HindsightMiddleware(AgentMiddleware):
    """Agent middleware that recalls memories into the system prompt and writes each turn through the gate.

    Args:
        memory: the `Hindsight` instance to read and write.
        k: how many memories to put into the prompt (default 5).
        user_id: the user to use when a run names none. Each run's user id is read
            from the runtime context (`context={"user_id": ...}` or an object with a
            `user_id` attribute), then from `config["configurable"]["user_id"]` (or
            `langgraph_user_id`, as LangMem uses), then this default; with none of
            them the run fails with `InvalidUserIdError`.
        agent_id: recorded on every memory this agent writes.
        remember: write each finished turn through the gate (default True); False
            makes the middleware read-only.
        remember_answers: offer the agent's final answer to the gate too, as the
            agent's (default True); False offers only what the user said.
        trace_policy: a `langgraph.types.TracePolicy` for this middleware's own hook
            spans (off by default: traced as any middleware). With
            `TracePolicy(process_inputs=omit_payload, process_outputs=omit_payload)`
            the `wrap_model_call` span, whose request carries the recalled memories,
            and the `after_agent` span, which carries the turn written, record no
            payload in LangSmith. It does not hide the model call's own span: the
            prompt the model receives, memory block included, is traced there
            (hide it with the LangSmith client's `hide_inputs`).

    The LangGraph thread id, when there is one, is recorded as the memory's
    session id. Both `invoke` and `ainvoke` are supported.
    """

    def __init__(self, memory: MemoryAPI, *, k: int = 5, user_id: str | None = None, agent_id: str | None = None,
                 remember: bool = True, remember_answers: bool = True, trace_policy: TracePolicy | None = None
                 ) -> None:
        super().__init__()
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidInputError(f"k must be a positive integer, got {k!r}")
        self.memory = memory
        self.k = k
        self.user_id = user_id
        self.agent_id = agent_id
        self.remember = remember
        self.remember_answers = remember_answers
        self.trace_policy = trace_policy  # read by create_agent when it builds the hook spans (langchain >= 1.5)
        self._writes = write_queue(memory) if remember else None  # also stores what a crash left journaled
        self._turns = TurnLog(memory)  # the core's conversation policy: pairs, dates and de-duplicates turns
        self._recalls = StoreOutage()  # a server that is down: the turn goes on without memories

    def flush(self, timeout: float | None = None) -> None:
        """Wait until every turn handed to memory so far is stored."""
        if self._writes is not None:
            self._writes.flush(timeout)

    def _user(self, runtime: Runtime[Any] | None, config: dict[str, Any]) -> str:
        context = runtime.context if runtime is not None else None
        return resolve_user_id(context, config, self.user_id, who="HindsightMiddleware")

    def _recall_plan(self, request: ModelRequest) -> tuple[str, str] | None:
        """(query, user id) for this model call, or None when there is no user message to recall for."""
        query = latest_user_text(request.messages)
        if query is None:
            return None
        return query, self._user(request.runtime, _current_config())

    def _write_plan(self, state: AgentState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """The turn that just ended, for the core's conversation policy (`TurnLog`), or None if nothing to offer."""
        if not self.remember:
            return None
        turns = [Turn(text, source) for text, source in turn_texts(state.get("messages", []))
                 if self.remember_answers or source is Source.USER]
        if not turns:
            return None
        config = _current_config()
        return {"turns": turns, "user_id": self._user(runtime, config), "session_id": thread_id(config),
                "agent_id": self.agent_id}

    # -- before each model call -------------------------------------------------------------
    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        plan = self._recall_plan(request)
        if plan is None:
            return handler(request)
        query, user = plan
        if self._writes is not None:
            self._writes.settle(user)  # read this user's earlier turns (already stored unless the model was quicker)
        with asking_as(ASKER):
            block = self._recalls.block(self.memory, query, user_id=user, k=self.k).text
        return handler(request.override(system_message=with_memory_block(request.system_message, block)))

    async def awrap_model_call(self, request: ModelRequest,
                               handler: Callable[[ModelRequest], Awaitable[ModelResponse]]) -> Any:
        plan = self._recall_plan(request)
        if plan is None:
            return await handler(request)
        query, user = plan
        if self._writes is not None and self._writes.pending_for(user):
            await asyncio.to_thread(self._writes.settle, user)
        with asking_as(ASKER):
            block = (await self._recalls.ablock(self.memory, query, user_id=user, k=self.k)).text
        return await handler(request.override(system_message=with_memory_block(request.system_message, block)))

    # -- after the turn ---------------------------------------------------------------------
    def after_agent(self, state: AgentState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        plan = self._write_plan(state, runtime)
        if plan is not None and self._writes is not None:
            self._offer(plan)  # journaled; the gate, the embedding and the write happen behind
        return None

    async def aafter_agent(self, state: AgentState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        plan = self._write_plan(state, runtime)
        if plan is not None and self._writes is not None:
            self._offer(plan)  # one journal append: returns at once
        return None

    def _offer(self, plan: dict[str, Any]) -> None:
        assert self._writes is not None  # a plan is made only where turns are written
        _, refused = self._writes.offer_turns(log=self._turns, **plan)
        for turn, error in refused:  # one unstorable message must not break the conversation
            logger.warning("hindsight: a %s message was not stored: %s", turn.source.value, error)
