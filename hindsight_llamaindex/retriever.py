"""`HindsightRetriever`: one user's memories as a LlamaIndex retriever."""

from __future__ import annotations

from typing import List, Optional

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle
from typing_extensions import Unpack

from hindsight_core import MemoryAPI
from hindsight_core.contract.options import RecallKeywords, RecallOptions
from hindsight_core.language.text import validate_id
from hindsight_core.session.asking import asking_as

from ._convert import node_from_result
from ._validate import ASKER, check_memory


class HindsightRetriever(BaseRetriever):
    """Retrieves a user's memories as `NodeWithScore`s, for query engines and chat engines.

        retriever = HindsightRetriever(memory, user_id="alice", k=5)
        engine = CondensePlusContextChatEngine.from_defaults(retriever, llm=llm)

    Each node's id is the memory's id, its text the memory's full text (defused
    the way `format_for_prompt` defuses it), its score the recall score, and its
    metadata holds `id`, `layer`, `timestamp` (ISO 8601), `confidence`,
    `retention`, `score` and `event_type`; only the date and event type are shown
    to the LLM. The options are `MemoryAPI.recall`'s (`RecallOptions`: `k`, `time_range`,
    `layers`, `event_types`, `session_id`, `agent_id`, `reinforce`), checked as recall
    checks them when the retriever is made; with `reinforce` (default) each retrieval
    counts as a recall.
    """

    def __init__(self, memory: MemoryAPI, *, user_id: str, callback_manager: Optional[CallbackManager] = None,
                 verbose: bool = False, **options: Unpack[RecallKeywords]) -> None:
        self._memory = check_memory(memory)
        self._user_id = validate_id(user_id)
        asked = RecallOptions.named(options)
        asked.checked(memory.config)  # refused now rather than at the first retrieval
        self._options = asked.keywords()
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    @property
    def user_id(self) -> str:
        return self._user_id

    def _retrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        with asking_as(ASKER):
            results = self._memory.recall(query_bundle.query_str, user_id=self._user_id, **self._options)
        return [node_from_result(r) for r in results]

    async def _aretrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        with asking_as(ASKER):
            results = await self._memory.arecall(query_bundle.query_str, user_id=self._user_id, **self._options)
        return [node_from_result(r) for r in results]
