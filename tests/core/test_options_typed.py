"""Every option a typed keyword of the contract, stated once: the keyword types (`WriteKeywords`,
`RecallKeywords`) name the fields of the option values with their types, and every implementation's calls take
them as `**options: Unpack[...]`, so a type checker refuses a misspelt option on either sibling."""

from __future__ import annotations

import dataclasses
import inspect
import typing

import pytest

from hindsight_core import Hindsight, HindsightClient
from hindsight_core.api import MemoryAPI
from hindsight_core.contract.options import (
    PER_TEXT,
    RecallKeywords,
    RecallOptions,
    WriteKeywords,
    WriteManyKeywords,
    WriteOptions,
)


@pytest.mark.parametrize("keywords, values", [(WriteKeywords, WriteOptions), (RecallKeywords, RecallOptions)])
def test_the_keyword_types_name_the_option_fields_with_their_types(keywords, values):
    assert typing.get_type_hints(keywords) == typing.get_type_hints(values)
    assert list(typing.get_type_hints(keywords)) == [f.name for f in dataclasses.fields(values)]
    assert keywords.__total__ is False  # each has the value's default


def test_write_many_takes_the_write_options_and_one_list_per_text():
    assert sorted(WriteManyKeywords.__annotations__) == sorted([*PER_TEXT, *(f.name for f in dataclasses.fields(WriteOptions))])


CALLS = {"write": "WriteKeywords", "remember": "WriteKeywords", "awrite": "WriteKeywords",
         "write_many": "WriteManyKeywords", "recall": "RecallKeywords", "arecall": "RecallKeywords"}


@pytest.mark.parametrize("implementation", [MemoryAPI, Hindsight, HindsightClient])
@pytest.mark.parametrize("call", sorted(CALLS))
def test_every_call_with_options_takes_them_typed(implementation, call):
    parameters = inspect.signature(getattr(implementation, call)).parameters.values()
    [options] = [p for p in parameters if p.kind is p.VAR_KEYWORD]
    assert options.annotation == f"Unpack[{CALLS[call]}]"
    assert not [p.name for p in parameters if p.kind is p.KEYWORD_ONLY and p.name in
                {f.name for f in dataclasses.fields(WriteOptions)} | {f.name for f in dataclasses.fields(RecallOptions)}]
