"""`HindsightRetriever`: one user's memories as a LangChain retriever."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from hindsight_core import MemoryAPI
from hindsight_core.api import RECALL_OPTIONS, RecallOptions  # the options a caller may set per call, named once

from ._convert import document_from_scored


class HindsightRetriever(BaseRetriever):
    """Recall one user's memories as `Document`s, best first, through hindsight's hybrid recall.

    Each document's `page_content` is the memory's text; its metadata holds `id`,
    `layer`, `timestamp` (ISO 8601), `confidence`, `retention`, `score`,
    `event_type`, `source`, `session_id` and `explanation` (why it ranked where it did).

    The fields (`k`, `time_range`, `layers`, `event_types`, `session_id`,
    `agent_id`, `reinforce`) are the defaults of
    `Hindsight.recall`; any of them can be changed for one call with keyword
    arguments, `retriever.invoke("printing", k=3, time_range="last_7_days")`, or
    through a config with LangChain's `configurable_fields`. The user id is fixed
    when the retriever is made: one retriever reads one user's memories.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: MemoryAPI = Field(exclude=True)
    user_id: str
    k: int = 5
    time_range: Any = None
    layers: list[str] | None = None
    event_types: list[str] | None = None
    session_id: str | None = None
    agent_id: str | None = None
    reinforce: bool = True

    def _recall_kwargs(self, overrides: dict[str, Any]) -> dict[str, Any]:
        overrides.pop("verbose", None)  # BaseRetriever.invoke passes its own option through
        options = RecallOptions.named({**{name: getattr(self, name) for name in RECALL_OPTIONS}, **overrides})
        return {"user_id": self.user_id, **vars(options)}  # the values are checked by recall, once

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                **overrides: Any) -> list[Document]:
        results = self.memory.recall(query, **self._recall_kwargs(overrides))
        return [document_from_scored(r) for r in results]

    async def _aget_relevant_documents(self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun,
                                       **overrides: Any) -> list[Document]:
        results = await self.memory.arecall(query, **self._recall_kwargs(overrides))
        return [document_from_scored(r) for r in results]
