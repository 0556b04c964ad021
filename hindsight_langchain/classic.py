"""`HindsightMemory`: hindsight for legacy chains, as a `langchain_classic` `BaseMemory`.

LangChain 1.x dropped `BaseMemory` from `langchain_core`; it lives on, deprecated,
in `langchain-classic`. Install it with `pip install "hindsight-memory[classic]"`.
New code should use `HindsightMiddleware` with `create_agent` instead.
"""

from __future__ import annotations

import asyncio
from typing import Any

try:
    from langchain_classic.base_memory import BaseMemory
    from langchain_classic.memory.utils import get_prompt_input_key
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("HindsightMemory needs langchain-classic: pip install 'hindsight-memory[classic]'") from exc
from pydantic import Field

from hindsight_core import InvalidInputError, MemoryAPI, Source

from ._context import amemory_block, memory_block


class HindsightMemory(BaseMemory):
    """Long-term memory for a legacy chain: recalled memories in, each turn written through the gate.

    `load_memory_variables` returns `{memory_key: block}`, the delimited block of
    the `k` memories most worth recalling for the chain's input (an empty string
    when there are none), ready to drop into a prompt. `save_context` offers the
    input (as the user's) and the output (as the agent's) to the write gate.

    `clear()` does nothing: a chain calls it to reset a conversation, which must
    not wipe a user's long-term memory; use `Hindsight.forget` for that.
    """

    memory: MemoryAPI = Field(exclude=True)
    user_id: str
    k: int = 5
    memory_key: str = "memories"
    input_key: str | None = None
    output_key: str | None = None
    session_id: str | None = None
    agent_id: str | None = None

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    def _input(self, inputs: dict[str, Any]) -> str:
        key = self.input_key or get_prompt_input_key(inputs, self.memory_variables)
        return str(inputs[key])

    def _output(self, outputs: dict[str, Any]) -> str:
        if self.output_key is not None:
            return str(outputs[self.output_key])
        if len(outputs) == 1:
            return str(next(iter(outputs.values())))
        if "output" in outputs:
            return str(outputs["output"])
        raise InvalidInputError(f"outputs have several keys {sorted(outputs)}; set output_key to the answer's key")

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, str]:
        query = self._input(inputs)
        if not query.strip():
            return {self.memory_key: ""}
        return {self.memory_key: memory_block(self.memory, query, user_id=self.user_id, k=self.k)}

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, str]:
        query = self._input(inputs)
        if not query.strip():
            return {self.memory_key: ""}
        return {self.memory_key: await amemory_block(self.memory, query, user_id=self.user_id, k=self.k)}

    def _turn(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> dict[str, Any]:
        texts = [(self._input(inputs), Source.USER), (self._output(outputs), Source.AGENT)]
        texts = [(text, source) for text, source in texts if text.strip()]
        return {"texts": [t for t, _ in texts], "sources": [s for _, s in texts], "user_id": self.user_id,
                "session_id": self.session_id, "agent_id": self.agent_id}

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        self.memory.write_many(**self._turn(inputs, outputs))

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        await asyncio.to_thread(self.memory.write_many, **self._turn(inputs, outputs))

    def clear(self) -> None:
        """Nothing to clear: long-term memory outlives a chain's conversation."""

    async def aclear(self) -> None:
        """Nothing to clear: long-term memory outlives a chain's conversation."""
