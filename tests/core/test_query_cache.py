"""A repeated query is embedded once; the cache never hands out a vector another embedder made."""

from __future__ import annotations

import numpy as np
import pytest

from hindsight_core import Hindsight
from hindsight_core.embed.query_cache import QueryCache
from hindsight_core.language import text_cache

from ..recording import RecordingEmbedder



def test_a_repeated_query_is_embedded_once(clock):
    embedder = RecordingEmbedder()
    with Hindsight(location=":memory:", embedder=embedder, clock=clock) as memory:
        memory.remember("I prefer tea over coffee in the morning.", user_id="alice")
        embedder.calls.clear()
        first = memory.recall("what do I drink in the morning", user_id="alice", reinforce=False)
        second = memory.recall("what do I drink in the morning", user_id="alice", reinforce=False)
        assert embedder.calls == [["what do I drink in the morning"]]
        assert [r.memory.id for r in first] == [r.memory.id for r in second]
        memory.recall("what do I drink at night", user_id="alice", reinforce=False)
        assert len(embedder.calls) == 2
        memory.embedder = other = RecordingEmbedder()  # another model: nothing cached is reused
        memory.recall("what do I drink in the morning", user_id="alice", reinforce=False)
        assert other.calls == [["what do I drink in the morning"]]


def test_the_least_recently_used_query_leaves_and_rows_are_read_only():
    embedder = RecordingEmbedder()
    cache = QueryCache(size=2)
    a = cache.vectors(["a", "b", "a"], embedder.embed)
    assert embedder.calls == [["a", "b"]] and np.array_equal(a[0], a[2])
    cache.vectors(["a"], embedder.embed)  # "a" is now the most recent
    cache.vectors(["c"], embedder.embed)  # "b" leaves
    cache.vectors(["a", "b"], embedder.embed)
    assert embedder.calls[-1] == ["b"] and cache.hits == 2
    row = cache.vectors(["a"], embedder.embed)
    with pytest.raises(ValueError):
        cache._rows["a"][0] = 2.0
    row[0, 0] = 5.0  # the caller's copy is its own
    assert cache.vectors(["a"], embedder.embed)[0, 0] != 5.0


def test_a_forget_leaves_no_cached_text_in_the_process(clock):
    with Hindsight(location=":memory:", embedder=RecordingEmbedder(), clock=clock) as memory:
        memory.remember("My locker code is 4711.", user_id="alice", force=True,
                        context="What is your locker code?")
        memory.recall("locker code", user_id="alice")
        assert "locker code" in memory._query_cache._rows
        assert any(cache.cache_info().currsize for cache in text_cache._CACHES)
        memory.forget(user_id="alice", about="locker code")
        assert len(memory._query_cache._rows) == 0 and len(memory._alone_cache._rows) == 0
        assert all(cache.cache_info().currsize == 0 for cache in text_cache._CACHES)
