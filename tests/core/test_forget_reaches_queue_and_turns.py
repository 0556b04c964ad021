"""A forget reaches the conversation policy's state and the write queue: nothing forgotten comes back later."""

from __future__ import annotations

import threading

import pytest

from hindsight_core import Hindsight, Source
from hindsight_core.session.turns import Turn, TurnLog
from hindsight_core.session.write_queue import WriteQueue
from hindsight_core.testing import FakeEmbedder

from ..files import files_holding

PIN = "My card PIN is 4921-CANARY."
ANSWER = "Noted, your card PIN is 4921-CANARY."
NEXT = "Book me a table for two at the harbour restaurant on Friday."


def stored(memory: Hindsight, user: str = "alice") -> dict[str, str | None]:
    """Each stored text -> the context it was stored with."""
    return {r.raw_content: r.context for r in memory.memories(user_id=user)}


@pytest.fixture
def memory(clock):
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        yield memory


@pytest.mark.parametrize("how", ["everything", "memory_id", "about"])
def test_after_a_forget_the_last_turn_is_no_later_turns_context(memory, how):
    log = TurnLog(memory)
    log.offer([Turn(PIN, Source.USER)], user_id="alice", session_id="s-1")
    pin = memory.memories(user_id="alice")[0]
    target = {"everything": {"everything": True}, "memory_id": {"memory_id": pin.id}, "about": {"about": PIN}}[how]
    memory.forget(user_id="alice", **target)
    assert PIN not in stored(memory)
    log.offer([Turn(NEXT, Source.USER)], user_id="alice", session_id="s-1")
    assert stored(memory) == {NEXT: None}  # before the fix: {NEXT: PIN}


def test_a_forget_that_matched_nothing_still_ends_the_context(memory):
    """The gate declined or the topic missed the stored memory: the remembered turn is no context all the same."""
    log = TurnLog(memory)
    log.offer([Turn(PIN, Source.USER)], user_id="alice", session_id="s-1")
    memory.forget(user_id="alice", about="the weather on Jupiter")
    log.offer([Turn(NEXT, Source.USER)], user_id="alice", session_id="s-1")
    assert stored(memory)[NEXT] is None


def test_an_agent_answer_to_a_turn_said_before_a_forget_is_not_stored_after_it(memory):
    """A framework handing over the whole history offers the answer with the next turn, after the forget."""
    log = TurnLog(memory)
    log.offer([Turn(PIN, Source.USER)], user_id="alice", session_id="s-1")
    memory.forget(user_id="alice", everything=True)
    history = [Turn(PIN, Source.USER), Turn(ANSWER, Source.AGENT), Turn(NEXT, Source.USER)]
    log.offer(history, user_id="alice", session_id="s-1")
    log.offer(history + [Turn("Done: Friday, 8 pm, table for two.", Source.AGENT)], user_id="alice",
              session_id="s-1")
    assert stored(memory) == {NEXT: None, "Done: Friday, 8 pm, table for two.": NEXT}


def test_a_forget_of_one_user_leaves_anothers_context(memory):
    log = TurnLog(memory)
    log.offer([Turn("I moved to Porto last spring.", Source.USER)], user_id="bob", session_id="s-1")
    log.offer([Turn(PIN, Source.USER)], user_id="alice", session_id="s-1")
    memory.forget(user_id="alice", everything=True)
    log.offer([Turn(NEXT, Source.USER)], user_id="bob", session_id="s-1")
    assert stored(memory, "bob")[NEXT] == "I moved to Porto last spring."


def test_user_ids_are_keyed_as_the_facade_keys_them(memory):
    log = TurnLog(memory)
    log.offer([Turn(PIN, Source.USER)], user_id="cafe\u0301", session_id="s-1")
    memory.forget(user_id="caf\u00e9", everything=True)
    log.offer([Turn(NEXT, Source.USER)], user_id="cafe\u0301", session_id="s-1")
    assert stored(memory, "caf\u00e9") == {NEXT: None}


@pytest.mark.parametrize("how", ["about", "everything"])
def test_a_forget_that_races_a_queued_write_wins(memory, how):
    """A turn handed over, then forgotten at once, then a flush: it is not stored after the forget returned."""
    queue = WriteQueue(memory, linger=600)  # the writer would wait ten minutes unless someone waits for it
    queue.submit([PIN], user_id="alice")
    queue.offer_turns([Turn(PIN, Source.USER)], user_id="alice", session_id="s-1")
    queue.submit(["I moved to Porto last spring."], user_id="bob")
    memory.forget(user_id="alice", **({"about": PIN} if how == "about" else {"everything": True}))
    queue.flush()
    assert stored(memory) == {}
    assert list(stored(memory, "bob")) == ["I moved to Porto last spring."]
    queue.close()


def test_forgetting_everything_fences_the_dropped_turns(memory):
    """Turns dropped from the queue for a forget are never offered later, even when the history comes again."""
    queue, log = WriteQueue(memory, linger=600), TurnLog(memory)
    queue.offer_turns([Turn(PIN, Source.USER), Turn(ANSWER, Source.AGENT)], user_id="alice", session_id="s-1",
                      log=log)
    memory.forget(user_id="alice", everything=True)
    queue.offer_turns([Turn(PIN, Source.USER), Turn(ANSWER, Source.AGENT), Turn(NEXT, Source.USER)],
                      user_id="alice", session_id="s-1", log=log)
    queue.flush()
    assert stored(memory) == {NEXT: None}
    queue.close()


@pytest.mark.parametrize("how", ["about", "everything"])
def test_the_journal_keeps_no_byte_of_what_was_forgotten(tmp_path, clock, how):
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock) as memory:
        queue = WriteQueue(memory)
        queue.submit([PIN], user_id="alice")
        queue.submit(["I moved to Porto last spring."], user_id="alice")
        queue.flush()
        assert files_holding(tmp_path, "4921-CANARY") == []  # stored and drained: the journal let go of it
        slow = WriteQueue(memory, linger=600, journal=tmp_path / "second-queue.sqlite")
        slow.submit([PIN], user_id="alice")  # said again, waiting in a journal when the forget comes
        memory.forget(user_id="alice", **({"about": PIN} if how == "about" else {"everything": True}))
        assert files_holding(tmp_path, "4921-CANARY") == []
        assert stored(memory) == ({"I moved to Porto last spring.": None} if how == "about" else {})
        slow.close()
        queue.close()


class HeldEmbedder(FakeEmbedder):
    """The fake embedder, holding any batch with "HOLD" in it until the test lets it go."""

    def __init__(self) -> None:
        super().__init__()
        self.go = threading.Event()

    def embed(self, texts):
        if any("HOLD" in t for t in texts):
            assert self.go.wait(30), "the test never let the embedder go"
        return super().embed(texts)


def test_a_stored_write_leaves_the_journals_files_while_others_still_wait(tmp_path, clock):
    embedder = HeldEmbedder()
    with Hindsight(path=tmp_path, embedder=embedder, clock=clock) as memory:
        queue = WriteQueue(memory, linger=600)  # nothing starts until someone waits
        queue.submit([PIN], user_id="alice")
        queue.submit(["HOLD: I moved to Porto last spring."], user_id="bob")  # the writer is held on it next
        queue.settle("alice")
        assert queue.pending == 1
        assert files_holding(tmp_path, PIN) == []  # stored, then gone from the journal though it never drained
        embedder.go.set()
        queue.flush()
        queue.close()
