"""The knowledge rules compare statements on their texts alone, while recall keeps the vectors with the turn
each answers (`write.decisions`)."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from hindsight_core import Hindsight, Layer
from hindsight_core.config import knowledge_on
from hindsight_core.testing import FakeEmbedder, FrozenClock
from hindsight_core.types import EventType, MemoryRecord, Source
from hindsight_core.write.decisions import decision_vectors, judged_on_text
from hindsight_core.write.preparing import embedding_text

from ..conftest import START
from ..recording import RecordingEmbedder


def _record(text: str, *, context: str | None = None, source: Source = Source.USER,
            kind: str = EventType.PREFERENCE.value) -> MemoryRecord:
    return MemoryRecord(id=text, user_id="u", summary=text, raw_content=text, timestamp=START, event_type=kind,
                        source=source, context=context)



def test_only_the_users_asserted_statements_with_a_context_are_embedded_again_in_one_call():
    embedder = RecordingEmbedder()
    records = [
        _record("I prefer landscape for reports.", context="How should I print the report?"),  # judged on its text
        _record("I prefer tea in the morning."),  # no context: its stored vector is its text already
        _record("What colour do I like?", context="Anything else?"),  # a question: compared by no such rule
        _record("Landscape is the usual choice.", context="How should I print?", source=Source.AGENT),
        _record("我现在改用钉钉了", context="你们用什么开会？"),
    ]
    stored = FakeEmbedder().embed([embedding_text(r) for r in records])
    out = decision_vectors(records, stored, embedder.embed)
    assert embedder.calls == [["I prefer landscape for reports.", "我现在改用钉钉了"]]
    assert [judged_on_text(r) for r in records] == [True, False, False, False, True]
    alone = FakeEmbedder().embed(["I prefer landscape for reports.", "我现在改用钉钉了"])
    assert np.allclose(out[[0, 4]], alone)
    assert np.array_equal(out[[1, 2, 3]], stored[[1, 2, 3]])
    assert not np.allclose(out[0], stored[0])  # the context moved the stored vector; the decision ignores it


def test_without_an_embedder_or_anything_to_embed_the_stored_vectors_come_back_as_a_copy():
    records = [_record("I prefer tea."), _record("Do I like tea?", context="Hi")]
    stored = FakeEmbedder().embed([embedding_text(r) for r in records])
    embedder = RecordingEmbedder()
    for out in (decision_vectors(records, stored, None), decision_vectors(records, stored, embedder.embed)):
        assert np.array_equal(out, stored) and out is not stored
    assert embedder.calls == []
    with pytest.raises(ValueError):
        decision_vectors(records, stored[:1], None)


def test_a_repeated_preference_answering_different_turns_becomes_knowledge_while_recall_keeps_the_context():
    """Five repeats of one preference, each answering a different assistant turn: with the contexts in the
    compared vectors they sit apart; on their text alone they group. The stored vector still holds the context."""
    clock = FrozenClock(START)
    embedder = FakeEmbedder()
    with Hindsight(location=":memory:", embedder=embedder, clock=clock, config=knowledge_on()) as memory:
        asks = ["Your flight to Oslo is booked, anything about the seat?", "The train tickets are ready to print.",
                "I found three hotels near the station.", "Lunch is ordered for the team meeting.",
                "The quarterly report draft is attached for review."]
        for day, ask in enumerate(asks):
            clock.set(START + timedelta(days=day))
            memory.write("I prefer window seats when I travel.", user_id="u", context=ask, merge_duplicates=False)
        report = memory.consolidate(user_id="u")
        knowledge = [m for m in memory.memories(user_id="u") if m.layer is Layer.SEMANTIC]
        # formed after the fourth write (said on three days spread over three: `SemanticConfig.min_days`,
        # `min_span_days`) from those four; the fifth came after and stays an episode of its own
        assert len(knowledge) == 1 and len(knowledge[0].derived_from) == 4, report
        episode = next(m for m in memory.memories(user_id="u") if m.layer is Layer.EPISODIC)
        assert episode.context in asks
