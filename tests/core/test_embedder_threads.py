"""The default embedder loads its OpenMP runtime with a short spin, and leaves the environment as it was."""

from __future__ import annotations

import os
import subprocess
import sys

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
