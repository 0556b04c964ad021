"""Every user's keys are rows of one key file per store (`sealing.KeyFile`): a new user makes no file, forgetting
destroys the key bytes in every file on disk, and a store with a key file per user (format 3) moves to it when
opened."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import threading

import pytest

from hindsight_core import Hindsight
from hindsight_core.errors import MemoryNotFoundError
from hindsight_core.store import EdgeStore
from hindsight_core.store.edge_files import user_dir_name
from hindsight_core.store.sealing import KeyFile
from hindsight_core.testing import FakeEmbedder

from .old_layout import old_key_file_name, to_format_3


def key_rows(path):
    db = sqlite3.connect(path)
    try:
        return {(user, space, memory_id): bytes(key) for user, space, memory_id, key in
                db.execute("SELECT user, space, id, key FROM keys")}
    finally:
        db.close()


def store_bytes(root) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


def test_one_key_file_holds_every_users_keys_and_a_new_user_makes_no_file(tmp_path, clock):
    root = tmp_path / "s"
    with Hindsight(path=root, embedder=FakeEmbedder(), clock=clock) as memory:
        assert not (root / "keys.sqlite").exists()  # made with the first key
        other = memory.write("Bob's project uses the red theme.", user_id="bob", force=True).record
        before = {p for p in root.rglob("*") if p.is_file()}
        first = memory.write("Project Orion uses the blue theme.", user_id="u", session_id="s", force=True).record
        made = {p for p in root.rglob("*") if p.is_file()} - before
        # the registry entry is the new user's one file; their keys went into the store's key file
        assert {p.name for p in made if "shards" not in p.parts} == {"user.json"}
    rows = key_rows(root / "keys.sqlite")
    assert {(user, memory_id) for user, _, memory_id in rows} >= {(user_dir_name("u"), first.id),
                                                                     (user_dir_name("bob"), other.id)}
    assert stat.S_IMODE((root / "keys.sqlite").stat().st_mode) == 0o600
    with Hindsight(path=root, embedder=FakeEmbedder(), clock=clock) as memory:
        assert memory.get(first.id, user_id="u").raw_content == "Project Orion uses the blue theme."
        assert [r.memory.id for r in memory.recall("Orion", user_id="u", session_id="s", k=3)] == [first.id]
        with pytest.raises(MemoryNotFoundError):  # another user's id reads as not found
            memory.get(first.id, user_id="bob")


def test_forgetting_a_user_leaves_none_of_their_key_bytes_in_any_file(tmp_path, clock):
    root = tmp_path / "s"
    with Hindsight(path=root, embedder=FakeEmbedder(), clock=clock) as memory:
        for user in ("u", "bob"):
            memory.write_many([f"{user} keeps the Orion notes in folder {n}." for n in range(5)],
                              user_id=user, session_id="s1", force=True)
        memory.store.flush()
        keys = key_rows(root / "keys.sqlite")
        mine = [k for (user, _, _), k in keys.items() if user == user_dir_name("u")]
        theirs = [k for (user, _, _), k in keys.items() if user == user_dir_name("bob")]
        assert len(mine) == 6 and len(theirs) == 6  # five memories and the session ids' key each
        on_disk = store_bytes(root)
        assert all(k in on_disk for k in mine + theirs)
        memory.forget(user_id="u", everything=True)
        on_disk = store_bytes(root)  # the key file, its log and everything beside it
        assert not any(k in on_disk for k in mine)
        assert user_dir_name("u").encode() not in on_disk
        assert all(k in on_disk for k in theirs)
        assert len(memory.memories(user_id="bob")) == 5


def test_deleted_keys_are_overwritten_in_a_file_many_users_share(tmp_path):
    """secure_delete: page splits and merges of a file shared by many users leave no copy of a deleted key."""
    path = tmp_path / "keys.sqlite"
    keys = KeyFile(path)
    rnd = random.Random(7)
    users = [user_dir_name(f"user-{n}") for n in range(300)]
    writes = [(user, n) for user in users for n in range(12)]
    rnd.shuffle(writes)  # users' writes interleave, as in a served store
    for start in range(0, len(writes), 5):
        for user, n in writes[start:start + 5]:
            keys.of(user, "memories").prepare([f"{n:04d}-memory-of-{user[:8]}"])
    rows = key_rows(path)
    gone_users = set(users[::3])
    gone_memories = [(u, m) for (u, _, m) in rnd.sample(sorted(rows), 200) if u not in gone_users]
    for user in gone_users:
        keys.destroy_user(user)
    for user, memory_id in gone_memories:
        keys.of(user, "memories").destroy([memory_id])
    on_disk = store_bytes(tmp_path)
    gone = {(u, m) for u, m in gone_memories} | {(u, m) for (u, _, m) in rows if u in gone_users}
    assert not [m for (u, _, m), k in rows.items() if (u, m) in gone and k in on_disk]
    assert all(k in on_disk for (u, _, m), k in rows.items() if (u, m) not in gone)
    keys.close()


def test_the_same_memory_id_under_two_users_has_two_keys_and_destroying_one_leaves_the_other(tmp_path):
    keys = KeyFile(tmp_path / "keys.sqlite")
    alice, mallory = keys.of(user_dir_name("alice"), "memories"), keys.of(user_dir_name("mallory"), "memories")
    sealed = alice.seal("m1", {"raw_content": "Alice's locker code is 4411."})
    mallory.prepare(["m1"])
    with pytest.raises(Exception):
        mallory.unseal("m1", sealed)  # her key for the same id opens nothing of Alice's
    mallory.destroy(["m1"])
    keys.close()
    again = KeyFile(tmp_path / "keys.sqlite")
    assert again.of(user_dir_name("alice"), "memories").unseal("m1", sealed) == {
        "raw_content": "Alice's locker code is 4411."}
    assert again.of(user_dir_name("mallory"), "memories")._key("m1", create=False) is None
    assert again.of(user_dir_name("alice"), "archive")._key("m1", create=False) is None  # a space has its own
    again.close()


def test_a_store_with_a_key_file_per_user_moves_to_one_key_file_when_opened(tmp_path, clock):
    root = tmp_path / "s"
    with Hindsight(path=root, embedder=FakeEmbedder(), clock=clock) as memory:
        written = {user: memory.write_many([f"{user} keeps the Orion notes in folder {n}." for n in range(3)]
                                           + ["团子是一只橘猫。"], user_id=user, session_id="s1", force=True)
                   for user in ("alice", "bob", "carol")}
        [hit] = memory.store.get("alice", [written["alice"][0].record.id], with_vectors=True)
        memory.store.put_space("alice", "archive", [hit.record], hit.vector[None, :])  # keys of a space of its own
        texts = {user: sorted(m.raw_content for m in memory.memories(user_id=user)) for user in written}
    keys = key_rows(root / "keys.sqlite")
    to_format_3(root)
    assert (root / "users" / user_dir_name("alice") / old_key_file_name("archive")).exists()
    assert not (root / "keys.sqlite").exists()
    with Hindsight(path=root, embedder=FakeEmbedder(), clock=clock) as memory:
        for user, kept in texts.items():
            assert sorted(m.raw_content for m in memory.memories(user_id=user)) == kept
            assert memory.recall("Orion notes", user_id=user, session_id="s1", k=1)  # the ids' digests still match
            assert not memory.store.load_report(user).unreadable
        assert [h.record.raw_content for h in memory.store.scan("alice", space="archive")] == [hit.record.raw_content]
        memory.forget(user_id="bob", everything=True)
    assert (root / "FORMAT").read_text().strip() == "5"
    assert not list((root / "users").rglob("keys*"))
    assert key_rows(root / "keys.sqlite") == {k: v for k, v in keys.items() if k[0] != user_dir_name("bob")}


def test_a_key_move_a_crash_interrupted_resumes_and_loses_no_key(tmp_path, clock, monkeypatch):
    root = tmp_path / "s"
    with Hindsight(path=root, embedder=FakeEmbedder(), clock=clock) as memory:
        for user in ("alice", "bob"):
            memory.write_many([f"{user} drinks green tea.", f"{user} moved to Porto."], user_id=user, force=True)
    keys = key_rows(root / "keys.sqlite")
    to_format_3(root)
    real = KeyFile.sync

    def killed_after_the_sync(self):
        real(self)
        raise KeyboardInterrupt("killed")  # the keys are in the store's file; the old files are still there

    monkeypatch.setattr(KeyFile, "sync", killed_after_the_sync)
    with pytest.raises(KeyboardInterrupt):
        EdgeStore(root)
    assert (root / "FORMAT").read_text().strip() == "3"
    assert len(list((root / "users").rglob("keys.sqlite"))) == 2
    monkeypatch.setattr(KeyFile, "sync", real)
    with Hindsight(path=root, embedder=FakeEmbedder(), clock=clock) as memory:
        for user in ("alice", "bob"):
            assert sorted(m.raw_content for m in memory.memories(user_id=user)) == [
                f"{user} drinks green tea.", f"{user} moved to Porto."]
    assert key_rows(root / "keys.sqlite") == keys
    assert (root / "FORMAT").read_text().strip() == "5" and not list((root / "users").rglob("keys*"))


def test_an_unreadable_old_key_file_is_left_in_place_and_the_others_move(tmp_path, clock):
    root = tmp_path / "s"
    with Hindsight(path=root, embedder=FakeEmbedder(), clock=clock) as memory:
        for user in ("alice", "bob"):
            memory.write(f"{user} drinks green tea.", user_id=user, force=True)
    to_format_3(root)
    broken = root / "users" / user_dir_name("bob") / "keys.sqlite"
    broken.write_bytes(os.urandom(8192))
    with Hindsight(path=root, embedder=FakeEmbedder(), clock=clock) as memory:
        assert [m.raw_content for m in memory.memories(user_id="alice")] == ["alice drinks green tea."]
        assert memory.memories(user_id="bob") == []
        assert memory.store.load_report("bob").unreadable  # reported, not served
    assert broken.exists()


NEW_USERS_WRITER = textwrap.dedent("""
    import sys
    from hindsight_core import Hindsight
    from hindsight_core.testing import FakeEmbedder
    memory = Hindsight(path=sys.argv[1], embedder=FakeEmbedder())
    start = int(sys.argv[2])
    for i in range(start, start + 100_000):
        memory.write(f"User {i} keeps the Orion notes in folder {i}.", user_id=f"user-{i}", session_id="s",
                     force=True)
        print("wrote", i, flush=True)
        if i % 5 == 4:
            memory.forget(user_id=f"user-{i - 2}", everything=True)
            print("forgot", i - 2, flush=True)
""")


def test_a_kill_at_any_point_loses_no_acknowledged_new_user_nor_any_key_of_a_user_with_data(tmp_path):
    rng = random.Random(5)
    wrote, forgot, start = set(), set(), 0
    for _ in range(3):
        proc = subprocess.Popen([sys.executable, "-c", NEW_USERS_WRITER, str(tmp_path), str(start)],
                                stdout=subprocess.PIPE, text=True)
        for _ in range(rng.randint(3, 12)):  # acknowledged lines, then a kill at a random moment after them
            what, i = proc.stdout.readline().split()
            (wrote if what == "wrote" else forgot).add(int(i))
        threading.Event().wait(rng.uniform(0.0, 0.05))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        rest = proc.stdout.read().split()  # what it acknowledged before the kill landed
        for what, i in zip(rest[::2], rest[1::2]):
            (wrote if what == "wrote" else forgot).add(int(i))
        with Hindsight(path=tmp_path, embedder=FakeEmbedder()) as memory:
            for i in wrote - forgot:
                assert [m.raw_content for m in memory.memories(user_id=f"user-{i}")] == [
                    f"User {i} keeps the Orion notes in folder {i}."]
            for user in memory.users():  # whoever has data has every key (a user written but not acknowledged too)
                memory.memories(user_id=user)
                assert not memory.store.load_report(user).unreadable
            assert not {f"user-{i}" for i in forgot} & set(memory.users())
            start = max(wrote) + 1
    assert len(wrote) > 10 and forgot
