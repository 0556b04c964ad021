"""The default embedder loads its OpenMP runtime with a short spin, and leaves the environment as it was."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from hindsight_core.embed import multilingual


def test_the_engine_loads_with_a_short_spin_and_the_environment_is_restored(monkeypatch):
    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    seen = multilingual._load_without_spinning(lambda: os.environ.get("GOMP_SPINCOUNT"))
    assert seen == multilingual.SPIN_COUNT
    assert "GOMP_SPINCOUNT" not in os.environ


def test_a_callers_own_openmp_setting_wins(monkeypatch):
    monkeypatch.setenv("OMP_WAIT_POLICY", "active")
    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    assert multilingual._load_without_spinning(lambda: os.environ.get("GOMP_SPINCOUNT")) is None
    assert os.environ["OMP_WAIT_POLICY"] == "active"


def test_the_real_engine_embeds_after_the_load_and_the_child_environment_is_clean():
    """In a fresh process: the real model loads through the setting, and nothing leaks to child processes."""
    script = ("import os; from hindsight_core.embed.multilingual import E5Embedder; "
              "v = E5Embedder().embed(['the printer is on the third floor']); "
              "print(v.shape, os.environ.get('GOMP_SPINCOUNT'))")
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["(1,", "384)", "None"]


def test_every_thread_embeds_on_the_one_engine_thread():
    """An OpenMP team per calling thread halves the engine's speed when callers alternate: all calls take turns
    on one thread (`benchmarks/adapter_overhead.py` measures the effect)."""
    import threading

    names = []

    def ask() -> None:
        names.append(multilingual._ENGINE_THREAD.run(lambda: threading.current_thread().name))

    callers = [threading.Thread(target=ask) for _ in range(3)]
    for caller in callers:
        caller.start()
    ask()
    for caller in callers:
        caller.join()
    assert len(names) == 4 and len(set(names)) == 1 and names[0].startswith("hindsight-e5")


def test_the_engine_thread_hands_back_errors():
    import pytest

    with pytest.raises(ZeroDivisionError):
        multilingual._ENGINE_THREAD.run(lambda: 1 / 0)
    assert multilingual._ENGINE_THREAD.run(lambda: 2) == 2


def test_a_forked_process_gets_an_engine_thread_of_its_own():
    import multiprocessing

    multilingual._ENGINE_THREAD.run(lambda: None)  # the parent's thread exists before the fork
    child = multiprocessing.get_context("fork").Process(target=_embed_in_child)
    child.start()
    child.join(timeout=120)  # a hang guard, not a speed check
    assert child.exitcode == 0


def _embed_in_child() -> None:
    os._exit(0 if multilingual._ENGINE_THREAD.run(lambda: 41) + 1 == 42 else 1)


def test_the_real_model_gives_the_same_vector_from_any_thread(real_embedder):
    import threading

    import numpy as np

    text = ["where did I put the spare keys?"]
    here = real_embedder.embed_query(text)
    there = []
    worker = threading.Thread(target=lambda: there.append(real_embedder.embed_query(text)))
    worker.start()
    worker.join()
    assert np.allclose(here, there[0], atol=1e-6)


def test_once_the_engine_thread_is_stopped_a_call_runs_on_the_callers_thread():
    """At exit the interpreter stops executors' threads before `atexit` handlers (the write queue's flush) run."""
    import threading

    engine = multilingual._EngineThread()
    assert engine.run(lambda: threading.current_thread().name).startswith("hindsight-e5")
    engine._executor.shutdown()  # what the interpreter does to every executor before `atexit` handlers
    assert engine.run(lambda: threading.current_thread().name) == threading.current_thread().name
    with pytest.raises(ZeroDivisionError):  # errors still reach the caller
        engine.run(lambda: 1 / 0)
