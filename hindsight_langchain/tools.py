"""`memory_search` and `memory_write`: hindsight as tools a model can call, in the shape every framework gets.

The names, arguments, descriptions and result bound are the core's (`hindsight_core.session.tools`), the same as
the LlamaIndex tools and the MCP server give; this module only translates them into LangChain tools. The user id
is bound when the tools are made and never taken from the model's arguments, so a model cannot read or write
another user's memories however it is prompted. Nor does the model say who is speaking: what the write tool keeps
is recorded as the agent's, never as the user's own words on the model's say-so.
"""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field

from hindsight_core import InvalidInputError, MemoryAPI, RecallResults
from hindsight_core.language.text import validate_id
from hindsight_core.session import tools as shape
from hindsight_core.session.asking import asking_as
from hindsight_core.session.outcome import describe

from ._context import ASKER

# the core's choices, read at run time (a type checker wants them spelt out)
# Literal of a tuple constant: what the tool schema needs, which mypy can't check statically
TimeRangeChoice = Literal[shape.TIME_RANGES]  # type: ignore[valid-type]


class MemorySearchInput(BaseModel):
    what_am_i_looking_for: str = Field(description=shape.ARGUMENTS["what_am_i_looking_for"])
    # the bound is the core's (`shape.how_many`), so a model asking for too many reads the same sentence everywhere
    how_many_results: int = Field(5, description=shape.ARGUMENTS["how_many_results"],
                                  json_schema_extra={"minimum": 1, "maximum": shape.MAX_RESULTS})
    time_range: TimeRangeChoice = Field("any_time", description=shape.ARGUMENTS["time_range"])


class MemoryWriteInput(BaseModel):
    what_to_remember: str = Field(description=shape.ARGUMENTS["what_to_remember"])
    kind_of_memory: shape.KindChoice | None = Field(None, description=shape.ARGUMENTS["kind_of_memory"])


def _invalid_arguments(error: Exception) -> str:
    """Tell the model which argument was wrong, in pydantic's words."""
    details = getattr(error, "errors", None)
    if callable(details):
        return "Invalid arguments: " + "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in details())
    return f"Invalid arguments: {error}"


#: bad arguments and refused input go back to the model as the tool's answer, so it can correct itself
_ERRORS_TO_MODEL: dict[str, Any] = {"handle_tool_error": True, "handle_validation_error": _invalid_arguments}


def memory_search_tool(memory: MemoryAPI, *, user_id: str, name: str = shape.SEARCH) -> BaseTool:
    """A tool that recalls `user_id`'s memories for the model (hybrid recall, best first)."""
    user = validate_id(user_id)

    def render(results: RecallResults) -> str:
        return memory.format_for_prompt(results) or shape.NOTHING_FOUND

    def search(what_am_i_looking_for: str, how_many_results: int = 5, time_range: str = "any_time") -> str:
        try:
            with asking_as(ASKER):
                return render(shape.search(memory, user, what_am_i_looking_for, how_many_results, time_range))
        except InvalidInputError as exc:
            raise ToolException(str(exc)) from exc

    async def asearch(what_am_i_looking_for: str, how_many_results: int = 5, time_range: str = "any_time") -> str:
        try:
            with asking_as(ASKER):
                found = await shape.asearch(memory, user, what_am_i_looking_for, how_many_results, time_range)
            return render(found)
        except InvalidInputError as exc:
            raise ToolException(str(exc)) from exc

    return StructuredTool.from_function(func=search, coroutine=asearch, name=name,
                                        description=shape.SEARCH_DESCRIPTION, args_schema=MemorySearchInput,
                                        **_ERRORS_TO_MODEL)


def memory_write_tool(memory: MemoryAPI, *, user_id: str, agent_id: str | None = None, session_id: str | None = None,
                      force: bool = False, name: str = shape.WRITE) -> BaseTool:
    """A tool that offers a sentence to `user_id`'s memory, written as coming from the agent.

    The core's write gate still decides (and its reasons go back to the model)
    unless `force=True`, which stores whatever the model asks to keep. The source
    is always "agent": the model calling the tool is the one speaking, whatever
    it claims in its arguments.
    """
    user = validate_id(user_id)
    bound: dict[str, Any] = {"agent_id": agent_id, "session_id": session_id, "force": force}

    def write(what_to_remember: str, kind_of_memory: str | None = None) -> str:
        try:
            return describe(shape.write(memory, user, what_to_remember, kind_of_memory, **bound))
        except InvalidInputError as exc:
            raise ToolException(str(exc)) from exc

    async def awrite(what_to_remember: str, kind_of_memory: str | None = None) -> str:
        try:
            return describe(await shape.awrite(memory, user, what_to_remember, kind_of_memory, **bound))
        except InvalidInputError as exc:
            raise ToolException(str(exc)) from exc

    return StructuredTool.from_function(func=write, coroutine=awrite, name=name, description=shape.WRITE_DESCRIPTION,
                                        args_schema=MemoryWriteInput, **_ERRORS_TO_MODEL)


def memory_tools(memory: MemoryAPI, *, user_id: str, agent_id: str | None = None, session_id: str | None = None,
                 force_writes: bool = False) -> list[BaseTool]:
    """`[memory_search, memory_write]` bound to one user, ready for `create_agent(model, tools=...)`."""
    return [memory_search_tool(memory, user_id=user_id),
            memory_write_tool(memory, user_id=user_id, agent_id=agent_id, session_id=session_id, force=force_writes)]
