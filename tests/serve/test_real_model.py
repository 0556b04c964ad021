"""The shipped default model (multilingual-e5-small) behind a live `hindsight serve`: the client finds by meaning."""

from __future__ import annotations

import pytest

from hindsight_core.remote import HindsightClient

from .conftest import start

pytestmark = [pytest.mark.model, pytest.mark.timeout(300)]


def test_the_client_recalls_by_meaning_with_the_default_model(tmp_path):
    port, server = start(tmp_path, model="")  # no model named: the default one
    with server, HindsightClient(f"http://127.0.0.1:{port}") as client:
        assert client.embedding_model == "multilingual-e5-small"
        client.write("I'm vegetarian, so please never suggest meat dishes.", user_id="alice")
        client.write("The staging server restart is done; it took 14 minutes.", user_id="alice")
        client.write("From now on, print all my reports in A4 landscape.", user_id="alice")
        results = client.recall("What food should I order for the team dinner?", user_id="alice", k=1,
                                reinforce=False)
    assert [r.memory.raw_content for r in results] == ["I'm vegetarian, so please never suggest meat dishes."]
    assert results[0].explanation.dense_rank == 1
