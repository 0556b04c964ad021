"""A store written by hindsight 0.1 (qdrant-client local mode) opens with a clear message and migrates."""

import hashlib
import uuid
from datetime import datetime, timezone

import pytest

from hindsight_core import Hindsight, MemoryRecord, maintenance
from hindsight_core.store import LegacyStoreError
from hindsight_core.store import EdgeStore
from hindsight_core.contract.records import record_to_dict
from hindsight_core.testing import FakeEmbedder, FrozenClock


def write_legacy_store(path, user_id, texts, embedder):
    """The 0.1 layout, written with the same qdrant-client calls 0.1's QdrantStore made."""
    from qdrant_client import QdrantClient, models

    client = QdrantClient(path=str(path))
    client.create_collection("hindsight_users", vectors_config={})
    name = "hindsight_u_" + hashlib.sha256(user_id.encode()).hexdigest()[:32]
    client.create_collection(name, vectors_config={"dense": models.VectorParams(size=embedder.dimension,
                                                                              distance=models.Distance.COSINE)})
    entry = {"user_id": user_id, "collection": name, "embedding_model": embedder.name,
             "dimension": embedder.dimension}
    namespace = uuid.UUID("6f1d8a52-3c2e-4b7a-9a57-1f0c9f3b8e21")
    client.upsert("hindsight_users", points=[models.PointStruct(id=str(uuid.uuid5(namespace, user_id)), vector={},
                                                                payload=entry)])
    records = [MemoryRecord(id=str(uuid.uuid4()), user_id=user_id, summary=t, raw_content=t,
                            timestamp=datetime(2026, 1, 1 + i, tzinfo=timezone.utc), event_type="fact",
                            embedding_model=embedder.name, entities=["Orion"] if "Orion" in t else [])
               for i, t in enumerate(texts)]
    vectors = embedder.embed(texts)
    client.upsert(name, points=[models.PointStruct(id=r.id, vector={"dense": v.tolist()},
                                                   payload=record_to_dict(r)) for r, v in zip(records, vectors)])
    client.close()
    return records


def test_a_legacy_store_is_refused_clearly_and_migrates_without_loss(tmp_path):
    embedder = FakeEmbedder()
    legacy = tmp_path / "old"
    records = write_legacy_store(legacy, "alice", ["Project Orion uses the blue theme.",
                                                   "The door code is 7781.", "Maria approves travel."], embedder)
    with pytest.raises(LegacyStoreError, match="migrate --from-legacy"):
        EdgeStore(legacy)
    new = EdgeStore(tmp_path / "new")
    report = maintenance.migrate_legacy(legacy, new)
    assert report.users == ["alice"] and report.copied == 3
    again = maintenance.migrate_legacy(legacy, new)  # resumable: what is there is skipped
    assert again.copied == 0 and again.skipped == 3
    with Hindsight(store=new, embedder=embedder, clock=FrozenClock(datetime(2026, 1, 10, tzinfo=timezone.utc))) as hs:
        held = {r.id: r for r in hs.memories(user_id="alice")}
        assert set(held) == {r.id for r in records}
        for old in records:
            assert record_to_dict(held[old.id]) == record_to_dict(old)
        assert hs.recall("door code", user_id="alice", k=1)[0].memory.id == records[1].id


def test_the_command_line_moves_a_legacy_store(tmp_path):
    import subprocess
    import sys

    from hindsight_core.testing import FakeEmbedder

    legacy = tmp_path / "old"
    write_legacy_store(legacy, "alice", ["Project Orion uses the blue theme."], FakeEmbedder())
    out = subprocess.run([sys.executable, "-m", "hindsight_core.cli", "--store", str(tmp_path / "new"), "migrate",
                          "--from-legacy", str(legacy)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "copied 1 memories of 1 users" in out.stdout and "fake-hash-embedder" in out.stdout
    refused = subprocess.run([sys.executable, "-m", "hindsight_core.cli", "--store", str(legacy), "stats"],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "--from-legacy" in refused.stderr and "Traceback" not in refused.stderr
