"""hindsight for LangChain 1.x: long-term memory for agents, retrievers, LangGraph stores and tools.

    from langchain.agents import create_agent
    from hindsight_core import Hindsight
    from hindsight_langchain import HindsightMiddleware

    memory = Hindsight()
    agent = create_agent(model, tools, middleware=[HindsightMiddleware(memory)])
    agent.invoke({"messages": [{"role": "user", "content": "..."}]}, context={"user_id": "alice"})

Each piece only translates between LangChain's types and hindsight's:

- `HindsightMiddleware`: recalled memories in the system prompt, each turn through the write gate;
- `HindsightRetriever`: one user's memories as `Document`s;
- `HindsightStore`: a LangGraph `BaseStore` (works with `create_agent(store=...)` and LangMem's tools);
- `memory_tools` / `memory_search_tool` / `memory_write_tool`: tools bound to one user;
- `llm_gate` / `llm_judge` / `llm_summarizer` / `as_text_function`: a chat model as hindsight's LLM evaluator,
  judge of knowledge or summariser.

`hindsight_langchain.classic.HindsightMemory` serves legacy chains (needs the `classic` extra);
`hindsight_langchain.testing.RecordingChatModel` is a fake model for testing your own agents.
"""

from .llm import as_text_function, llm_gate, llm_judge, llm_summarizer
from .middleware import HindsightMiddleware
from .retriever import HindsightRetriever
from .store import HindsightStore
from .tools import memory_search_tool, memory_tools, memory_write_tool

__all__ = [
    "HindsightMiddleware", "HindsightRetriever", "HindsightStore", "as_text_function", "llm_gate", "llm_judge", "llm_summarizer",
    "memory_search_tool", "memory_tools", "memory_write_tool",
]
