"""The LangGraph store conformance suite (`hindsight_langchain.testing.check_store`) on LangGraph's
`InMemoryStore` (the reference, against itself) and on `HindsightStore`: embedded with the real model,
and through `hindsight serve` with `HindsightClient`.

Every difference from the reference is either fixed or listed here as intended, with its reason.
"""

from __future__ import annotations

import pytest
from langgraph.store.memory import InMemoryStore

from hindsight_core import Hindsight
from hindsight_core.remote import HindsightClient
from hindsight_langchain import HindsightStore
from hindsight_langchain.testing import check_store

from ..serve.conftest import start

#: the differences that are hindsight's design, not faults
INTENDED = {
    "a numeric filter on an item without the field":
        "InMemoryStore raises TypeError comparing a missing field; HindsightStore treats it as no match",
}
#: with a store not bound to users (no user_ids=...), listing never crosses users
UNBOUND = {
    **INTENDED,
    "list_namespaces with a suffix": "a listing names one user: hindsight never reveals who else is in the store",
    "list_namespaces of the whole store": "the same: pass user_ids=[...] to list the bound users' namespaces",
    "list_namespaces with a wildcard": "the same",
}


def test_the_reference_agrees_with_itself():
    report = check_store(InMemoryStore)
    assert len(report.steps) >= 30 and not report.unexpected and not report.intended, report.describe()


def test_the_suite_finds_a_store_that_differs():
    class ForgetfulStore(InMemoryStore):
        def batch(self, ops):
            return [None for _ in ops] if any(type(op).__name__ == "GetOp" for op in ops) else super().batch(ops)

    report = check_store(ForgetfulStore)
    assert "get each item" in {d.step for d in report.unexpected}


@pytest.mark.model
def test_hindsight_store_embedded_with_the_real_model(tmp_path, clock, real_embedder):
    with Hindsight(path=tmp_path / "store", embedder=real_embedder, clock=clock) as memory:
        report = check_store(lambda: HindsightStore(memory, user_ids=["alice", "bob"]), intended=INTENDED)
    assert not report.unexpected, report.describe()
    assert {d.step for d in report.intended} == set(INTENDED), report.describe()


def test_hindsight_store_not_bound_to_users_lists_one_user_at_a_time(fake_memory):
    report = check_store(lambda: HindsightStore(fake_memory), intended=UNBOUND)
    assert not report.unexpected, report.describe()
    assert {d.step for d in report.intended} == set(UNBOUND), report.describe()


@pytest.mark.slow
def test_hindsight_store_through_hindsight_serve(tmp_path):
    port, server = start(tmp_path)
    with server, HindsightClient(f"http://127.0.0.1:{port}") as client:
        report = check_store(lambda: HindsightStore(client, user_ids=["alice", "bob"]), intended=INTENDED)
    assert not report.unexpected, report.describe()
    assert {d.step for d in report.intended} == set(INTENDED), report.describe()
