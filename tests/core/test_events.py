"""The forget announcement: what listeners hear, and working memory as one of them."""

from __future__ import annotations

import pytest

from hindsight_core import Hindsight, InvalidInputError, WorkingMemory
from hindsight_core.errors import ContextBudgetError as FromErrors
from hindsight_core.events import Forgotten
from hindsight_core.testing import FakeEmbedder
from hindsight_core.working import ContextBudgetError, InProcessBackend
from hindsight_core.working.window import ContextBudgetError as FromWindow


@pytest.fixture
def memory(clock):
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        yield memory


def test_listeners_hear_each_completed_forget_with_the_texts_that_went(memory):
    heard: list[Forgotten] = []
    memory.on_forget(lambda event: heard.append(event) or 0)
    kept = memory.remember("My dog is called Rex.", user_id="alice")
    memory.remember("I prefer tea over coffee.", user_id="alice")

    memory.forget(user_id="alice", memory_id=kept.id, dry_run=True)
    assert heard == []  # a dry run changes nothing, so nothing is announced
    memory.forget(user_id="alice", memory_id=kept.id)
    assert heard == [Forgotten("alice", frozenset({"My dog is called Rex."}))]
    memory.forget(user_id="alice", everything=True)
    assert heard[-1] == Forgotten("alice", None) and heard[-1].everything


def test_what_listeners_remove_is_counted_in_the_receipt(memory):
    memory.on_forget(lambda event: 2)
    memory.on_forget(lambda event: 3)
    record = memory.remember("My dog is called Rex.", user_id="alice")
    assert memory.forget(user_id="alice", memory_id=record.id).working_messages == 5


def test_a_listener_that_is_not_callable_is_refused(memory):
    with pytest.raises(InvalidInputError, match="callable"):
        memory.on_forget("purge")  # type: ignore[arg-type]


def test_working_memory_subscribes_once_per_backend_and_forgetting_reaches_it(memory):
    backend = InProcessBackend()
    first = WorkingMemory("s1", user_id="alice", memory=memory, backend=backend)
    second = WorkingMemory("s2", user_id="alice", memory=memory, backend=backend)
    other = WorkingMemory("s3", user_id="bob", memory=memory, backend=backend)
    assert len(memory._forget_listeners) == 1
    for wm in (first, second, other):
        wm.append("user", "My dog is called Rex.")
        wm.append("user", "I prefer tea over coffee.")
    record = memory.remember("My dog is called Rex.", user_id="alice")

    receipt = memory.forget(user_id="alice", memory_id=record.id)
    assert receipt.working_messages == 2
    assert [m.content for m in first.messages()] == [m.content for m in second.messages()] == [
        "I prefer tea over coffee."]
    assert len(other.messages()) == 2  # bob's session is bob's


def test_context_budget_error_is_in_the_error_tree_and_importable_where_it_was():
    assert ContextBudgetError is FromErrors is FromWindow
    assert issubclass(ContextBudgetError, InvalidInputError)


def test_forgetting_everything_reaches_working_memory_even_with_nothing_long_term(memory):
    session = WorkingMemory("s1", user_id="carol", memory=memory)
    session.append("user", "My door code is 4412.")
    receipt = memory.forget(user_id="carol", everything=True)
    assert receipt.count == 0 and receipt.working_messages == 1 and session.messages() == []
