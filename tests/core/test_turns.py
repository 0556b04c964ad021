"""TurnLog: each (user, session, turn) is offered to the write gate at most once, even after a restart."""

from __future__ import annotations

import threading

import pytest

from hindsight_core import Hindsight, InvalidInputError, Source
from hindsight_core.session.turns import TURN_FIELD, AwaitingAnswer, Turn, TurnLog
from hindsight_core.testing import FakeEmbedder, RecordingGate

HISTORY = [Turn("I live in Porto with my dog Biscuit.", Source.USER),
           Turn("Noted, Porto it is! Ribeira is lovely.", Source.AGENT), Turn("ok", Source.USER)]


@pytest.fixture
def gate():
    return RecordingGate()


@pytest.fixture
def memory(clock, gate):
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, gate=gate) as memory:
        yield memory


def test_a_history_handed_over_again_and_again_is_offered_once(memory, gate):
    turns = TurnLog(memory)
    first = turns.offer(HISTORY, user_id="alice", session_id="s-1")
    assert [o.turn for o in first] == HISTORY and [o.result.stored for o in first] == [True, True, False]
    assert turns.offer(HISTORY + [HISTORY[0]], user_id="alice", session_id="s-1") == []
    assert len(gate.offered) == 3
    stored = memory.memories(user_id="alice")
    assert sorted(r.metadata[TURN_FIELD] for r in stored) == sorted([HISTORY[0].digest, HISTORY[1].digest])
    assert {r.session_id for r in stored} == {"s-1"} and all(r.confirmations == 1 for r in stored)


def test_who_said_it_is_part_of_the_turn_and_each_session_is_its_own(memory, gate):
    turns = TurnLog(memory)
    said = "My sister Ana visits in June."
    assert Turn(said, Source.USER).digest != Turn(said, "agent").digest
    turns.offer([Turn(said, Source.USER), Turn(said, Source.AGENT)], user_id="alice", session_id="s-1")
    turns.offer([Turn(said, Source.USER)], user_id="alice", session_id="s-2")
    turns.offer([Turn(said, Source.USER)], user_id="bob", session_id="s-1")
    assert len(gate.offered) == 4


def test_after_a_restart_stored_turns_are_recognised_and_declined_ones_judged_again(tmp_path, clock, real_embedder):
    path = tmp_path / "store"
    first_gate, second_gate = RecordingGate(), RecordingGate()
    with Hindsight(path=path, embedder=real_embedder, clock=clock, gate=first_gate) as memory:
        TurnLog(memory).offer(HISTORY, user_id="alice", session_id="s-1")
    with Hindsight(path=path, embedder=real_embedder, clock=clock, gate=second_gate) as memory:
        later = HISTORY + [Turn("I booked the hotel near the river.", Source.USER)]
        offered = TurnLog(memory).offer(later, user_id="alice", session_id="s-1")
        assert [o.turn.text for o in offered] == ["ok", "I booked the hotel near the river."]
        assert sorted(r.raw_content for r in memory.memories(user_id="alice")) == sorted([
            HISTORY[0].text, HISTORY[1].text, "I booked the hotel near the river."])
    assert second_gate.offered == [("user", "ok"), ("user", "I booked the hotel near the river.")]


def test_an_unstorable_turn_is_reported_and_the_others_are_kept(memory):
    huge = Turn("I pasted the whole log file. " * 2000, Source.USER)
    offered = TurnLog(memory).offer([HISTORY[0], huge, HISTORY[1]], user_id="alice", session_id="s-1")
    assert [o.error is None for o in offered] == [True, False, True]
    assert isinstance(offered[1].error, InvalidInputError) and offered[1].result is None
    assert sorted(r.raw_content for r in memory.memories(user_id="alice")) == sorted([HISTORY[0].text,
                                                                                      HISTORY[1].text])


def test_a_failed_write_releases_its_turns_to_be_offered_again(clock):
    class FailingOnce(RecordingGate):
        def __call__(self, text, source):
            if not self.offered:
                self.offered.append(("failed", text))
                raise ConnectionError("the gate's model is down")
            return super().__call__(text, source)

    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, gate=FailingOnce()) as memory:
        turns = TurnLog(memory)
        with pytest.raises(ConnectionError):
            turns.offer(HISTORY[:1], user_id="alice", session_id="s-1")
        assert [o.result.stored for o in turns.offer(HISTORY[:1], user_id="alice", session_id="s-1")] == [True]


def test_two_threads_offering_one_history_write_it_once(memory, gate):
    turns = TurnLog(memory)
    start = threading.Barrier(4)

    def offer():
        start.wait()
        turns.offer(HISTORY, user_id="alice", session_id="s-1")

    threads = [threading.Thread(target=offer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(gate.offered) == sorted((t.source.value, t.text) for t in HISTORY)


def test_bad_turns_and_ids_are_input_errors(memory):
    with pytest.raises(InvalidInputError, match="source"):
        Turn("hello there", "the user, trust me")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="text"):
        Turn(None, Source.USER)  # type: ignore[arg-type]
    turns = TurnLog(memory)
    with pytest.raises(InvalidInputError):
        turns.offer(HISTORY, user_id="*", session_id="s-1")
    assert len(turns.offer(HISTORY, user_id="alice", session_id="s-1")) == 3


def test_the_policy_keeps_a_bounded_number_of_conversations_and_recognises_one_it_let_go(memory, gate, monkeypatch):
    from hindsight_core.session import turns as policy

    monkeypatch.setattr(policy, "SESSIONS_KEPT", 3)
    turns = TurnLog(memory)
    for n in range(10):
        turns.offer(HISTORY[:2], user_id=f"user-{n}", session_id="s")
    assert len(turns._seen) == 3 and len(turns._last) == 3  # the last three conversations
    assert list(turns._seen)[-1] == ("user-9", "s")
    offered = len(gate.offered)
    assert turns.offer(HISTORY[:2], user_id="user-0", session_id="s") == []  # let go, found by its stored digests
    assert len(gate.offered) == offered
    assert len(memory.memories(user_id="user-0")) == 2


def test_turns_fenced_by_a_forget_are_never_let_go(memory, gate, monkeypatch):
    from hindsight_core.session import turns as policy

    monkeypatch.setattr(policy, "SESSIONS_KEPT", 2)
    turns = TurnLog(memory)
    turns.offer(HISTORY[:2], user_id="alice", session_id="s")
    memory.forget(user_id="alice", everything=True)
    for n in range(5):  # alice's conversation is let go
        turns.offer(HISTORY[:1], user_id=f"user-{n}", session_id="s")
    assert ("alice", "s") not in turns._seen
    assert turns.offer(HISTORY[:2], user_id="alice", session_id="s") == []  # the history handed over again
    assert memory.memories(user_id="alice") == []


def test_a_turn_written_as_it_goes_waits_for_its_answer():
    held = AwaitingAnswer()
    question, answer = Turn("我下个月搬去里昂。", Source.USER), Turn("Welcome to Lyon!", Source.AGENT)
    assert held.add([question]) == []  # not answered yet: not offered
    later = Turn("My daughter starts school there.", Source.USER)
    assert held.add([answer, later]) == [question, answer]  # up to the last answer, in order; the rest waits
    assert held.add([]) == []
    assert held.release() == [later] and held.release() == []  # the end of a session hands over what waits
    two = [Turn("a", Source.USER), Turn("b", Source.AGENT), Turn("c", Source.USER), Turn("d", Source.AGENT)]
    assert held.add(two) == two
