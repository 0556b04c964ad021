"""The speed scripts' helpers and README sections, on hand-made results (their timings are never asserted)."""

from __future__ import annotations

import json

from benchmarks import render_readme
from benchmarks.load import cpu_hogs


def test_cpu_hogs_run_for_the_block_and_are_gone_after():
    with cpu_hogs(count=2) as count:
        assert count == 2
    with cpu_hogs(False) as none:
        assert none == 0


def _stat(p50: float) -> dict:
    return {"p50_ms": p50, "p95_ms": p50 * 2}


def test_the_adapter_and_smaller_figures_render_from_their_json(tmp_path):
    arm = {"load_average": 1.5, "query_embedding": _stat(20.0), "queue_submit": _stat(1.0),
           "langchain": {"write_hook": _stat(0.8), "recall_hook": _stat(25.0)},
           "llamaindex": {"block_aget": _stat(30.0), "hand_over": _stat(1.1)}}
    report = {"embedder": "multilingual-e5-small", "arms": {"quiet": arm}, "command": "python x.py",
              "machine": "x86_64", "date": "2026-12-01T16:00:00",
              "targets": {"quiet": {"langchain_write_p50_le_5ms": True}}}
    (tmp_path / "adapter_overhead.json").write_text(json.dumps(report))
    (tmp_path / "model_load.json").write_text(json.dumps({
        "model": "multilingual-e5-small", "runs": [{}], "load_average": 2.0, "command": "python y.py",
        "median": {"import_s": 0.5, "load_and_first_text_s": 1.25, "second_text_s": 0.02}}))
    text = render_readme.render(tmp_path)
    assert "| quiet (load average 1.5) | 0.8 / 1.6 | 25.0 / 50.0 | 30.0 / 60.0 | 1.1 / 2.2 | 20.0 / 40.0 |" in text
    assert "- quiet: langchain write p50 le 5ms: met" in text
    assert "load and first text 1.25 s, then 20 ms a text" in text


def test_the_tenants_benchmark_measures_one_small_size_and_renders(tmp_path):
    from benchmarks import tenants

    row = tenants.one_size(4, 3, 2, 1, "fake")
    assert row["users"] == 4 and row["first_write_ms"]["n"] == 4 and row["cold_recall_ms"]["n"] == 2
    assert row["forget_everything_ms"] and row["forget_one_ms"] and row["threads"] > 0 and row["files"] > 0
    assert row["user_key_files"] == 0  # every user's keys in the store's one key file
    report = {"shared-shards": {"command": "python -m benchmarks.tenants --users 4", "date": "2026-12-02 01:00 UTC",
                                "machine": "x86_64", "store": "this tree", "rows": [row, {"users": 9, "error": ["x"]}]}}
    (tmp_path / "tenants.json").write_text(json.dumps(report))
    text = render_readme.render(tmp_path)
    assert "### Many users in one process" in text and "| shared-shards | 4 |" in text
    assert "| shared-shards | 9 | failed: x |" in text
