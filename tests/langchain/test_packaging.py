"""The adapter's public API is pinned and ships its type marker."""

from __future__ import annotations

from pathlib import Path

import hindsight_langchain


def test_public_api_is_pinned():
    assert sorted(hindsight_langchain.__all__) == [
        "HindsightMiddleware", "HindsightRetriever", "HindsightStore", "as_text_function", "llm_gate", "llm_judge",
        "llm_summarizer", "memory_search_tool", "memory_tools", "memory_write_tool"]
    for name in hindsight_langchain.__all__:
        assert getattr(hindsight_langchain, name) is not None


def test_py_typed_is_shipped():
    assert (Path(hindsight_langchain.__file__).parent / "py.typed").exists()
