"""What the agent saw: the recall log's bounds, consent and forgetting; adapters through the client write to it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from hindsight_core import Hindsight
from hindsight_core.events import Forgotten
from hindsight_core.remote import HindsightClient
from hindsight_core.remote.recall_log import RecallLog
from hindsight_core.remote.runner import BackgroundServer, ServeOptions, make_app
from hindsight_core.testing import FakeEmbedder, FrozenClock

from ..conftest import START

TEA = "I prefer green tea over coffee in the morning."
CODE = "My locker code is 3141 at the gym."


@pytest.fixture
def clock():
    return FrozenClock(START)


@pytest.fixture
def local(clock):
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        yield memory


def test_the_log_is_bounded_per_user_and_by_age(local, clock):
    local.write(TEA, user_id="alice")
    log = RecallLog(clock, max_entries=3, max_age=timedelta(days=2))
    for i in range(5):
        log.add("alice", f"tea {i}", local.recall("tea", user_id="alice", reinforce=False), caller="test")
    local.write(CODE, user_id="bob", force=True)
    log.add("bob", "anything", local.recall("anything", user_id="bob", reinforce=False), caller="test")
    assert [e.query for e in log.entries("alice")] == ["tea 4", "tea 3", "tea 2"]  # newest first, 3 kept
    assert [e.query for e in log.entries("bob")] == ["anything"]
    clock.advance(days=3)
    assert log.entries("alice") == [] and log.entries("bob") == []


def test_entries_keep_the_results_their_explanations_and_the_injected_block(local, clock):
    local.write(TEA, user_id="alice")
    log = RecallLog(clock)
    results = local.recall("green tea", user_id="alice", reinforce=False)
    entry = log.add("alice", "green tea", results, caller="hindsight_langchain", session="monday")
    assert entry.results[0].memory.raw_content == TEA and "keyword #1" in str(entry.results[0].explanation)
    assert entry.block == local.format_for_prompt(results) and TEA in entry.block
    assert log.sessions("alice") == [("monday", 1)]
    assert log.entries("alice", session="tuesday") == []


def test_without_consent_nothing_is_kept(local, clock):
    log = RecallLog(clock, enabled=False)
    assert log.add("alice", "tea", [], caller="test") is None and log.entries("alice") == []


def test_forgetting_takes_a_memory_out_of_every_entry_and_a_user_out_entirely(local, clock):
    local.write(TEA, user_id="alice")
    local.write(CODE, user_id="alice", force=True)
    log = RecallLog(clock)
    local.on_forget(log.forget)
    log.add("alice", "tea and locker", local.recall("tea locker code", user_id="alice", k=5, reinforce=False),
            caller="test")
    code = next(r for r in local.memories(user_id="alice") if r.raw_content == CODE)
    local.forget(user_id="alice", memory_id=code.id)
    [entry] = log.entries("alice")
    assert [r.memory.raw_content for r in entry.results] == [TEA] and entry.withdrawn == 1
    assert CODE not in entry.block and TEA in entry.block
    local.forget(user_id="alice", everything=True)
    assert log.entries("alice") == []
    assert log.forget(Forgotten.of("nobody", None)) == 0


def test_forgetting_a_topic_drops_the_queries_about_it(local, clock):
    """The LangChain middleware recalls with the user's message word for word: a forget about it takes the entry."""
    local.write(TEA, user_id="alice")
    log = RecallLog(clock)
    local.on_forget(log.forget)
    message = f"Please remember: {CODE}"
    log.add("alice", message, local.recall(message, user_id="alice", k=5, reinforce=False), caller="test")
    log.add("alice", "tea", local.recall("tea", user_id="alice", k=5, reinforce=False), caller="test")
    local.write(message, user_id="alice", force=True)  # stored after the recall, as the middleware does
    local.forget(user_id="alice", about=CODE)
    assert [e.query for e in log.entries("alice")] == ["tea"]
    assert all(CODE not in e.query + e.block for e in log.entries("alice"))


def test_the_log_keys_users_as_the_facade_does(local, clock):
    log = RecallLog(clock)
    local.on_forget(log.forget)
    local.write(TEA, user_id="caf\u00e9")
    log.add("cafe\u0301", "tea", local.recall("tea", user_id="cafe\u0301", reinforce=False), caller="test")
    assert [e.query for e in log.entries("caf\u00e9")] == ["tea"]
    local.forget(user_id="cafe\u0301", everything=True)
    assert log.entries("cafe\u0301") == []
    log.consent("caf\u00e9", False)
    local.write(TEA, user_id="caf\u00e9")
    tea = local.recall("tea", user_id="cafe\u0301", reinforce=False)
    assert log.add("cafe\u0301", "tea", tea, caller="test") is None and not log.keeps("cafe\u0301")


@pytest.mark.parametrize("host, asked, kept", [("127.0.0.1", None, True), ("0.0.0.0", None, False),
                                               ("0.0.0.0", True, True), ("127.0.0.1", False, False)])
def test_consent_is_on_for_loopback_and_off_elsewhere_unless_asked(local, host, asked, kept):
    options = ServeOptions(host=host, token="server-token-1234567890abcdef", recall_log=asked)
    _, log = make_app(local, options, 8765)
    assert log.enabled is kept


def test_a_langchain_agent_turn_through_the_client_is_in_the_log_as_the_model_saw_it(local):
    pytest.importorskip("langchain")
    from langchain.agents import create_agent

    from hindsight_langchain import HindsightMiddleware
    from hindsight_langchain.testing import RecordingChatModel

    local.write(TEA, user_id="alice")
    with BackgroundServer(local, ServeOptions(port=0)) as server, \
            HindsightClient(server.url, session="turn-1") as client:
        model = RecordingChatModel(responses=["Green tea it is."])
        agent = create_agent(model, system_prompt="You are helpful.", middleware=[HindsightMiddleware(client)])
        agent.invoke({"messages": [{"role": "user", "content": "What should I drink this morning, tea?"}]},
                     context={"user_id": "alice"})
        [entry] = client.recall_log(user_id="alice")
    assert entry["caller"] == "hindsight_langchain" and entry["session"] == "turn-1"
    assert entry["query"].startswith("What should I drink")
    assert [r.memory.raw_content for r in entry["results"]] == [TEA]
    assert entry["block"] and entry["block"] in model.system_prompts()[0]  # exactly what the model was given


def test_the_llamaindex_retriever_takes_the_client(local):
    pytest.importorskip("llama_index.core")
    from hindsight_llamaindex import HindsightRetriever

    local.write(TEA, user_id="alice")
    with BackgroundServer(local, ServeOptions(port=0)) as server, HindsightClient(server.url) as client:
        nodes = HindsightRetriever(client, user_id="alice", k=3, reinforce=False).retrieve("green tea")
        [entry] = client.recall_log(user_id="alice")
    assert TEA in nodes[0].node.get_content()
    assert entry["caller"] == "hindsight_llamaindex"


def test_a_user_can_withdraw_consent_and_give_it_back(local):
    local.write(TEA, user_id="alice")
    local.write(TEA, user_id="bob")
    with BackgroundServer(local, ServeOptions(port=0)) as server, HindsightClient(server.url) as client:
        client.recall("tea", user_id="alice", reinforce=False)
        client.recall("tea", user_id="bob", reinforce=False)
        assert client.recall_log_consent(user_id="alice", given=False) is False
        assert client.recall_log(user_id="alice") == []  # what was kept is dropped
        client.recall("tea", user_id="alice", reinforce=False)
        assert client.recall_log(user_id="alice") == []  # and nothing more is kept
        assert len(client.recall_log(user_id="bob")) == 1  # bob's own say is his
        assert client.recall_log_consent(user_id="alice", given=True) is True
        client.recall("green tea", user_id="alice", reinforce=False)
        assert [e["query"] for e in client.recall_log(user_id="alice")] == ["green tea"]


def test_a_recall_that_found_nothing_is_not_kept(local, clock):
    """A user with no memories gets nothing back: the log keeps no query for them (red team finding 13: 3,000 such
    recalls of 32 KB each took the server from 103 to 198 MB)."""
    log = RecallLog(clock)
    asked = "tea " * 8000
    for n in range(50):
        assert log.add(f"nobody-{n}", asked, local.recall(asked, user_id=f"nobody-{n}", reinforce=False),
                       caller="api") is None
    assert all(log.entries(f"nobody-{n}") == [] for n in range(50))
    local.write(TEA, user_id="alice")
    assert log.add("alice", "tea", local.recall("tea", user_id="alice", reinforce=False), caller="api") is not None
