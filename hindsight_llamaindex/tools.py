"""`HindsightToolSpec`: `memory_search` and `memory_write` for LlamaIndex agents, bound to one user.

The names, arguments, descriptions and result bound are the core's (`hindsight_core.session.tools`), the same as the
LangChain tools and the MCP server give; this module only translates them into LlamaIndex tools.
"""

# no `from __future__ import annotations`: LlamaIndex reads the Annotated descriptions at run time
from typing import Annotated, List, Literal, Optional

from llama_index.core.tools.tool_spec.base import SPEC_FUNCTION_TYPE, BaseToolSpec
from llama_index.core.tools.types import ToolMetadata
from llama_index.core.tools.utils import create_schema_from_function

from hindsight_core import MemoryAPI, RecallResults, format_for_prompt
from hindsight_core.language.text import validate_id
from hindsight_core.session import tools as shape
from hindsight_core.session.asking import asking_as
from hindsight_core.session.outcome import describe

from ._validate import ASKER, check_memory

NOTHING_FOUND = shape.NOTHING_FOUND

LookingFor = Annotated[str, shape.ARGUMENTS["what_am_i_looking_for"]]
HowMany = Annotated[int, shape.ARGUMENTS["how_many_results"]]
# the core's choices, read at run time (a type checker wants them spelt out)
# Literal of a tuple constant: what the tool schema needs, which mypy can't check statically
TimeRange = Annotated[Literal[shape.TIME_RANGES], shape.ARGUMENTS["time_range"]]  # type: ignore[valid-type]
WhatToRemember = Annotated[str, shape.ARGUMENTS["what_to_remember"]]
KindOfMemory = Annotated[Optional[shape.KindChoice], shape.ARGUMENTS["kind_of_memory"]]


class HindsightToolSpec(BaseToolSpec):
    """Tools that let an agent search and add to one user's long-term memory.

        tools = HindsightToolSpec(memory, user_id="alice").to_tool_list()
        agent = FunctionAgent(tools=tools, llm=llm)

    The user id is fixed when the spec is built and is not a tool parameter, so a
    model can never read or write another user's memories. Nor is the source: saved
    text goes through the write gate like any other write, always as the agent's.
    """

    spec_functions: List[SPEC_FUNCTION_TYPE] = [(shape.SEARCH, "amemory_search"), (shape.WRITE, "amemory_write")]
    _DESCRIPTIONS = {shape.SEARCH: shape.SEARCH_DESCRIPTION, shape.WRITE: shape.WRITE_DESCRIPTION}

    def __init__(self, memory: MemoryAPI, *, user_id: str, session_id: Optional[str] = None,
                 agent_id: Optional[str] = None) -> None:
        self._memory = check_memory(memory)
        self._user_id = validate_id(user_id)
        self._session_id = validate_id(session_id, what="session_id", required=False)
        self._agent_id = validate_id(agent_id, what="agent_id", required=False)

    def get_metadata_from_fn_name(self, fn_name: str,
                                  spec_functions: Optional[List[SPEC_FUNCTION_TYPE]] = None) -> ToolMetadata:
        """The tool's name, the core's description, and a schema from the annotations."""
        func = getattr(self, fn_name)
        return ToolMetadata(name=fn_name, description=self._DESCRIPTIONS[fn_name],
                            fn_schema=create_schema_from_function(fn_name, func))

    # -- search ---------------------------------------------------------------------------
    def memory_search(self, what_am_i_looking_for: LookingFor, how_many_results: HowMany = 5,
                      time_range: TimeRange = "any_time") -> str:
        with asking_as(ASKER):
            return self._render(shape.search(self._memory, self._user_id, what_am_i_looking_for, how_many_results,
                                             time_range))

    async def amemory_search(self, what_am_i_looking_for: LookingFor, how_many_results: HowMany = 5,
                             time_range: TimeRange = "any_time") -> str:
        with asking_as(ASKER):
            return self._render(await shape.asearch(self._memory, self._user_id, what_am_i_looking_for,
                                                    how_many_results, time_range))

    @staticmethod
    def _render(results: RecallResults) -> str:
        return format_for_prompt(results, empty=NOTHING_FOUND)

    # -- write ----------------------------------------------------------------------------
    def memory_write(self, what_to_remember: WhatToRemember, kind_of_memory: KindOfMemory = None) -> str:
        return describe(shape.write(self._memory, self._user_id, what_to_remember, kind_of_memory,
                                    session_id=self._session_id, agent_id=self._agent_id))

    async def amemory_write(self, what_to_remember: WhatToRemember, kind_of_memory: KindOfMemory = None) -> str:
        return describe(await shape.awrite(self._memory, self._user_id, what_to_remember, kind_of_memory,
                                           session_id=self._session_id, agent_id=self._agent_id))
