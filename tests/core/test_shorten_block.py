"""shorten_block: the memory block loses its weakest memories, through the same `fit` the context builder uses."""

from __future__ import annotations

import pytest

from hindsight_core import Hindsight, InvalidInputError, count_tokens, format_for_prompt
from hindsight_core.session.context import memory_block, shorten_block
from hindsight_core.testing import FakeEmbedder

FACTS = ["I prefer tea over coffee in the morning.", "My project Falcon ships on 12 June.",
         "I work at Contoso in the Berlin office.", "My manager is Priya Shah."]


@pytest.fixture
def block(clock):
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        for fact in FACTS:
            memory.remember(fact, user_id="alice")
        yield memory_block(memory, "tea Falcon Contoso Priya", user_id="alice", k=4)


def test_the_last_memories_go_until_enough_tokens_are_freed(block):
    assert len(block.memories) == 4
    without_last = format_for_prompt(block.memories[:3])
    freed = block.tokens - count_tokens(without_last)
    shorter = shorten_block(block, freed)
    assert shorter.memories == block.memories[:3] and shorter.text == without_last
    assert shorter.tokens == count_tokens(without_last)
    assert shorten_block(block, freed + 1).memories == block.memories[:2]


def test_the_best_memory_stays_and_nothing_to_free_changes_nothing(block):
    assert shorten_block(block, 10_000).memories == block.memories[:1]
    assert shorten_block(block, 0) is block
    with pytest.raises(InvalidInputError):
        shorten_block(block, "a lot")  # type: ignore[arg-type]
