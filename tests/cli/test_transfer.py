"""`hindsight export` and `hindsight import`: a lossless round trip of every field, vectors included."""

from __future__ import annotations

import json
from dataclasses import fields
from datetime import timedelta

import numpy as np
import pytest

from hindsight_core import EdgeStore, Hindsight, MemoryRecord, maintenance
from hindsight_core.store.base import ARCHIVE, MEMORIES
from hindsight_core.testing import FakeEmbedder

from .conftest import FAKE


def build_store(path, clock) -> None:
    """Two users, with every field away from its default somewhere, and an archived memory."""
    with Hindsight(path=path, embedder=FakeEmbedder(), clock=clock) as memory:
        memory.write("From now on, print all my reports in A4 landscape.", user_id="alice", session_id="s-1",
                     agent_id="planner", metadata={"channel": "chat", "tags": ["print", "reports"]})
        memory.write("以后所有报表都用A4纸横向打印", user_id="alice", source="agent", confidence=0.55,
                     entities=["A4", "报表"])
        clock.advance(days=3)
        memory.write("The staging server restart took 14 minutes.", user_id="bob", force=True, source="tool",
                     event_type="task_result", timestamp=clock() - timedelta(days=200))
        memory.write("I am allergic to peanuts, so never suggest dishes with peanuts.", user_id="bob")
        clock.advance(days=1)
        memory.recall("print reports", user_id="alice")  # access counts and last_accessed move
        clock.advance(days=1)
        memory.recall("print reports", user_id="alice")
    store = EdgeStore(path)
    try:
        report = maintenance.archive(store, now=clock(), older_than_days=100)
        assert report.count == 1  # bob's old restart
    finally:
        store.close()


def snapshot(path) -> dict:
    """Every (user, space, id) -> (record, vector, extra payload) in a store."""
    store = EdgeStore(path)
    try:
        return {(user, space, record.id): (record, vector, extra)
                for user in store.users() for space in (MEMORIES, ARCHIVE)
                for record, vector, extra in store.load_space(user, space)}
    finally:
        store.close()


def records(lines: list[str]) -> list[dict]:
    return sorted((json.loads(line) for line in lines[1:]), key=lambda d: d["record"]["id"])


def test_export_import_round_trip_keeps_every_field(hs, tmp_path, clock):
    build_store(hs.store, clock)
    before = snapshot(hs.store)
    assert len(before) == 4 and sum(space == ARCHIVE for _, space, _ in before) == 1
    changed = {f.name for f in fields(MemoryRecord)
               if len({repr(getattr(r, f.name)) for r, _, _ in before.values()}) > 1}
    assert changed >= {"user_id", "session_id", "agent_id", "entities", "confidence", "source", "access_count",
                       "last_accessed", "status", "metadata", "event_type", "decay_rate"}  # the test has teeth

    dump = tmp_path / "memories.jsonl"
    out = hs("export", str(dump))
    assert "exported 3 memories and 1 archived of 2 users" in out.stderr
    copy = tmp_path / "copy"
    imported = hs("--store", str(copy), "import", str(dump)).stdout
    assert "imported 3 memories and 1 archived of 2 users; 0 re-embedded" in imported

    after = snapshot(copy)
    assert set(after) == set(before)
    for key, (record, vector, extra) in before.items():
        again, again_vector, again_extra = after[key]
        for f in fields(MemoryRecord):
            assert getattr(again, f.name) == getattr(record, f.name), (key, f.name)
        assert again_vector.tobytes() == vector.tobytes()  # bit for bit
        assert again_extra == extra  # the archive stamp (when, and the status to restore)

    second = tmp_path / "again.jsonl"
    hs("--store", str(copy), "export", str(second))
    assert records(second.read_text().splitlines()) == records(dump.read_text().splitlines())

    # the copy is a working store: recall and restore behave as in the original
    hs("--store", str(copy), "archive", "--restore")
    with Hindsight(path=copy, embedder=FakeEmbedder()) as memory:
        assert len(memory.memories(user_id="bob")) == 2
        assert memory.recall("print reports", user_id="alice")[0].memory.session_id == "s-1"


def test_export_without_vectors_is_re_embedded_on_import(hs, tmp_path, clock):
    build_store(hs.store, clock)
    before = snapshot(hs.store)
    dump = tmp_path / "small.jsonl"
    hs("export", str(dump), "--no-vectors", "--no-archive", "--user", "alice")
    assert all("vector" not in json.loads(line) for line in dump.read_text().splitlines()[1:])
    copy = tmp_path / "copy"
    assert "2 re-embedded" in hs("--store", str(copy), "import", str(dump)).stdout
    after = snapshot(copy)
    assert {k[0] for k in after} == {"alice"}
    for key, (record, vector, _) in after.items():
        assert record == before[key][0]
        assert np.allclose(vector, before[key][1], atol=1e-6)  # the same (deterministic) model


def test_import_into_another_model_re_embeds_with_the_default_model(hs, tmp_path, clock):
    from hindsight_core.embed.multilingual import E5Embedder

    build_store(hs.store, clock)
    dump = tmp_path / "memories.jsonl"
    hs("export", str(dump))
    copy = tmp_path / "copy"
    assert "4 re-embedded with multilingual-e5-small" in hs("--store", str(copy), "import", str(dump),
                                                            model=None).stdout
    after = snapshot(copy)
    e5 = E5Embedder()
    for (_, _, _), (record, vector, _) in after.items():
        assert record.embedding_model == "multilingual-e5-small" and vector.shape == (384,)
        assert np.allclose(vector, e5.embed([record.raw_content])[0], atol=1e-5)
    with Hindsight(path=copy, embedder=e5) as memory:
        top = memory.recall("Which paper size should the sales report use?", user_id="alice", k=1)
        assert "A4" in top[0].memory.raw_content


def test_importing_twice_stores_each_memory_once(hs, tmp_path, clock):
    build_store(hs.store, clock)
    dump = tmp_path / "memories.jsonl"
    hs("export", str(dump))
    hs("import", str(dump))
    assert len(snapshot(hs.store)) == 4


@pytest.mark.parametrize("content, message", [
    ("", "empty"),
    ('{"hello": 1}\n', "not a hindsight export"),
    ('{"format": "hindsight-export", "version": 99}\n', "newer than"),
    ('{"format": "hindsight-export", "version": 1}\nnot json\n', "line 2 is not JSON"),
    ('{"format": "hindsight-export", "version": 1}\n{"record": {"id": "x"}}\n', "line 2: not a valid memory"),
    ('{"format": "hindsight-export", "version": 1}\n{"record": {"id": "x", "user_id": "u", "summary": "s", '
     '"raw_content": "r", "timestamp": "2026-01-01T00:00:00+00:00"}}\n', "badly formed hexadecimal UUID"),
    ('{"format": "hindsight-export", "version": 1}\n{"record": {"id": "x", "user_id": "*", "summary": "s", '
     '"raw_content": "r", "timestamp": "2026-01-01T00:00:00+00:00"}}\n', "wildcard"),
    ('{"format": "hindsight-export", "version": 1}\n{"record": {"id": "x", "user_id": "u", "summary": "s", '
     '"raw_content": "r", "timestamp": "2026-01-01T00:00:00"}}\n', "no timezone"),
])
def test_a_bad_file_is_refused_with_the_line_and_nothing_stored(hs, tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    result = hs("import", str(path), ok=False)
    assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output
    assert snapshot(hs.store) == {}


def test_import_refuses_a_user_embedded_with_another_model(hs, tmp_path, clock):
    build_store(hs.store, clock)
    dump = tmp_path / "memories.jsonl"
    hs("export", str(dump))
    other = tmp_path / "other"
    with Hindsight(path=other, embedder=FakeEmbedder(dimension=32, name="another-model")) as memory:
        memory.remember("Project Orion uses the blue theme.", user_id="alice", force=True)
    result = hs("--store", str(other), "import", str(dump), model=FAKE, ok=False)
    assert result.exit_code == 1 and "hindsight migrate" in result.output
