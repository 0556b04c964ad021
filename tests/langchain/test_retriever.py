"""HindsightRetriever: documents, metadata, per-call options, sync and async."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.documents import Document
from langchain_core.runnables import ConfigurableField

from hindsight_core import InvalidInputError, InvalidUserIdError
from hindsight_langchain import HindsightRetriever

from .helpers import LATER_REQUEST, PREFERENCE

NOTES = [
    PREFERENCE,
    "My printer is the HP LaserJet on the third floor, room 3.14.",
    "I prefer duplex printing for long reports to save paper.",
    "My dog Rex needs his vaccination on May 3rd.",
]


@pytest.fixture
def alice(fake_memory, clock):
    """Four memories a week apart, the newest now."""
    clock.advance(days=-21)
    for text in NOTES:
        fake_memory.remember(text, user_id="alice")
        clock.advance(days=7)
    clock.advance(days=-7)
    return fake_memory


def test_documents_carry_the_memory_text_and_why_it_was_recalled(memory):
    record = memory.remember(PREFERENCE, user_id="alice")
    memory.remember("My dog Rex needs his vaccination on May 3rd.", user_id="alice")
    retriever = HindsightRetriever(memory=memory, user_id="alice", k=1)

    [doc] = retriever.invoke(LATER_REQUEST)

    assert isinstance(doc, Document)
    assert doc.page_content == PREFERENCE and doc.id == record.id
    meta = doc.metadata
    assert meta["id"] == record.id and meta["layer"] == "episodic" and meta["event_type"] == "preference"
    assert meta["timestamp"] == record.timestamp.isoformat() and meta["confidence"] == record.confidence
    assert 0 < meta["retention"] <= 1 and meta["score"] > 0
    assert "dense #1" in meta["explanation"]


def test_results_are_the_cores_recall_in_order(alice):
    expected = alice.recall("printing reports", user_id="alice", k=3, reinforce=False)
    docs = HindsightRetriever(memory=alice, user_id="alice", k=3).invoke("printing reports")
    assert [d.metadata["id"] for d in docs] == [r.memory.id for r in expected]
    assert [d.metadata["score"] for d in docs] == pytest.approx([r.score for r in expected])


def test_k_and_filters_per_call(alice):
    retriever = HindsightRetriever(memory=alice, user_id="alice")
    assert len(retriever.invoke("printing reports printer", k=1)) == 1
    assert len(retriever.invoke("printing reports printer", k=3)) == 3

    recent = retriever.invoke("printing reports printer dog", time_range="last_8_days")
    assert {d.page_content for d in recent} == set(NOTES[2:])

    prefs = retriever.invoke("printing reports printer", event_types=["preference"])
    assert prefs and {d.metadata["event_type"] for d in prefs} == {"preference"}
    assert retriever.invoke("printing", layers=["semantic"]) == []


def test_filters_set_on_the_retriever_and_through_the_config(alice):
    retriever = HindsightRetriever(memory=alice, user_id="alice", k=2, time_range="last_8_days")
    assert {d.page_content for d in retriever.invoke("printing dog")} <= set(NOTES[2:])

    configurable = HindsightRetriever(memory=alice, user_id="alice").configurable_fields(
        k=ConfigurableField(id="memory_k"))
    assert len(configurable.invoke("printing reports printer", config={"configurable": {"memory_k": 1}})) == 1
    assert len(configurable.invoke("printing reports printer")) == len(NOTES)  # the default k (5): never hides


def test_ainvoke_returns_the_same_documents(alice):
    retriever = HindsightRetriever(memory=alice, user_id="alice", reinforce=False)
    sync = retriever.invoke("printing reports", k=2)
    async_ = asyncio.run(retriever.ainvoke("printing reports", k=2))
    assert [d.metadata["id"] for d in async_] == [d.metadata["id"] for d in sync]


def test_one_retriever_reads_one_user(alice):
    assert HindsightRetriever(memory=alice, user_id="bob").invoke("printing reports") == []
    with pytest.raises(InvalidUserIdError):
        HindsightRetriever(memory=alice, user_id="*").invoke("printing")


def test_bad_options_are_refused_clearly(alice):
    retriever = HindsightRetriever(memory=alice, user_id="alice")
    with pytest.raises(InvalidInputError, match="recall takes no option 'top_k'"):
        retriever.invoke("printing", top_k=3)
    with pytest.raises(InvalidInputError, match="k must be"):
        retriever.invoke("printing", k=0)
    with pytest.raises(InvalidInputError, match="unknown time range"):
        retriever.invoke("printing", time_range="last blue moon")
