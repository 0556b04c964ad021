"""The server settles who may make a call before it reads the call's arguments: a per-user token that names
another user, or asks for the whole store, is forbidden whatever else it sent, so the answer says nothing of
how the server would have read those arguments (red team finding 7)."""

from __future__ import annotations

import pytest

from hindsight_core import ForbiddenError, Hindsight, InvalidInputError
from hindsight_core.remote.api import EVERYONE, Call, Operations
from hindsight_core.remote.recall_log import RecallLog
from hindsight_core.testing import FakeEmbedder, FrozenClock


@pytest.fixture
def operations(tmp_path):
    clock = FrozenClock()
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder(), clock=clock) as memory:
        yield Operations(memory, RecallLog(clock=clock))


@pytest.mark.parametrize("operation, args", [
    ("write", {"text": "I like tea.", "user_id": "bob", "colour": "green"}),
    ("write", {"text": 5, "user_id": ["bob"]}),
    ("recall", {"query": "tea", "user_id": "*", "k": "all"}),
    ("memories", {"user_id": "bob\x00", "agent": "x"}),
    ("forget", {"user_id": "bob", "everything": "yes"}),
    ("stats", {"users": "bob", "colour": 1}),
    ("export_jsonl", {"users": ["alice", "bob"], "vectors": "no"}),
    ("compact", {"now": True}),
    ("import_jsonl", {"lines": 5}),
    ("consolidate_all", {"dry_run": "maybe"}),
])
def test_a_per_user_token_is_forbidden_before_its_arguments_are_read(operations, operation, args):
    with pytest.raises(ForbiddenError):
        operations.table[operation](Call(dict(args), who="alice", operation=operation))
    with pytest.raises(InvalidInputError) as read:  # the server's own token gets the arguments read
        operations.table[operation](Call(dict(args), who=EVERYONE, operation=operation))
    assert not isinstance(read.value, ForbiddenError)
