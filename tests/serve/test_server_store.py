"""`hindsight serve` over the Qdrant-server store, exercised on qdrant-client's local mode (no Qdrant server here)."""

from __future__ import annotations

from qdrant_client import QdrantClient

from hindsight_core import Hindsight
from hindsight_core.remote import HindsightClient
from hindsight_core.remote.runner import BackgroundServer, ServeOptions
from hindsight_core.store import ServerStore
from hindsight_core.testing import FakeEmbedder


def test_two_clients_share_a_server_held_qdrant_store(tmp_path):
    store = ServerStore(client=QdrantClient(path=str(tmp_path / "qdrant")))
    with Hindsight(store=store, embedder=FakeEmbedder()) as memory, \
            BackgroundServer(memory, ServeOptions(port=0)) as server, \
            HindsightClient(server.url) as first, HindsightClient(server.url) as second:
        first.write("I prefer green tea over coffee in the morning.", user_id="alice")
        second.write("My sister Anna lives in Lisbon.", user_id="alice")
        assert [m.raw_content for m in first.memories(user_id="alice")] == [
            "I prefer green tea over coffee in the morning.", "My sister Anna lives in Lisbon."]
        found = second.recall("green tea", user_id="alice", reinforce=False)
        assert found[0].memory.raw_content.startswith("I prefer green tea")
        receipt = first.forget(user_id="alice", about="Anna lives in Lisbon")
        assert receipt.count == 1 and [m.summary for m in second.memories(user_id="alice")] == [
            "I prefer green tea over coffee in the morning."]
