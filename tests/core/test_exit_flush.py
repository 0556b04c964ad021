"""A process that hands turns to the write queue and exits without close() stores them on the way out.

The interpreter stops the threads of `concurrent.futures` executors (the default
embedder's engine thread is one) before it runs `atexit` handlers; the exit
flush must not need such a thread. Each test runs a real process with the real
default model, then reads the store from a fresh process (the CLI).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.model


def run_python(script: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args], capture_output=True, text=True,
                          env=env, timeout=300)


def cli_recall(store: Path, query: str, user: str = "alice") -> list[str]:
    """What `hindsight recall` shows for `query`, read by a fresh process."""
    out = run_python("from hindsight_core.cli import main; main()", "--store", str(store), "recall", query,
                     "-u", user, "--json")
    assert out.returncode == 0, out.stderr
    return [r["text"] if "text" in r else r["memory"]["raw_content"] for r in json.loads(out.stdout)]


def test_turns_offered_without_close_are_in_the_store_after_exit(tmp_path):
    store = tmp_path / "store"
    out = run_python("""
        import sys
        from hindsight_core import Hindsight, Source
        from hindsight_core.session.turns import Turn, TurnLog
        from hindsight_core.session.write_queue import write_queue

        memory = Hindsight(path=sys.argv[1])              # no `with`, no close(): the README's quick start
        memory.recall("what paper size", user_id="alice")  # the engine thread runs before the turn is handed over
        write_queue(memory).offer_turns([Turn("From now on, print all my reports in A4 landscape.", Source.USER)],
                                        user_id="alice", session_id="monday", log=TurnLog(memory))
    """, str(store))
    assert out.returncode == 0, out.stderr
    assert "background writer stopped" not in out.stderr and "journaled" not in out.stderr, out.stderr
    assert any("A4 landscape" in text for text in cli_recall(store, "which paper format for reports"))


def test_a_write_submitted_just_before_exit_is_stored(tmp_path):
    """No recall first: the first embedding of the process happens during the exit flush."""
    store = tmp_path / "store"
    out = run_python("""
        import sys
        from hindsight_core import Hindsight
        from hindsight_core.session.write_queue import write_queue

        write_queue(Hindsight(path=sys.argv[1])).submit(["My sister lives in Lisbon."], user_id="alice")
    """, str(store))
    assert out.returncode == 0, out.stderr
    assert "stopped" not in out.stderr, out.stderr
    assert any("Lisbon" in text for text in cli_recall(store, "where does my sister live"))


def test_an_in_memory_store_stores_the_write_before_exit(tmp_path):
    """`location=":memory:"` has no later process to write a journal: the write is stored on the way out,
    by an exit hook that runs before the caller's own (which still sees it)."""
    out = run_python("""
        import atexit
        from hindsight_core import Hindsight
        from hindsight_core.session.write_queue import write_queue

        memory = Hindsight(location=":memory:")

        def look():
            print("STORED", [r.raw_content for r in memory.memories(user_id="alice")], flush=True)

        atexit.register(look)                             # atexit runs last-registered first: this runs last
        write_queue(memory).submit(["I am allergic to peanuts."], user_id="alice")
    """)
    assert out.returncode == 0, out.stderr
    assert "STORED ['I am allergic to peanuts.']" in out.stdout, (out.stdout, out.stderr)
    assert "stopped" not in out.stderr, out.stderr


def run_quick_start(snippet: Path, store: Path | None) -> subprocess.CompletedProcess:
    """A README quick start as a script, unchanged, or (`store`) on an embedded store at that folder."""
    code = snippet.read_text(encoding="utf-8")
    if store is not None:
        assert 'Hindsight(location=":memory:")' in code
        code = "import sys\n" + code.replace('Hindsight(location=":memory:")', "Hindsight(path=sys.argv[1])", 1)
        return run_python(code, str(store))
    return run_python(code)


def assert_nothing_left_journaled(out: subprocess.CompletedProcess, store: Path | None) -> None:
    assert out.returncode == 0, out.stderr
    assert "writer stopped" not in out.stderr and "journaled" not in out.stderr, out.stderr
    if store is not None:
        from hindsight_core.session.queue_journal import JOURNAL_NAME, QueueJournal

        journal = QueueJournal(store / JOURNAL_NAME)
        try:
            assert journal.pending() == []
        finally:
            journal.close()


def check_quick_start_stores_every_turn(snippet: Path, tmp_path: Path, on_disk: bool) -> None:
    """A README quick start run as a script, no close(): the last turn, handed over as the process ends, is stored."""
    store = tmp_path / "store" if on_disk else None
    out = run_quick_start(snippet, store)
    assert_nothing_left_journaled(out, store)
    if store is not None:
        assert any("A4 landscape" in text for text in cli_recall(store, "which paper format for reports"))
