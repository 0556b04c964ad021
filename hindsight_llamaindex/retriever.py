"""`HindsightRetriever`: one user's memories as a LlamaIndex retriever."""

from __future__ import annotations

from typing import Iterable, List, Optional

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle

from hindsight_core import Layer, MemoryAPI
from hindsight_core.language.text import validate_id
from hindsight_core.language.timerange import TimeRangeLike

from ._convert import node_from_result
from ._validate import check_k, check_memory


class HindsightRetriever(BaseRetriever):
    """Retrieves a user's memories as `NodeWithScore`s, for query engines and chat engines.

        retriever = HindsightRetriever(memory, user_id="alice", k=5)
        engine = CondensePlusContextChatEngine.from_defaults(retriever, llm=llm)

    Each node's id is the memory's id, its text the memory's full text (defused
    the way `format_for_prompt` defuses it), its score the recall score, and its
    metadata holds `id`, `layer`, `timestamp` (ISO 8601), `confidence`,
    `retention`, `score` and `event_type`; only the date and event type are shown
    to the LLM. `time_range`, `layers`, `event_types` and `session_id` filter as in
    `Hindsight.recall`; with `reinforce` (default) each retrieval counts as a recall.
    """

    def __init__(self, memory: MemoryAPI, *, user_id: str, k: int = 5, time_range: TimeRangeLike = None,
                 layers: Optional[Iterable[Layer | str]] = None, event_types: Optional[Iterable[str]] = None,
                 session_id: Optional[str] = None, reinforce: bool = True,
                 callback_manager: Optional[CallbackManager] = None, verbose: bool = False) -> None:
        self._memory = check_memory(memory)
        check_k(memory, k)
        self._user_id = validate_id(user_id)
        self._options = dict(k=k, time_range=time_range, layers=list(layers) if layers is not None else None,
                             event_types=list(event_types) if event_types is not None else None,
                             session_id=validate_id(session_id, what="session_id", required=False),
                             reinforce=reinforce)
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    @property
    def user_id(self) -> str:
        return self._user_id  # type: ignore[return-value]

    def _retrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        results = self._memory.recall(query_bundle.query_str, user_id=self._user_id, **self._options)
        return [node_from_result(r) for r in results]

    async def _aretrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        results = await self._memory.arecall(query_bundle.query_str, user_id=self._user_id, **self._options)
        return [node_from_result(r) for r in results]
