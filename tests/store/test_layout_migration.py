"""A store of format 2 (one Edge shard per user and space) moves to the shared shards once, when opened,
keeping every memory, vector and key; a move a crash interrupted resumes."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from hindsight_core import Hindsight
from hindsight_core.store import EdgeStore, edge_layout
from hindsight_core.store import points as pts
from hindsight_core.store.edge_files import bucket_of, shard_config, shard_name, user_dir_name
from hindsight_core.store.sealing import KeyFile
from hindsight_core.testing import FakeEmbedder
from hindsight_core.types import MemoryRecord

from .old_layout import write_old_key_files

EMBED = FakeEmbedder()
T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)
USERS = {"alice": ["Alice keeps the Orion notes in the blue folder.", "Alice's locker code is 4411."],
         "bob": ["Bob drinks green tea in the morning.", "鲍勃的猫叫团子，是一只橘猫。", "Bob moved to Porto."]}


def write_format2_store(root: Path) -> dict[str, list[MemoryRecord]]:
    """A store as format 2 wrote it: users/<hash>/{user.json, keys.sqlite, memories/, archive/}, FORMAT 2."""
    from qdrant_edge import EdgeShard, Point, SparseVector, UpdateOperation

    (root / "users").mkdir(parents=True)
    (root / "meta").mkdir()
    (root / "FORMAT").write_text("2\n")
    written = {}
    sealing = KeyFile(":memory:")  # the keys, written to each user's own files at the end
    for user, texts in USERS.items():
        folder = root / "users" / user_dir_name(user)
        folder.mkdir()
        (folder / "user.json").write_text(json.dumps({"user_id": user, "embedding_model": EMBED.name,
                                                      "dimension": EMBED.dimension, "format": 2}))
        records = [MemoryRecord(id=str(uuid.uuid4()), user_id=user, summary=t, raw_content=t,
                                timestamp=T0 + timedelta(hours=i), embedding_model=EMBED.name, session_id="s1")
                   for i, t in enumerate(texts)]
        for space, chosen in (("memories", records), ("archive", records[:1])):
            keys = sealing.of(folder.name, space)
            ids_key = sealing.of(folder.name, "memories")
            shard = EdgeShard.create(str(folder / space), shard_config(EMBED.dimension))
            vectors = EMBED.embed([r.raw_content for r in chosen])
            shard.update(UpdateOperation.upsert_points([
                Point(id=r.id, vector={pts.DENSE: v.tolist(), pts.SPARSE: SparseVector(
                    *pts.document_terms(pts.keyword_text(r)))},
                    payload=pts.to_payload(r, seal=keys.seal, digest=ids_key.id_digest))
                for r, v in zip(chosen, vectors)]))
            shard.flush()
            shard.close()
        written[user] = records
    write_old_key_files(root / "users", sealing)
    sealing.close()
    return written


def check_every_memory_kept(root: Path, written: dict[str, list[MemoryRecord]]) -> None:
    with Hindsight(path=root, embedder=EMBED) as memory:
        for user, records in written.items():
            kept = {m.id: m for m in memory.memories(user_id=user)}
            assert set(kept) == {r.id for r in records}
            for r in records:  # the sealed text still opens with its key, the session id with the user's digest
                assert kept[r.id].raw_content == r.raw_content and kept[r.id].session_id == "s1"
            assert memory.store.count(user) == len(records)
            [hit] = list(memory.store.scan(user, space="archive"))
            assert hit.record.raw_content == records[0].raw_content
            stored = memory.store.get(user, [records[-1].id], with_vectors=True)[0].vector
            assert np.allclose(stored, EMBED.embed([records[-1].raw_content])[0], atol=1e-6)
        assert memory.recall("Which folder holds the Orion notes?", user_id="alice", k=1)[0].memory.id == \
            written["alice"][0].id
        assert memory.recall("团子是什么猫", user_id="bob", k=1)[0].memory.id == written["bob"][1].id
        assert memory.users() == ["alice", "bob"]


def test_a_format_2_store_moves_to_shared_shards_once_and_keeps_every_memory_and_key(tmp_path, monkeypatch):
    root = tmp_path / "store"
    written = write_format2_store(root)
    check_every_memory_kept(root, written)
    assert (root / "FORMAT").read_text().strip() == "5"
    for user in USERS:  # the users' own shards and key files are gone (their keys in the store's); the registry stayed
        folder = root / "users" / user_dir_name(user)
        assert sorted(p.name for p in folder.iterdir()) in (["user.json"], ["journal", "user.json"])
    assert (root / "keys.sqlite").exists()
    assert sorted(p.name for p in (root / "shards").iterdir() if p.is_dir()) == sorted(
        shard_name(space, EMBED.dimension, bucket_of(user)) for space in ("archive", "memories") for user in USERS)
    moves = []
    monkeypatch.setattr(edge_layout, "_move_space", lambda *args: moves.append(args) or 0)
    check_every_memory_kept(root, written)  # opened again: nothing to move
    assert moves == []


def test_a_move_a_crash_interrupted_resumes_on_the_next_open(tmp_path, monkeypatch):
    root = tmp_path / "store"
    written = write_format2_store(root)
    real = edge_layout._move_space
    calls = []

    def crash_after_the_first_copy(store, folder, user_id, space, dimension):
        if calls:
            raise KeyboardInterrupt("killed")
        calls.append(space)
        moved = real(store, folder, user_id, space, dimension)
        (folder / (space + edge_layout.MOVED)).mkdir()  # as if killed between the rename and the removal
        return moved

    monkeypatch.setattr(edge_layout, "_move_space", crash_after_the_first_copy)
    with pytest.raises(KeyboardInterrupt):
        EdgeStore(root)
    assert (root / "FORMAT").read_text().strip() == "2"
    monkeypatch.setattr(edge_layout, "_move_space", real)
    check_every_memory_kept(root, written)
    assert not list(root.rglob("*" + edge_layout.MOVED))


def test_a_second_process_is_refused_while_a_store_moves(tmp_path):
    """The move runs under the store's lock: the one-process rule holds throughout."""
    import subprocess
    import sys

    root = tmp_path / "store"
    write_format2_store(root)
    store = EdgeStore(root)
    try:
        code = ("import sys\nfrom hindsight_core.store import EdgeStore\nfrom hindsight_core.errors import "
                "StoreInUseError\ntry:\n    EdgeStore(sys.argv[1])\nexcept StoreInUseError:\n    print('refused')\n")
        out = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=60)
        assert "refused" in out.stdout
    finally:
        store.close()
