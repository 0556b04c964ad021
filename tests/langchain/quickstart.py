from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver

from hindsight_core import Hindsight
from hindsight_langchain import HindsightMiddleware
from hindsight_langchain.testing import RecordingChatModel

# Any LangChain chat model works, e.g. init_chat_model("openai:gpt-4.1-mini").
# This offline fake answers from a script and records the prompts it is sent.
model = RecordingChatModel(responses=["Sure, I will do that.", "Here is the summary, ready to print."])

memory = Hindsight(location=":memory:")  # or Hindsight(path="./memories"), or Hindsight(url="http://qdrant:6333")
agent = create_agent(
    model,
    system_prompt="You are a helpful assistant.",
    middleware=[HindsightMiddleware(memory)],  # the one argument that adds long-term memory
    checkpointer=InMemorySaver(),
)

# Monday, one conversation: the turn goes through hindsight's write gate when it ends.
agent.invoke(
    {"messages": [{"role": "user", "content": "From now on, print all my reports in A4 landscape."}]},
    {"configurable": {"thread_id": "monday"}},
    context={"user_id": "alice"},
)

# Thursday, a new conversation that never mentions paper: the preference is recalled
# into the system prompt the model receives (and is not saved in the thread's state).
agent.invoke(
    {"messages": [{"role": "user", "content": "Get the sales summary ready for the board handout."}]},
    {"configurable": {"thread_id": "thursday"}},
    context={"user_id": "alice"},
)
print(model.system_prompts()[-1])
