"""hindsight for LlamaIndex: long-term memory for chat engines, query engines and agents.

    from hindsight_core import Hindsight
    from hindsight_llamaindex import hindsight_memory

    store = Hindsight(path="./memories")
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=hindsight_memory(user_id="alice", memory=store))

- `HindsightMemoryBlock` / `hindsight_memory`: a `Memory` block that recalls the
  top memories into the system message and offers each turn to the write gate;
  `hindsight_memory` returns a `HindsightChatMemory`, which stores a chat that is only written;
- `HindsightRetriever`: memories as `NodeWithScore`s for query and chat engines;
- `HindsightToolSpec`: search and save tools for agents, bound to one user;
- `llm_gate`, `llm_judge`, `llm_summarizer`, `as_text_function`: a LlamaIndex LLM as hindsight's evaluator,
  judge of knowledge or summariser.
"""

from .llm import as_text_function, llm_gate, llm_judge, llm_summarizer
from .memory_block import HindsightChatMemory, HindsightMemoryBlock, hindsight_memory
from .retriever import HindsightRetriever
from .tools import HindsightToolSpec

__all__ = [
    "HindsightChatMemory", "HindsightMemoryBlock",
    "HindsightRetriever", "HindsightToolSpec", "as_text_function", "hindsight_memory",
    "llm_gate", "llm_judge", "llm_summarizer",
]
