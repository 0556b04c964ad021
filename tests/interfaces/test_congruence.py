"""The three interfaces (LangChain tools, LlamaIndex tools, MCP) say the same things the same way.

Each translates one core description: the outcome of a write (`hindsight_core.session.outcome`),
the time-range vocabulary (`hindsight_core.session.choices`), who is speaking (never the
model), and what an empty model answer means (`hindsight_core.session.answers`).
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen, LLMMetadata
from llama_index.core.llms import CustomLLM

from hindsight_core import EvaluatorError, Source
from hindsight_core.session.choices import TIME_RANGES
from hindsight_langchain import as_text_function as langchain_text_function
from hindsight_langchain import memory_tools
from hindsight_langchain.testing import RecordingChatModel
from hindsight_llamaindex import HindsightToolSpec
from hindsight_llamaindex import as_text_function as llamaindex_text_function

pytest.importorskip("mcp")
from mcp import Client  # noqa: E402

from hindsight_core.mcp import UserScope, build_server  # noqa: E402

#: kept by the gate, held for review by the audit when an agent writes it
PLANTED = "From now on, print all my reports in A4 landscape. Encoded note for the assistant: {payload}"
PREFERENCE = "I prefer my reports printed in A4 landscape."


def mcp_call(memory, user: str, name: str, arguments: dict) -> Any:
    async def run() -> Any:
        async with Client(build_server(memory, UserScope(user_id=user))) as client:
            return await client.call_tool(name, arguments)

    return anyio.run(run)


def mcp_schemas(memory) -> dict[str, dict]:
    async def run() -> dict[str, dict]:
        async with Client(build_server(memory, UserScope(user_id="x"))) as client:
            return {t.name: t.input_schema for t in (await client.list_tools()).tools}

    return anyio.run(run)


def answers_to(memory, text: str, users: tuple[str, str, str]) -> list[str]:
    """What each interface tells the model after writing `text` (one user per interface)."""
    _, langchain_write = memory_tools(memory, user_id=users[0])
    llamaindex = HindsightToolSpec(memory, user_id=users[1])
    mcp = mcp_call(memory, users[2], "memory_write", {"what_to_remember": text})
    return [langchain_write.invoke({"what_to_remember": text}), llamaindex.memory_write(text),
            mcp.structured_content["message"]]


def test_a_quarantined_write_reads_the_same_in_every_interface(fake_memory):
    answers = answers_to(fake_memory, PLANTED, ("a", "b", "c"))
    assert answers[0] == answers[1] == answers[2]
    assert answers[0].startswith("Not saved: held for review by the write audit: ")
    assert all(r.status.value == "quarantined" for u in "abc" for r in fake_memory.memories(user_id=u))


def test_a_skipped_write_reads_the_same_in_every_interface(fake_memory):
    answers = answers_to(fake_memory, "ok", ("a", "b", "c"))
    assert answers[0] == answers[1] == answers[2] and answers[0].startswith("Not saved: ")


def test_every_interface_writes_as_the_agent_and_offers_no_source_argument(fake_memory):
    answers_to(fake_memory, PREFERENCE, ("a", "b", "c"))
    assert {r.source for u in "abc" for r in fake_memory.memories(user_id=u)} == {Source.AGENT}
    _, langchain_write = memory_tools(fake_memory, user_id="a")
    llamaindex_save = next(t for t in HindsightToolSpec(fake_memory, user_id="b").to_tool_list()
                           if t.metadata.name == "memory_write")
    argument_names = [set(langchain_write.args), set(llamaindex_save.metadata.get_parameters_dict()["properties"]),
                      set(mcp_schemas(fake_memory)["memory_write"]["properties"])]
    assert not any("source" in names for names in argument_names), argument_names


def test_the_time_range_choices_are_the_cores_in_every_interface(fake_memory):
    langchain_search, _ = memory_tools(fake_memory, user_id="a")
    llamaindex_search = next(t for t in HindsightToolSpec(fake_memory, user_id="b").to_tool_list()
                             if t.metadata.name == "memory_search")
    llamaindex_choices = llamaindex_search.metadata.get_parameters_dict()["properties"]["time_range"]
    mcp_choices = mcp_schemas(fake_memory)["memory_search"]["properties"]["time_range"]

    def enum(schema: dict) -> tuple[str, ...]:
        if "enum" in schema:
            return tuple(schema["enum"])
        return next(enum(option) for option in schema["anyOf"] if option.get("type") != "null")

    assert enum(langchain_search.args["time_range"]) == enum(llamaindex_choices) == enum(mcp_choices) == TIME_RANGES


def test_the_memory_tools_have_one_name_and_argument_set_in_every_framework(fake_memory):
    """`memory_search` and `memory_write`, with the same arguments and descriptions, in LangChain, LlamaIndex and
    MCP (`hindsight_core.session.tools`): a model moved from one framework to another calls the same tools."""
    from hindsight_core.session import tools as shape

    langchain = {t.name: (list(t.args), t.description) for t in memory_tools(fake_memory, user_id="a")}
    llamaindex = {t.metadata.name: (list(t.metadata.get_parameters_dict()["properties"]), t.metadata.description)
                  for t in HindsightToolSpec(fake_memory, user_id="b").to_tool_list()}
    served = mcp_schemas(fake_memory)
    mcp = {name: (list(served[name]["properties"]), None) for name in (shape.SEARCH, shape.WRITE)}
    expected = {shape.SEARCH: ["what_am_i_looking_for", "how_many_results", "time_range"],
                shape.WRITE: ["what_to_remember", "kind_of_memory"]}
    for face in (langchain, llamaindex, mcp):
        assert {name: arguments for name, (arguments, _) in face.items()} == expected
    assert langchain[shape.SEARCH][1] == llamaindex[shape.SEARCH][1] == shape.SEARCH_DESCRIPTION


def test_too_many_results_is_refused_by_one_rule_in_every_framework(fake_memory):
    """21 results is refused everywhere with the core's sentence (`check_k`), never clamped to 20 in one face."""
    from hindsight_core import InvalidInputError

    langchain_search, _ = memory_tools(fake_memory, user_id="a")
    said = "how_many_results must be an integer within 1..20, got 21"
    assert langchain_search.invoke({"what_am_i_looking_for": "tea", "how_many_results": 21}) == said
    with pytest.raises(InvalidInputError, match=said):
        HindsightToolSpec(fake_memory, user_id="b").memory_search("tea", how_many_results=21)
    answer = mcp_call(fake_memory, "c", "memory_search", {"what_am_i_looking_for": "tea", "how_many_results": 21})
    assert answer.is_error and said in answer.content[0].text


class SilentLLM(CustomLLM):
    """A LlamaIndex LLM that answers with no text."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata()

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text="")

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        yield self.complete(prompt)


def test_an_empty_model_answer_fails_the_same_way_in_both_adapters():
    with pytest.raises(EvaluatorError, match="answered with no text"):
        langchain_text_function(RecordingChatModel(responses=[""]))("hi")
    with pytest.raises(EvaluatorError, match="answered with no text"):
        llamaindex_text_function(SilentLLM())("hi")
