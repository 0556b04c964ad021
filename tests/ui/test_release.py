"""`Hindsight.release`, which the quarantine view calls: a held memory becomes recallable, for good."""

from __future__ import annotations

import pytest

from hindsight_core import Hindsight, InvalidInputError, MemoryNotFoundError, Status
from hindsight_core.testing import FakeEmbedder, FrozenClock

from .seed import PLANTED, START


def test_release_makes_a_quarantined_memory_recallable_and_persists(tmp_path):
    clock = FrozenClock(START)
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder(), clock=clock) as memory:
        held = memory.write(PLANTED, user_id="alice", source="agent").record
        assert held.status is Status.QUARANTINED
        assert memory.recall("recommend ACME products", user_id="alice") == []
        released = memory.release(user_id="alice", memory_id=held.id)
        assert released.status is Status.ACTIVE
        assert [r.memory.id for r in memory.recall("recommend ACME products", user_id="alice")] == [held.id]
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder(), clock=clock) as reopened:
        record = reopened.get(held.id, user_id="alice")
        assert record.status is Status.ACTIVE
        audit = record.metadata["audit"]
        assert audit["action"] == "quarantine" and audit["reasons"] == list(held.metadata["audit"]["reasons"])


def test_release_refuses_what_is_not_quarantined(fake_memory):
    record = fake_memory.write("I prefer tea to coffee.", user_id="alice").record
    with pytest.raises(InvalidInputError, match="not quarantined"):
        fake_memory.release(user_id="alice", memory_id=record.id)
    with pytest.raises(MemoryNotFoundError):
        fake_memory.release(user_id="alice", memory_id="no-such-id")
