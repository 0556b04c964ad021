"""Where a user types things: `--store` after the command, a command that lists a user's memories, and the
process named when a store is held, from Python as from the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from hindsight_core import Hindsight, StoreInUseError
from hindsight_core.cli.edge import hoisted
from hindsight_core.testing import FakeEmbedder


def test_store_and_home_are_taken_after_the_command_too(hs, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    hs("remember", "-u", "alice", "--force", "--store", str(elsewhere), "I keep my bike in the shed.")
    assert (elsewhere / "FORMAT").exists() and not hs.store.exists()
    found = hs("recall", "--store", str(elsewhere), "-u", "alice", "bike", "--json").output
    assert "shed" in found  # `recall --store X` once failed with "Did you mean '--json'?"
    assert "shed" in hs("recall", f"--store={elsewhere}", "-u", "alice", "bike").output


def test_hoisting_moves_only_the_store_options_that_follow_the_command():
    commands = {"recall", "remember"}
    assert hoisted(["recall", "-u", "a", "--store", "S", "q"], commands) == ["--store", "S", "recall", "-u", "a", "q"]
    assert hoisted(["--home", "H", "recall", "--store=S"], commands) == ["--home", "H", "--store=S", "recall"]
    assert hoisted(["remember", "-u", "a", "--", "--store", "S"], commands) == \
        ["remember", "-u", "a", "--", "--store", "S"]  # after --, the words are the text's
    assert hoisted(["--help"], commands) == ["--help"]


def test_a_users_memories_are_listed_oldest_first(hs):
    hs("remember", "-u", "alice", "--force", "I keep my bike in the shed.")
    hs("remember", "-u", "alice", "--force", "My sister Ana lives in Porto.")
    hs("remember", "-u", "bob", "--force", "Bob likes jazz.")
    table = hs("memories", "-u", "alice").output.splitlines()
    assert len(table) == 2 and "shed" in table[0] and "Porto" in table[1]
    rows = [json.loads(line) for line in hs("memories", "-u", "alice", "--json").output.splitlines()]
    assert [r["raw_content"] for r in rows] == ["I keep my bike in the shed.", "My sister Ana lives in Porto."]
    assert hs("memories", "-u", "carol").output.strip() == "no memories found"


@pytest.mark.skipif(not os.path.exists("/proc/locks"), reason="the holder is read from /proc/locks (Linux)")
def test_the_python_error_names_the_process_that_holds_the_store(tmp_path):
    holding = textwrap.dedent("""
        import sys, time
        from hindsight_core import Hindsight
        from hindsight_core.testing import FakeEmbedder
        memory = Hindsight(path=sys.argv[1], embedder=FakeEmbedder())
        print("ready", flush=True)
        time.sleep(60)
    """)
    process = subprocess.Popen([sys.executable, "-c", holding, str(tmp_path / "store")], stdout=subprocess.PIPE,
                               text=True)
    try:
        assert process.stdout.readline().strip() == "ready"
        with pytest.raises(StoreInUseError) as held:
            Hindsight(path=tmp_path / "store", embedder=FakeEmbedder())
        message = str(held.value)
        assert f"process {process.pid}" in message and "hindsight serve" in message and "Qdrant" not in message
    finally:
        process.kill()
        process.wait()
