"""`HindsightRetriever`: one user's memories as a LangChain retriever."""

from __future__ import annotations

import dataclasses
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from hindsight_core import MemoryAPI
from hindsight_core.contract.options import RECALL_OPTIONS, RecallKeywords, RecallOptions

from hindsight_core.session.asking import asking_as

from ._context import ASKER
from ._convert import document_from_scored


class HindsightRetriever(BaseRetriever):
    """Recall one user's memories as `Document`s, best first, through hindsight's hybrid recall.

    Each document's `page_content` is the memory's text; its metadata holds `id`,
    `layer`, `timestamp` (ISO 8601), `confidence`, `retention`, `score`,
    `event_type`, `source`, `session_id` and `explanation` (why it ranked where it did).

    Its other fields are the recall options (`RecallOptions`: `k`, `time_range`,
    `layers`, `event_types`, `session_id`, `agent_id`, `reinforce`), with their defaults,
    one field each and derived from the options, so a new option is a field here too.
    Any of them can be changed for one call with keyword arguments,
    `retriever.invoke("printing", k=3, time_range="last_7_days")`, or through a config
    with LangChain's `configurable_fields`. The user id is fixed when the retriever is
    made: one retriever reads one user's memories.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: MemoryAPI = Field(exclude=True)
    user_id: str
    # one field per recall option, with its default; the values are checked by recall, once (`RecallOptions.checked`)
    for _option in dataclasses.fields(RecallOptions):
        __annotations__[_option.name] = "Any"
        locals()[_option.name] = _option.default
    del _option

    def _options(self, overrides: dict[str, Any]) -> RecallKeywords:
        overrides.pop("verbose", None)  # BaseRetriever.invoke passes its own option through
        return RecallOptions.named({**{name: getattr(self, name) for name in RECALL_OPTIONS}, **overrides}).keywords()

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                **overrides: Any) -> list[Document]:
        with asking_as(ASKER):
            results = self.memory.recall(query, user_id=self.user_id, **self._options(overrides))
        return [document_from_scored(r) for r in results]

    async def _aget_relevant_documents(self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun,
                                       **overrides: Any) -> list[Document]:
        with asking_as(ASKER):
            results = await self.memory.arecall(query, user_id=self.user_id, **self._options(overrides))
        return [document_from_scored(r) for r in results]
