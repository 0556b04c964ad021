"""LangChain's standard retriever tests (langchain-tests), run against HindsightRetriever."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_tests")

from langchain_tests.integration_tests import RetrieversIntegrationTests  # noqa: E402

from hindsight_core import Hindsight  # noqa: E402
from hindsight_core.testing import FakeEmbedder, FrozenClock  # noqa: E402
from hindsight_langchain import HindsightRetriever  # noqa: E402

_MEMORY: Hindsight | None = None


def _memory() -> Hindsight:
    """One shared store with a few related memories: the standard tests ask for up to 3 results."""
    global _MEMORY
    if _MEMORY is None:
        _MEMORY = Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=FrozenClock())
        _MEMORY.write_many([
            "From now on, print all my reports in A4 landscape.",
            "I prefer duplex printing for long reports.",
            "Print the quarterly reports in colour for the board.",
            "My reports go to the printer on the third floor.",
        ], user_id="alice", force=True)
    return _MEMORY


# langchain-tests' one async test is a plain coroutine: pytest-asyncio (strict mode) runs it only when marked,
# and a class mark also reaches the sync tests, for which pytest-asyncio warns; that warning is noise here
@pytest.mark.asyncio
@pytest.mark.filterwarnings("ignore:The test <Function .* is marked with '@pytest.mark.asyncio'")
class TestHindsightRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[HindsightRetriever]:
        return HindsightRetriever

    @property
    def retriever_constructor_params(self) -> dict:
        return {"memory": _memory(), "user_id": "alice"}

    @property
    def retriever_query_example(self) -> str:
        return "how should my reports be printed"
