"""Nothing acknowledged is lost: across close/reopen and across a killed process."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from hindsight_core import EmbedderMismatchError, Hindsight, StoreInUseError
from hindsight_core.testing import FakeEmbedder


def test_memories_survive_reopen(tmp_path, clock, real_embedder):
    with Hindsight(path=tmp_path, embedder=real_embedder, clock=clock) as memory:
        record = memory.remember("From now on, print all my reports in A4 landscape.", user_id="alice")
    with Hindsight(path=tmp_path, embedder=real_embedder, clock=clock) as memory:
        results = memory.recall("how should reports be printed?", user_id="alice", reinforce=False)
        assert results[0].memory == record  # every field, as written
        assert memory.users() == ["alice"]


def test_acknowledged_write_survives_sigkill(tmp_path):
    script = textwrap.dedent(f"""
        import os, sys, time
        from hindsight_core import Hindsight
        from hindsight_core.testing import FakeEmbedder
        memory = Hindsight(path={str(tmp_path)!r}, embedder=FakeEmbedder())
        record = memory.remember("The vault combination is 31-07-22.", user_id="u", force=True)
        print(record.id, flush=True)
        time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    memory_id = proc.stdout.readline().strip()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with Hindsight(path=tmp_path, embedder=FakeEmbedder()) as memory:
        assert memory.get(memory_id, user_id="u").raw_content == "The vault combination is 31-07-22."


def test_second_process_gets_a_clear_error(tmp_path):
    with Hindsight(path=tmp_path, embedder=FakeEmbedder()):
        code = (f"from hindsight_core import Hindsight, StoreInUseError\nfrom hindsight_core.testing import FakeEmbedder\n"
                f"try:\n    Hindsight(path={str(tmp_path)!r}, embedder=FakeEmbedder())\n"
                f"except StoreInUseError as e:\n    print('in use:', e)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert out.stdout.startswith("in use:") and "hindsight serve" in out.stdout and "held by process" in out.stdout, out.stderr


def test_wrong_dimension_embedder_is_told_to_migrate(tmp_path):
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(dimension=64)) as memory:
        memory.remember("Project Orion uses the blue theme.", user_id="u", force=True)
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(dimension=32)) as memory:
        with pytest.raises(EmbedderMismatchError, match="hindsight migrate"):
            memory.recall("Orion", user_id="u")
        with pytest.raises(EmbedderMismatchError):
            memory.remember("Project Orion uses the red theme.", user_id="u", force=True)
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(dimension=64)) as memory:
        assert len(memory.memories(user_id="u")) == 1  # nothing half-written by the refused calls


def test_same_dimension_other_model_is_refused_too(tmp_path):
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(name="model-a")) as memory:
        memory.remember("Project Orion uses the blue theme.", user_id="u", force=True)
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(name="model-b")) as memory:
        with pytest.raises(EmbedderMismatchError, match="model-a"):
            memory.recall("Orion", user_id="u")


def test_store_in_use_error_type():
    assert issubclass(StoreInUseError, Exception)
