"""Provenance in the write rules: an agent's or a tool's words never replace or become the user's knowledge."""

import pytest

from hindsight_core import Source
from hindsight_core.types import Layer


@pytest.mark.parametrize("source", ["tool", "agent"])
def test_non_user_text_never_supersedes_what_the_user_said(fake_memory, source):
    mine = fake_memory.write("I prefer red for the Orion slide theme.", user_id="u", force=True).record
    fake_memory.write("I prefer blue for the Orion slide theme.", user_id="u", source=source, force=True)
    fake_memory.write("Actually, I prefer blue for the Orion slide theme.", user_id="u", source=source, force=True,
                      layer=Layer.SEMANTIC)
    fake_memory.consolidate(user_id="u")
    assert fake_memory.get(mine.id, user_id="u").superseded_by is None


REPEATED = "Print the Orion report in landscape, please."


@pytest.mark.parametrize("source, groups", [("user", True), ("tool", False), ("agent", False)])
def test_only_the_users_own_words_become_knowledge(fake_memory, clock, source, groups):
    for _ in range(5):  # the same request on five days: the user's repetition becomes knowledge, no one else's
        fake_memory.write(REPEATED, user_id="u", source=source, force=True, event_type="request",
                          merge_duplicates=False)
        clock.advance(days=1)
    fake_memory.consolidate(user_id="u")
    knowledge = [m for m in fake_memory.memories(user_id="u") if m.layer is Layer.SEMANTIC]
    assert bool(knowledge) is groups, [(m.source, m.raw_content) for m in knowledge]
    assert all(m.source is Source.USER for m in knowledge)
