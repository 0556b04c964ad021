"""`HindsightToolSpec`: memory search and save tools for LlamaIndex agents, bound to one user."""

# no `from __future__ import annotations`: LlamaIndex reads the Annotated descriptions at run time
import inspect
from typing import Annotated, List, Literal, Optional

from llama_index.core.tools.tool_spec.base import SPEC_FUNCTION_TYPE, BaseToolSpec
from llama_index.core.tools.types import ToolMetadata
from llama_index.core.tools.utils import create_schema_from_function

from hindsight_core import InvalidInputError, MemoryAPI, RecallResults, Source, format_for_prompt
from hindsight_core.language.text import validate_id
from hindsight_core.session.choices import TIME_RANGE_DESCRIPTION, TIME_RANGES, time_range_spec
from hindsight_core.session.outcome import describe

from ._validate import check_k, check_memory

NOTHING_FOUND = "No memories match that."

LookingFor = Annotated[str, "What to look for, in your own words: a topic, a question or a few keywords."]
HowMany = Annotated[int, "How many memories to return, best first (at least 1; 5 is usually enough)."]
TimeRange = Annotated[Optional[Literal[TIME_RANGES]], TIME_RANGE_DESCRIPTION]  # type: ignore[valid-type]
WhatToRemember = Annotated[str, (
    "The fact, preference or result to remember, as one self-contained sentence in the user's own voice "
    "(e.g. 'I prefer my reports in A4 landscape.').")]


class HindsightToolSpec(BaseToolSpec):
    """Tools that let an agent search and add to one user's long-term memory.

        tools = HindsightToolSpec(memory, user_id="alice").to_tool_list()
        agent = FunctionAgent(tools=tools, llm=llm)

    The user id is fixed when the spec is built and is not a tool parameter, so a
    model can never read or write another user's memories. Nor is the source: saved
    text goes through the write gate like any other write, always as the agent's.
    The time-range choices and the answer to a save are the core's
    (`hindsight_core.session.choices`, `hindsight_core.session.outcome`), as in the other interfaces.
    """

    spec_functions: List[SPEC_FUNCTION_TYPE] = [("search_memory", "asearch_memory"), ("save_memory", "asave_memory")]

    def __init__(self, memory: MemoryAPI, *, user_id: str, session_id: str | None = None,
                 agent_id: str | None = None, max_results: int = 20) -> None:
        self._memory = check_memory(memory)
        self._user_id = validate_id(user_id)
        self._session_id = validate_id(session_id, what="session_id", required=False)
        self._agent_id = validate_id(agent_id, what="agent_id", required=False)
        self._max_results = check_k(memory, max_results, what="max_results")

    def get_metadata_from_fn_name(self, fn_name: str,
                                  spec_functions: Optional[List[SPEC_FUNCTION_TYPE]] = None) -> ToolMetadata:
        """The tool's name, its docstring as the description, and a schema from the annotations."""
        func = getattr(self, fn_name)
        return ToolMetadata(name=fn_name, description=inspect.cleandoc(func.__doc__ or ""),
                            fn_schema=create_schema_from_function(fn_name, func))

    # -- search ---------------------------------------------------------------------------
    def search_memory(self, what_am_i_looking_for: LookingFor, how_many_results: HowMany = 5,
                      time_range: TimeRange = None) -> str:
        """Search what you remember about this user from earlier conversations: their preferences,
        corrections, personal facts, past events and results. Use it before answering anything that
        may depend on what the user told you before. Returns one memory per line with its date and kind."""
        results = self._memory.recall(what_am_i_looking_for, user_id=self._user_id,
                                      k=self._how_many(how_many_results), time_range=time_range_spec(time_range))
        return self._render(results)

    async def asearch_memory(self, what_am_i_looking_for: LookingFor, how_many_results: HowMany = 5,
                             time_range: TimeRange = None) -> str:
        results = await self._memory.arecall(what_am_i_looking_for, user_id=self._user_id,
                                             k=self._how_many(how_many_results), time_range=time_range_spec(time_range))
        return self._render(results)

    def _how_many(self, n: object) -> int:
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise InvalidInputError(f"how_many_results must be a whole number of at least 1, got {n!r}")
        return min(n, self._max_results)  # a model asking for hundreds gets the most useful few

    @staticmethod
    def _render(results: RecallResults) -> str:
        return format_for_prompt(results, empty=NOTHING_FOUND)

    # -- save -----------------------------------------------------------------------------
    def save_memory(self, what_to_remember: WhatToRemember) -> str:
        """Remember something about this user for future conversations: a preference, a correction,
        a personal fact, a deadline or the result of a task. Do not save small talk or questions.
        Says whether it was kept and why."""
        return describe(self._memory.write(what_to_remember, **self._write_options()))

    async def asave_memory(self, what_to_remember: WhatToRemember) -> str:
        return describe(await self._memory.awrite(what_to_remember, **self._write_options()))

    def _write_options(self) -> dict:
        return dict(user_id=self._user_id, session_id=self._session_id, agent_id=self._agent_id,
                    source=Source.AGENT)
