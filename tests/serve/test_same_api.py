"""The conformance suite (`hindsight_core.testing.conformance`) on every implementation of `MemoryAPI`:
the embedded `Hindsight` on Qdrant Edge and on qdrant-client's local mode, and `HindsightClient` against a live
`hindsight serve`; then what only the client has to show.

The client must be a drop-in: same methods and arguments, the same result types
rebuilt from JSON, the same `HindsightError` subclasses for bad input, and the
same rankings as the embedded memory, without being a subclass of it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures

import pytest
from typing_extensions import get_protocol_members

from hindsight_core import Hindsight, MemoryAPI
from hindsight_core.remote import HindsightClient
from hindsight_core.testing import FakeEmbedder
from hindsight_core.testing.conformance import MemoryAPIConformance


class TestEmbeddedOnEdge(MemoryAPIConformance):
    @pytest.fixture
    def memory(self, tmp_path):
        with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder()) as memory:
            yield memory


class TestEmbeddedOnQdrantLocalMode(MemoryAPIConformance):
    @pytest.fixture
    def memory(self):
        qdrant_client = pytest.importorskip("qdrant_client", reason="qdrant-client's local mode needs the server extra")
        from hindsight_core.store import ServerStore

        store = ServerStore(client=qdrant_client.QdrantClient(":memory:"))
        with Hindsight(store=store, embedder=FakeEmbedder()) as memory:
            yield memory


class TestRemoteThroughServe(MemoryAPIConformance):
    @pytest.fixture
    def memory(self, served):
        with HindsightClient(served["url"]) as client:
            yield client


def test_the_two_are_siblings_under_one_contract():
    assert not issubclass(HindsightClient, Hindsight) and not issubclass(Hindsight, HindsightClient)
    assert Hindsight.holds_store is True and HindsightClient.holds_store is False
    contract = get_protocol_members(MemoryAPI)
    assert {"write", "recall", "forget", "get", "memories", "find", "consolidate", "users", "stats", "export_jsonl",
            "import_jsonl", "close", "holds_store"} <= contract
    on_the_classes = contract - {"config"}  # the embedded memory sets its config per instance
    assert sorted(n for n in on_the_classes if not (hasattr(Hindsight, n) and hasattr(HindsightClient, n))) == []


def test_the_client_defines_every_public_method_of_the_facade():
    public = {name for name in vars(Hindsight) if not name.startswith("_")} | {"__enter__", "__exit__"}
    assert sorted(name for name in public if not hasattr(HindsightClient, name)) == []


class _NoThreads(concurrent.futures.ThreadPoolExecutor):
    """An event loop's default executor that refuses work: whatever it is handed would have run in a thread."""

    def submit(self, fn, /, *args, **kwargs):
        raise AssertionError(f"{getattr(fn, '__name__', fn)} was sent to a worker thread")


def test_the_clients_async_twins_wait_on_the_event_loop_not_in_a_thread(served, user):
    async def turn(client):
        asyncio.get_running_loop().set_default_executor(_NoThreads())
        written = await client.awrite("I keep my passport in the blue drawer.", user_id=user)
        mine = await client.arecall("where is my passport", user_id=user, reinforce=False,
                                    where=lambda m: m.user_id == user)
        together = await asyncio.gather(*(client.arecall("passport", user_id=user, reinforce=False)
                                          for _ in range(5)))
        receipt = await client.aforget(user_id=user, memory_id=written.record.id)
        await client.aclose()
        return written, mine, together, receipt

    with HindsightClient(served["url"]) as client:
        written, mine, together, receipt = asyncio.run(turn(client))
    assert mine[0].memory.id == written.record.id
    assert all(found[0].memory.id == written.record.id for found in together)
    assert [r.id for r in receipt.removed] == [written.record.id]


def test_the_async_prompt_block_over_a_client_stays_on_the_event_loop(served, user):
    from hindsight_core.session.context import amemory_block

    async def turn(client):
        asyncio.get_running_loop().set_default_executor(_NoThreads())
        await client.awrite("My locker code at the gym is 4417.", user_id=user)
        block = await amemory_block(client, "what is my gym locker code?", user_id=user, k=3)
        nothing = await amemory_block(client, "thanks!", user_id=user)
        await client.aclose()
        return block, nothing

    with HindsightClient(served["url"]) as client:
        block, nothing = asyncio.run(turn(client))
    assert "4417" in block.text and block.tokens > 0
    assert nothing.text == "" and nothing.memories == ()


def test_the_server_reads_each_calls_names_from_the_contract(served, user):
    """The allow-lists are the option values' fields (or the call's signature): an unknown name is refused as
    before, with the same error, over raw HTTP and through the client."""
    import httpx

    from hindsight_core import InvalidInputError
    from hindsight_core.api import keywords
    from hindsight_core.contract.options import RECALL_OPTIONS, WRITE_OPTIONS

    assert keywords("write") == WRITE_OPTIONS and keywords("recall") == RECALL_OPTIONS
    assert keywords("memories") == ("include_inactive", "agent_id")
    answer = httpx.post(f"{served['url']}/api/v1/write", json={"text": "I like tea.", "user_id": user,
                                                               "colour": "green"}, trust_env=False).json()
    in_the_clients_words = f"write takes no option 'colour'; it takes text, user_id, {', '.join(WRITE_OPTIONS)}"
    assert answer["error"] == {"type": "InvalidInputError", "message": in_the_clients_words}
    with HindsightClient(served["url"]) as client:
        with pytest.raises(InvalidInputError) as refused:
            client.write("I like tea.", user_id=user, colour="green")
        assert str(refused.value) == in_the_clients_words
        assert client.memories(user_id=user) == []
    answer = httpx.post(f"{served['url']}/api/v1/memories", json={"user_id": user, "agent": "planner"},
                        trust_env=False).json()
    assert answer["error"] == {"type": "InvalidInputError", "message": "memories takes no option 'agent' (did you "
                               "mean 'agent_id'?); it takes user_id, include_inactive, agent_id"}
