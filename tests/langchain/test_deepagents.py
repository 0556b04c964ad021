"""Deep Agents (`deepagents`) keeping its `/memories/` files in `HindsightStore`.

The agent is the real `create_deep_agent` graph with its real filesystem tools; only the
model is scripted (`RecordingChatModel` answering with tool calls), so it runs offline.
"""

from __future__ import annotations

import pytest

pytest.importorskip("deepagents")

from deepagents import create_deep_agent  # noqa: E402
from deepagents.backends import CompositeBackend, StateBackend, StoreBackend  # noqa: E402

from hindsight_core import Hindsight, InvalidInputError  # noqa: E402
from hindsight_langchain import HindsightStore  # noqa: E402
from hindsight_langchain.testing import RecordingChatModel  # noqa: E402

from .helpers import says, tool_call  # noqa: E402

NOTES = "/memories/preferences.md"
FIRST = "Reports: A4 landscape.\nTone: short and plain.\n"


def alice_files(runtime) -> tuple[str, ...]:
    """Deep Agents' per-user namespace, with the user the store maps to hindsight's user id."""
    return ("memories", "alice", "filesystem")


def deep_agent(memory: Hindsight, responses: list) -> tuple:
    store = HindsightStore(memory)
    model = RecordingChatModel(responses=responses)
    backend = CompositeBackend(default=StateBackend(), routes={"/memories/": StoreBackend(store=store,
                                                                                       namespace=alice_files)})
    return create_deep_agent(model=model, backend=backend, store=store), model


def tool_answers(result: dict) -> list[str]:
    return [str(m.content) for m in result["messages"] if m.type == "tool"]


def test_a_file_written_in_one_thread_is_listed_read_and_edited_by_a_new_thread_after_reopening(
        tmp_path, clock, real_embedder):
    with Hindsight(path=tmp_path / "store", embedder=real_embedder, clock=clock) as memory:
        agent, _ = deep_agent(memory, [tool_call("write_file", {"file_path": NOTES, "content": FIRST}), "Saved."])
        written = agent.invoke(says("Remember how I like my reports."), config={"configurable": {"thread_id": "t1"}})
        assert not any("error" in answer.lower() for answer in tool_answers(written)), tool_answers(written)

    with Hindsight(path=tmp_path / "store", embedder=real_embedder, clock=clock) as memory:  # reopened
        script = [tool_call("ls", {"path": "/memories/"}, "c1"),
                  tool_call("read_file", {"file_path": NOTES}, "c2"),
                  tool_call("edit_file", {"file_path": NOTES, "old_string": "short and plain",
                                          "new_string": "formal"}, "c3"),
                  tool_call("read_file", {"file_path": NOTES}, "c4"),
                  "Updated."]
        agent, _ = deep_agent(memory, script)
        result = agent.invoke(says("Use a formal tone from now on."), config={"configurable": {"thread_id": "t2"}})
        listed, read, edited, reread = tool_answers(result)
        assert NOTES in listed
        assert "A4 landscape" in read and "short and plain" in read
        assert "error" not in edited.lower(), edited
        assert "formal" in reread and "short and plain" not in reread
        # the file is one keyed memory of alice's (the route strips "/memories"), in hindsight's own terms too
        item = HindsightStore(memory).get(("memories", "alice", "filesystem"), "/preferences.md")
        assert item is not None and "formal" in item.value["content"]
        assert any("formal" in record.raw_content for record in memory.memories(user_id="alice"))


def test_deep_agents_default_namespace_is_refused_with_what_to_pass(fake_memory):
    store = HindsightStore(fake_memory)
    backend = StoreBackend(store=store, namespace=lambda runtime: ("filesystem",))
    with pytest.raises(InvalidInputError) as refused:
        backend.ls("/")
    message = str(refused.value)
    assert "('memories', '<user_id>', 'filesystem')" in message  # exactly what to pass instead
    assert "HindsightStore(memory, prefix=())" in message  # or the store for (user_id, 'filesystem')


def test_the_user_first_namespace_of_deep_agents_docs_works_with_an_empty_prefix(fake_memory):
    backend = StoreBackend(store=HindsightStore(fake_memory, prefix=()), namespace=lambda rt: ("alice", "filesystem"))
    assert backend.write("/notes.md", "Prefers tea.").error is None
    assert "Prefers tea." in backend.read("/notes.md").file_data["content"]
    assert fake_memory.memories(user_id="alice")  # stored as alice's
