from hindsight_core import Hindsight
from hindsight_llamaindex import hindsight_memory
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms.mock import MockLLM  # use any LlamaIndex LLM, e.g. OpenAI(model="gpt-4o-mini")

memory = Hindsight(location=":memory:")  # or Hindsight(path="./memories") to keep them across runs
llm = MockLLM()  # echoes its prompt, so you see exactly what the model receives

# Monday: alice states a preference in one chat session
monday = SimpleChatEngine.from_defaults(llm=llm, memory=hindsight_memory(user_id="alice", memory=memory))
monday.chat("From now on, print all my reports in A4 landscape.")

# Thursday: a new session; the preference is in the system message of its first call
thursday = SimpleChatEngine.from_defaults(llm=llm, memory=hindsight_memory(user_id="alice", memory=memory))
print(thursday.chat("Get the sales summary ready for the board handout."))
