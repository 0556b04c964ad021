"""The record codec's fast paths give what the plain ones gave."""

from __future__ import annotations

import dataclasses
import math
from datetime import timedelta

import numpy as np
import pytest

from hindsight_core.language.text_cache import forget_cached_texts
from hindsight_core.store import points as pts
from hindsight_core.contract.records import record_from_payload, record_to_dict
from hindsight_core.types import Layer, MemoryRecord

from ..conftest import START


def _as_dataclasses_gives(record: MemoryRecord) -> dict:
    out = dataclasses.asdict(record)
    for name in ("layer", "source", "status"):
        out[name] = getattr(record, name).value
    for name in ("timestamp", "last_accessed", "last_confirmed"):
        out[name] = getattr(record, name).isoformat() if getattr(record, name) is not None else None
    return out


def test_a_record_as_a_dict_is_what_asdict_gave_and_shares_nothing_mutable():
    record = MemoryRecord(id="m1", user_id="u", summary="s", raw_content="I live in Lisbon.", timestamp=START,
                          layer=Layer.SEMANTIC, entities=["Lisbon"], derived_from=["m0"],
                          metadata={"channel": {"name": "chat", "tags": ["a"]}}, last_accessed=START + timedelta(1))
    out = record_to_dict(record)
    assert out == _as_dataclasses_gives(record) and list(out) == list(_as_dataclasses_gives(record))
    back, problem = record_from_payload(out)
    assert problem is None and back == record
    out["metadata"]["channel"]["tags"].append("b")
    out["entities"].append("Porto")
    assert record.metadata == {"channel": {"name": "chat", "tags": ["a"]}} and record.entities == ["Lisbon"]


@pytest.mark.parametrize("value, readable", [(0.5, True), (1, True), (np.float64(0.5), True), (True, False),
                                             (math.nan, False), (math.inf, False), ("0.5", False)])
def test_a_confidence_must_be_a_finite_number(value, readable):
    record = MemoryRecord(id="m1", user_id="u", summary="s", raw_content="text", timestamp=START)
    payload = {**record_to_dict(record), "confidence": value}
    back, problem = record_from_payload(payload)
    assert (back is not None) is readable and (problem is None) is readable


def test_kept_query_terms_are_the_same_and_callers_cannot_change_them():
    first = pts.query_terms("who moved to Lisbon")
    first[0].append(-1)  # a caller's copy: the kept terms do not change
    assert pts.query_terms("who moved to Lisbon") == (first[0][:-1], first[1])
    forget_cached_texts()
    assert pts.query_terms("who moved to Lisbon") == (first[0][:-1], first[1])
