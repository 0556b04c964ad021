"""A user's key file is made with its first keys, under a temporary name, and moved in whole (`sealing.create_key_file`)."""

from __future__ import annotations

import os
import sqlite3

import pytest

from hindsight_core import Hindsight
from hindsight_core.store.sealing import KeyStore, create_key_file
from hindsight_core.testing import FakeEmbedder


def rows_of(path):
    db = sqlite3.connect(path)
    try:
        return dict(db.execute("SELECT id, key FROM keys"))
    finally:
        db.close()


def test_a_key_file_is_made_with_its_first_keys_in_wal_mode_and_nothing_beside_it(tmp_path):
    path = tmp_path / "keys.sqlite"
    keys = KeyStore(path)
    assert not path.exists()  # nothing on disk before a key is written
    keys.load(["m1"])
    assert keys._key("m1", create=False) is None and not path.exists()
    keys.prepare(["m1", "m2"])
    sealed = keys.seal("m1", {"raw_content": "I live in Porto."})
    digest = keys.id_digest("session-1")
    keys.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keys.sqlite"]
    assert set(rows_of(path)) == {"m1", "m2", "~ids"}
    assert path.read_bytes()[18:20] == b"\x02\x02"  # the header's WAL mode: set before it was moved in
    again = KeyStore(path)  # the keys and the ids' key were the ones made with the file
    assert again.unseal("m1", sealed) == {"raw_content": "I live in Porto."}
    assert again.id_digest("session-1") == digest
    again.destroy(["m1"])
    with pytest.raises(ValueError):
        again.unseal("m1", sealed)
    again.close()
    assert set(rows_of(path)) == {"m2", "~ids"}


def test_a_key_file_is_never_replaced_and_a_half_made_one_is_cleared(tmp_path):
    path = tmp_path / "keys.sqlite"
    assert create_key_file(path, [("m1", os.urandom(32))])
    assert not create_key_file(path, [("m2", os.urandom(32))])  # one is there: left as it was
    assert set(rows_of(path)) == {"m1"}
    # a process killed while it made a key file left its temporary: the next one clears it
    other = tmp_path / "other.sqlite"
    (tmp_path / "other.sqlite.new").write_bytes(b"half a database")
    (tmp_path / "other.sqlite.new-journal").write_bytes(b"its journal")
    keys = KeyStore(other)
    keys.prepare(["m3"])
    keys.close()
    assert set(rows_of(other)) == {"m3", "~ids"}
    assert not list(tmp_path.glob("*.new*"))


def test_a_key_file_made_by_another_handle_meanwhile_is_used_not_replaced(tmp_path):
    path = tmp_path / "keys.sqlite"
    late, early = KeyStore(path), KeyStore(path)
    early.prepare(["m1"])
    late.prepare(["m2"])  # the file appeared after `late` was opened: its keys join it
    early.close()
    late.close()
    assert set(rows_of(path)) == {"m1", "m2", "~ids"}


def test_a_new_users_memories_are_readable_after_the_store_is_reopened_and_gone_after_forget(tmp_path, clock):
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock) as memory:
        first = memory.write("Project Orion uses the blue theme.", user_id="u", session_id="s", force=True).record
        key_file = next(tmp_path.rglob("keys.sqlite"))
        assert not list(tmp_path.rglob("*.new*"))
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock) as memory:
        assert memory.get(first.id, user_id="u").raw_content == "Project Orion uses the blue theme."
        assert [r.memory.id for r in memory.recall("Orion", user_id="u", session_id="s", k=3)] == [first.id]
        memory.forget(user_id="u", everything=True)
    assert not key_file.exists()
