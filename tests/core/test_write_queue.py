"""WriteQueue: writes handed over return at once, are stored in order behind the caller, and survive a crash."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from datetime import datetime, timezone
from pathlib import Path

import pytest

from hindsight_core import Hindsight, InvalidInputError, Source, StoreUnavailableError, TextTooLargeError
from hindsight_core.session.turns import TURN_FIELD, Turn, TurnLog
from hindsight_core.session.write_queue import JOURNAL_NAME, WriteQueue, write_queue
from hindsight_core.testing import FakeEmbedder, RecordingGate

ROOT = Path(__file__).resolve().parents[2]


class GatedEmbedder(FakeEmbedder):
    """The fake embedder, held at a gate: lets a test see the queue while a write is in flight."""

    def __init__(self) -> None:
        super().__init__()
        self.go = threading.Event()

    def embed(self, texts):
        assert self.go.wait(30), "the test never let the embedder go"
        return super().embed(texts)


def texts_of(memory: Hindsight, user: str = "alice") -> list[str]:
    return [r.raw_content for r in memory.memories(user_id=user)]


def test_an_embedded_memory_journals_beside_its_store(tmp_path):
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder()) as memory:
        queue = WriteQueue(memory)  # where the memory says (`MemoryAPI.local_journal`)
        assert queue.journal == memory.local_journal() == tmp_path / "store" / JOURNAL_NAME and queue.durable
        queue.close()


def test_a_write_returns_before_it_is_stored_and_a_flush_waits_for_it(clock):
    embedder = GatedEmbedder()
    with Hindsight(location=":memory:", embedder=embedder, clock=clock) as memory:
        queue = write_queue(memory)
        assert write_queue(memory) is queue  # one queue (one writer) per Hindsight
        queue.submit(["I live in Porto with my dog Biscuit."], user_id="alice", session_id="s-1")
        assert queue.pending == 1 and texts_of(memory) == []
        embedder.go.set()
        queue.flush()
        assert queue.pending == 0 and texts_of(memory) == ["I live in Porto with my dog Biscuit."]
        found = memory.recall("where does my dog live", user_id="alice", reinforce=False)
        assert found[0].memory.session_id == "s-1"


def test_settle_waits_for_one_users_writes(clock):
    embedder = GatedEmbedder()
    with Hindsight(location=":memory:", embedder=embedder, clock=clock) as memory:
        queue = write_queue(memory)
        queue.submit(["I live in Porto with my dog Biscuit."], user_id="alice")
        assert queue.pending_for("alice") == 1 and queue.pending_for("carol") == 0
        assert queue.settle("carol") is True  # nothing of carol's is queued: no wait
        assert queue.settle("alice", timeout=0.05) is False  # still held at the embedder
        embedder.go.set()
        assert queue.settle("alice") is True and texts_of(memory) == ["I live in Porto with my dog Biscuit."]


def test_writes_of_one_user_are_stored_in_order_and_batched(clock):
    embedder = GatedEmbedder()
    calls: list[int] = []
    embed = embedder.embed
    embedder.embed = lambda texts: calls.append(len(texts)) or embed(texts)  # type: ignore[method-assign]
    with Hindsight(location=":memory:", embedder=embedder, clock=clock) as memory:
        queue = write_queue(memory)
        facts = [f"My project number {n} is called {name}." for n, name in
                 enumerate(["Falcon", "Heron", "Osprey", "Kestrel"])]
        queue.submit([facts[0]], user_id="alice")
        with queue._cond:  # the writer took it and is held at the embedder
            assert queue._cond.wait_for(lambda: queue._busy, 30)
        for fact in facts[1:]:
            queue.submit([fact], user_id="alice", sources=[Source.USER])
        queue.submit(["I am Bob and I prefer tea over coffee."], user_id="bob")
        embedder.go.set()
        queue.flush()
        assert texts_of(memory) == facts
        assert texts_of(memory, "bob") == ["I am Bob and I prefer tea over coffee."]
        assert calls[:2] == [1, 3]  # the three that waited behind the first went as one batch


def test_bad_input_is_refused_at_once_and_nothing_of_that_call_is_queued(fake_memory):
    queue = write_queue(fake_memory)
    with pytest.raises(TextTooLargeError):
        queue.submit(["I prefer tea.", "x" * 40_000], user_id="alice")
    with pytest.raises(InvalidInputError, match="user_id"):
        queue.submit(["I prefer tea."], user_id="")
    with pytest.raises(InvalidInputError, match="takes no option 'colour'"):
        queue.submit(["I prefer tea."], user_id="alice", colour="red")
    with pytest.raises(InvalidInputError, match="one entry per text"):
        queue.submit(["I prefer tea."], user_id="alice", sources=["user", "agent"])
    # every option is checked as the write will check it (`WriteOptions.checked`), before it is journaled
    with pytest.raises(InvalidInputError, match="metadata must be plain JSON"):
        queue.submit(["I prefer tea."], user_id="alice", metadata={"when": object()})
    with pytest.raises(InvalidInputError, match="confidence must be a number"):
        queue.submit(["I prefer tea."], user_id="alice", confidence=2)
    with pytest.raises(InvalidInputError, match="timestamp must be a timezone-aware datetime"):
        queue.submit(["I prefer tea.", "I drink it black."], user_id="alice", timestamps=[None, "2026-01-01"])
    with pytest.raises(InvalidInputError, match="agent_id"):
        queue.submit(["I prefer tea."], user_id="alice", agent_id="bot\x00")
    with pytest.raises(InvalidInputError, match="sync must be"):
        WriteQueue(fake_memory, journal=None, sync="sometimes")
    assert queue.pending == 0
    queue.flush()
    assert texts_of(fake_memory) == []


def test_a_text_only_the_full_check_refuses_is_reported_and_the_others_are_kept(fake_memory):
    queue = write_queue(fake_memory)
    invisible = "\u200b\u200d\u200b"  # text to the hand-over's check, nothing to remember to the write's
    queue.submit([invisible, "My manager is Priya Shah."], user_id="alice")
    queue.flush()
    assert texts_of(fake_memory) == ["My manager is Priya Shah."]
    assert [(f.user_id, f.text) for f in queue.failures] == [("alice", invisible)]
    assert "invisible" in queue.failures[0].error


def test_a_store_that_fails_stops_the_writer_and_the_write_stays_journaled(tmp_path, clock):
    memory = Hindsight(path=tmp_path / "store", embedder=FakeEmbedder(), clock=clock)
    queue = write_queue(memory)
    memory.store.close()  # the store goes away under the queue
    queue.submit(["I live in Porto with my dog Biscuit."], user_id="alice")
    with pytest.raises(StoreUnavailableError, match="stay journaled"):
        queue.flush()
    memory.close()
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder(), clock=clock) as reopened:
        write_queue(reopened).flush()
        assert texts_of(reopened) == ["I live in Porto with my dog Biscuit."]


def test_a_failed_writer_over_an_in_memory_store_says_the_writes_are_lost_not_journaled(clock):
    memory = Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock)
    queue = write_queue(memory)
    assert not queue.durable
    memory.store.close()
    queue.submit(["I live in Porto with my dog Biscuit."], user_id="alice")
    with pytest.raises(StoreUnavailableError, match="1 writes are kept in this process only") as failure:
        queue.flush()
    assert "journaled" not in str(failure.value)
    memory.close()


def test_closing_the_memory_stores_what_was_handed_over_first(tmp_path, clock):
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder(), clock=clock) as memory:
        write_queue(memory).submit(["My manager is Priya Shah."], user_id="alice",
                                   timestamp=clock(), event_type="fact")
    assert (tmp_path / "store" / JOURNAL_NAME).exists()
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder(), clock=clock) as memory:
        [record] = memory.memories(user_id="alice")
        assert record.raw_content == "My manager is Priya Shah." and record.timestamp == clock()
        assert WriteQueue(memory).pending == 0  # nothing left to replay


def test_forgetting_everything_drops_the_users_waiting_writes(clock):
    embedder = GatedEmbedder()
    with Hindsight(location=":memory:", embedder=embedder, clock=clock) as memory:
        queue = write_queue(memory)
        queue.submit(["My manager is Priya Shah."], user_id="bob")  # in flight, held at the embedder
        queue.submit(["I live in Porto with my dog Biscuit."], user_id="alice")
        queue.submit(["My sister lives in Lisbon."], user_id="bob", session_id="s-2")
        receipt = memory.forget(user_id="alice", everything=True)
        assert receipt.working_messages == 0 and queue.pending == 2
        embedder.go.set()
        queue.flush()
        assert texts_of(memory, "alice") == []
        assert texts_of(memory, "bob") == ["My manager is Priya Shah.", "My sister lives in Lisbon."]


def test_turns_go_through_the_turn_log_once(clock):
    gate = RecordingGate()
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, gate=gate) as memory:
        queue, log = write_queue(memory), TurnLog(memory)
        history = [Turn("I live in Porto with my dog Biscuit.", Source.USER), Turn("Noted!", Source.AGENT)]
        seq, refused = queue.offer_turns(history + [Turn("y" * 40_000, Source.USER)], user_id="alice",
                                         session_id="s-1", log=log)
        assert seq is not None and [t.text[:1] for t, _ in refused] == ["y"]
        queue.offer_turns(history, user_id="alice", session_id="s-1", log=log)
        queue.flush()
        assert len(gate.offered) == 2
        stored = memory.memories(user_id="alice")
        assert [r.metadata[TURN_FIELD] for r in stored] == [history[0].digest]


_CHILD = textwrap.dedent("""
    import sys, time
    from hindsight_core import Hindsight
    from hindsight_core.testing import FakeEmbedder
    from hindsight_core.session.write_queue import write_queue

    class SlowEmbedder(FakeEmbedder):
        def embed(self, texts):
            time.sleep(0.3)  # the writer falls behind the agent, as with a real model
            return super().embed(texts)

    memory = Hindsight(path=sys.argv[1], embedder=SlowEmbedder())
    queue = write_queue(memory)
    for n in range(int(sys.argv[2])):
        queue.submit([f"Turn {n}: my project number {n} ships in week {n + 10}."], user_id="alice",
                     session_id="s-1")
        print("ACK", n, flush=True)
    print("PENDING", queue.pending, flush=True)
    time.sleep(60)
""")


def test_every_acknowledged_write_survives_a_sigkill(tmp_path):
    """A real process is killed right after its writes were acknowledged; reopening stores all of them."""
    store, count = tmp_path / "store", 12
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(store), str(count)], stdout=subprocess.PIPE,
                             text=True, env=env)
    lines = []
    assert child.stdout is not None
    for line in child.stdout:
        lines.append(line.split())
        if line.startswith("PENDING"):
            break
    child.send_signal(signal.SIGKILL)
    child.wait(30)
    assert [int(n) for word, n in lines if word == "ACK"] == list(range(count))
    pending = int(lines[-1][1])
    assert pending > 0  # the kill came while writes were still queued: the journal is what kept them
    with Hindsight(path=store, embedder=FakeEmbedder()) as memory:
        before = len(memory.memories(user_id="alice"))
        assert before <= count - pending + 1  # at most the one in flight was stored before the kill
        write_queue(memory).flush()
        stored = sorted(memory.memories(user_id="alice"), key=lambda r: int(r.raw_content.split()[1].rstrip(":")))
        assert [r.raw_content.split(":")[0] for r in stored] == [f"Turn {n}" for n in range(count)]
    with Hindsight(path=store, embedder=FakeEmbedder()) as memory:  # replayed once: nothing left over
        assert WriteQueue(memory).pending == 0 and len(memory.memories(user_id="alice")) == count


@pytest.mark.model
def test_the_real_model_through_the_queue(tmp_path, clock, real_embedder):
    with Hindsight(path=tmp_path / "store", embedder=real_embedder, clock=clock) as memory:
        queue = write_queue(memory)
        queue.submit(["I am allergic to peanuts.", "My sister lives in Lisbon."], user_id="alice")
        queue.flush()
        assert memory.recall("what food must I avoid", user_id="alice", k=1)[0].memory.raw_content == \
            "I am allergic to peanuts."


def test_the_journal_keeps_pending_writes_across_a_reopen(tmp_path):
    from hindsight_core.session.queue_journal import QueueJournal

    when = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
    journal = QueueJournal(tmp_path / JOURNAL_NAME, sync="full")
    first, _ = journal.add(journal.encode({"user_id": "u", "texts": ["a"], "options": {"timestamp": when}}))
    second, read = journal.add(journal.encode({"user_id": "u", "texts": ["b"], "options": {"source": Source.TOOL}}))
    assert read["options"] == {"source": "tool"}  # as a replay reads it
    with pytest.raises(InvalidInputError, match="cannot be queued"):
        journal.encode({"options": {"metadata": object()}})
    journal.close()
    again = QueueJournal(tmp_path / JOURNAL_NAME)
    assert again.pending() == [(first, {"user_id": "u", "texts": ["a"], "options": {"timestamp": when}}),
                               (second, read)]
    again.remove([first])
    again.remove([second], stored=False)
    assert again.pending() == []
    again.close()
    with pytest.raises(InvalidInputError, match="sync"):
        QueueJournal(None, sync="sometimes")


#: entries as the journal held them before the options were read from `WriteOptions` (the JSON on disk, verbatim)
_JOURNALED_BEFORE = [
    '{"kind": "write", "user_id": "alice", "texts": ["I moved to Lisbon in March.", "My sister Ana lives in Porto."], '
    '"options": {"session_id": "s-1", "agent_id": "planner", "force": true, '
    '"timestamps": [{"$datetime": "2026-03-01T09:00:00+00:00"}, null], "sources": ["user", "agent"]}}',
    '{"kind": "turns", "user_id": "alice", "texts": ["I am allergic to peanuts.", "Noted: no peanuts."], '
    '"sources": ["user", "agent"], "times": [null, null], "field": "hindsight_turn", '
    '"options": {"session_id": "s-2", "agent_id": "planner"}}',
]


def test_a_journal_written_before_still_replays(tmp_path, clock):
    import sqlite3

    folder = tmp_path / "store"
    Hindsight(path=folder, embedder=FakeEmbedder(), clock=clock).close()
    db = sqlite3.connect(folder / JOURNAL_NAME)  # the table as the journal has always made it
    db.execute("CREATE TABLE pending (seq INTEGER PRIMARY KEY AUTOINCREMENT, entry TEXT)")
    db.executemany("INSERT INTO pending (entry) VALUES (?)", [(entry,) for entry in _JOURNALED_BEFORE])
    db.commit()
    db.close()
    with Hindsight(path=folder, embedder=FakeEmbedder(), clock=clock) as memory:
        queue = write_queue(memory)  # made on first use: it writes what the journal holds
        queue.flush()
        assert queue.failures == [] and queue.pending == 0
        stored = {r.raw_content: r for r in memory.memories(user_id="alice")}
        assert set(stored) >= {"I moved to Lisbon in March.", "My sister Ana lives in Porto.",
                               "I am allergic to peanuts."}
        moved = stored["I moved to Lisbon in March."]
        assert (moved.session_id, moved.agent_id, moved.timestamp) == \
            ("s-1", "planner", datetime(2026, 3, 1, 9, tzinfo=timezone.utc))
        assert stored["My sister Ana lives in Porto."].source is Source.AGENT
        allergy = stored["I am allergic to peanuts."]
        assert (allergy.session_id, allergy.agent_id) == ("s-2", "planner") and TURN_FIELD in allergy.metadata
    with Hindsight(path=folder, embedder=FakeEmbedder(), clock=clock) as memory:
        assert write_queue(memory).pending == 0  # replayed once, gone from the journal


def test_a_new_option_reaches_the_journal_without_naming_it(fake_memory):
    """Every write option goes through the queue by its field name: the queue lists none of them."""
    import dataclasses

    from hindsight_core.contract.options import WriteOptions

    queue = write_queue(fake_memory)
    for field in dataclasses.fields(WriteOptions):  # each accepted by name (a wrong value is refused, not unknown)
        try:
            queue.submit(["I prefer tea."], user_id="probe", **{field.name: field.default})
        except InvalidInputError as exc:
            pytest.fail(f"{field.name}: {exc}")
    queue.flush()
    assert queue.failures == []


def test_a_forget_of_everything_while_the_writer_lingers_never_stops_it(clock):
    """The writer lingers after a hand-over; a forget of everything that lands then empties the queue under it,
    and the linger ends on an empty queue. The writer goes on: later writes are stored, flush and settle return."""
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        queue = WriteQueue(memory, journal=None, linger=0.5)
        queue.submit(["I live in Porto with my dog Biscuit."], user_id="alice")
        threading.Event().wait(0.1)  # the writer is lingering
        memory.forget(user_id="alice", everything=True)  # alice's write is dropped under it
        threading.Event().wait(0.8)  # the linger ends with nothing queued
        queue.submit(["My manager is Priya Shah."], user_id="bob")
        queue.flush(timeout=30)
        assert queue.settle("alice", timeout=30) is True
        assert queue._thread.is_alive() and texts_of(memory, "alice") == []
        assert texts_of(memory, "bob") == ["My manager is Priya Shah."]
        queue.close()


def test_forgets_racing_writes_lose_no_write_of_another_user(clock):
    """Many races of a forget of everything against hand-overs: every write of a user who did not forget is
    stored, and the writer never stops."""
    import random

    rng = random.Random(7)
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        queue = WriteQueue(memory, journal=None, linger=0.002)
        kept = []
        for i in range(200):
            queue.submit([f"Note {i} for alice: the blue folder."], user_id="alice")
            if rng.random() < 0.5:
                threading.Event().wait(rng.random() * 0.004)
            memory.forget(user_id="alice", everything=True)
            kept.append(f"Note {i} for bob: the red folder.")
            queue.submit([kept[-1]], user_id="bob", merge_duplicates=False)  # each its own memory, counted
        queue.flush(timeout=60)
        assert queue._thread.is_alive() and queue.failures == []
        assert sorted(texts_of(memory, "bob")) == sorted(kept)
        queue.close()
