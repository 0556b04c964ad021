"""The public API of hindsight_llamaindex is pinned."""

from __future__ import annotations

import hindsight_llamaindex

PUBLIC = {
    "HindsightChatMemory", "HindsightMemoryBlock",
    "HindsightRetriever", "HindsightToolSpec", "as_text_function", "hindsight_memory",
    "llm_gate", "llm_judge", "llm_summarizer",
}


def test_all_is_pinned_and_importable():
    assert set(hindsight_llamaindex.__all__) == PUBLIC
    assert all(getattr(hindsight_llamaindex, name) is not None for name in PUBLIC)


def test_the_package_is_typed():
    from importlib.resources import files

    assert files("hindsight_llamaindex").joinpath("py.typed").is_file()
