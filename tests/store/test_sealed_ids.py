"""Session and agent ids are sealed like the text: never in the engine's files in the clear (issue 21)."""

from hindsight_core import Hindsight
from hindsight_core.testing import FakeEmbedder

from ..files import files_containing

SESSION, AGENT = "SESSION-CANARY-5d1e", "AGENT-CANARY-93b0"


def test_session_and_agent_ids_are_never_on_disk_in_the_clear_and_still_filter(tmp_path, clock):
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock) as memory:
        mine = memory.write("Project Orion uses the blue theme.", user_id="u", session_id=SESSION, agent_id=AGENT,
                            force=True).record
        memory.write("Project Orion ships in May.", user_id="u", session_id="other-session", force=True)
        assert files_containing(tmp_path, SESSION) == [] and files_containing(tmp_path, AGENT) == []
        # the record keeps them, and filters still find them through the index
        assert memory.get(mine.id, user_id="u").session_id == SESSION
        by_session = memory.recall("Project Orion", user_id="u", session_id=SESSION, k=5)
        assert [r.memory.id for r in by_session] == [mine.id]
        assert [r.memory.id for r in memory.recall("Project Orion", user_id="u", agent_id=AGENT, k=5)] == [mine.id]
        assert memory.recall("Project Orion", user_id="u", session_id="no-such-session", k=5) == []
        memory.forget(user_id="u", memory_id=mine.id)
        memory.compact()
        assert files_containing(tmp_path, SESSION) == [] and files_containing(tmp_path, AGENT) == []
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock) as memory:  # reopened: the digest key held
        assert len(memory.recall("Project Orion", user_id="u", session_id="other-session", k=5)) == 1


def test_an_unsealed_store_keeps_the_ids_plain_and_filters_alike(clock):
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        mine = memory.write("Project Orion uses the blue theme.", user_id="u", session_id=SESSION, force=True).record
        assert [r.memory.id for r in memory.recall("Orion", user_id="u", session_id=SESSION)] == [mine.id]
