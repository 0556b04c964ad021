"""One smoke test with the real embedding model: the inspector's search finds by meaning, not words."""

from __future__ import annotations

import pytest

from hindsight_core import Hindsight
from hindsight_core.ui import InspectorServer

from .http import request

pytestmark = [pytest.mark.model, pytest.mark.timeout(300)]


def test_search_by_meaning_with_the_real_model(real_embedder, clock):
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock) as memory:
        memory.write("I'm vegetarian, so please never suggest meat dishes.", user_id="alice")
        memory.write("The staging server restart is done; it took 14 minutes.", user_id="alice")
        memory.write("From now on, print all my reports in A4 landscape.", user_id="alice")
        with InspectorServer(memory, port=0) as server:
            # question-shaped, as e5 reads its query side best: the imperative "Book a table for dinner with the
            # team" ranks the A4 landscape preference first on e5 (the vegetarian one second)
            reply = request(server.port, "GET",
                            "/search?user=alice&q=Where+should+I+book+a+table+for+dinner+with+the+team%3F&k=1")
    assert reply.status == 200
    first = reply.body.split('<ol class="results">', 1)[1]
    assert "never suggest meat dishes" in first and "staging server" not in first
    assert "dense #1" in first
