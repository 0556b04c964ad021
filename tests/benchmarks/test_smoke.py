"""Each benchmark run end to end on a small slice, so none of them can rot (the real embedder, real Qdrant)."""

from __future__ import annotations

import json

import locomo_ablations
import locomo_bench
import peers
import plots
import pytest
import render_readme
import speed

pytestmark = pytest.mark.model
LOCAL = ["hindsight", "hindsight-force", "bm25", "dense", "rrf", "langchain", "llamaindex"]


@pytest.fixture(scope="module")
def results(tmp_path_factory, real_embedder):
    """Runs the LoCoMo harness (every in-process system) and the speed benchmark once, into one folder."""
    folder = tmp_path_factory.mktemp("results")
    data = folder / "tiny_locomo.json"
    from tests.benchmarks.conftest import tiny_sample

    data.write_text(json.dumps([tiny_sample("conv-a", "Ana", "Ben"), tiny_sample("conv-b", "Chloe", "Dev")]))
    args = locomo_bench.parse_args([str(data), "--systems", *LOCAL, "--no-cache", "--out", str(folder / "locomo.json")])
    locomo = locomo_bench.run(args, embedder=real_embedder)
    fast = speed.main(["--sizes", "200", "--repeats", "5", "--write-sample", "40", "--overhead-sample", "300",
                       "--out", str(folder / "speed.json")], embedder=real_embedder)
    return {"folder": folder, "data": data, "locomo": locomo, "speed": fast}


def test_locomo_reports_every_system_per_category(results):
    report = results["locomo"]
    assert json.loads((results["folder"] / "locomo.json").read_text()) == report
    assert report["data"]["questions"] == 10 and report["data"]["turns"] == 16
    assert report["data"]["evidence_ids_dropped"] == ["D"]
    assert len(report["systems"]) == len(LOCAL)
    for name, system in report["systems"].items():
        assert system["status"] == "ok", name
        summary = system["summary"]
        assert {"overall", "multi-hop", "temporal", "open-domain", "single-hop", "adversarial"} <= set(summary)
        assert all(summary[c]["questions"] == 2 for c in ("temporal", "single-hop")), name
        assert 0 <= summary["overall"]["recall@5"] <= summary["overall"]["recall@10"] <= 100
        assert summary["overall"]["tokens"] > 0 and summary["overall"]["latency"]["p50_ms"] > 0
        # the parrot question names the parrot: every system finds that turn
        assert summary["single-hop"]["recall@5"] == 100.0, name
        # the open-domain questions have no evidence and count as found
        assert summary["open-domain"]["recall@5"] == 100.0, name
    gate, force = report["systems"]["hindsight (write gate)"], report["systems"]["hindsight (force=True)"]
    assert gate["stored"] < gate["offered"] == 16  # the gate declines "Ok, thanks!" and the greeting
    assert force["stored"] == force["offered"] == 16
    assert report["full_history"]["tokens"] > 50
    assert set(report["targets"]) == {"recall@5 overall >= 60", "tokens per question <= 400",
                                      "above every baseline and peer in every category"}


def test_a_peer_that_cannot_run_is_reported_with_the_reason(results, real_embedder, monkeypatch, tmp_path):
    monkeypatch.setattr(peers, "PEERS_PYTHON", tmp_path / "no-venv" / "python")
    args = locomo_bench.parse_args([str(results["data"]), "--systems", "bm25", "mem0", "--no-cache",
                                    "--out", str(tmp_path / "l.json")])
    report = locomo_bench.run(args, embedder=real_embedder)
    mem0 = report["systems"]["mem0 (infer=False)"]
    assert mem0["status"] == "unavailable" and "protobuf" in mem0["reason"] and "peers_venv.sh" in mem0["reason"]


@pytest.mark.skipif(not peers.PEERS_PYTHON.exists(), reason="no .venv-peers (bash benchmarks/peers_venv.sh)")
@pytest.mark.slow
def test_mem0_runs_in_its_own_venv(results, real_embedder, tmp_path):
    args = locomo_bench.parse_args([str(results["data"]), "--systems", "mem0", "--no-cache", "--limit", "1",
                                    "--out", str(tmp_path / "l.json")])
    mem0 = locomo_bench.run(args, embedder=real_embedder)["systems"]["mem0 (infer=False)"]
    assert mem0["status"] == "ok", mem0.get("reason")
    assert mem0["summary"]["single-hop"]["recall@5"] == 100.0


def test_speed_keeps_its_keys_and_measures_one_size(results):
    report = results["speed"]
    assert {"date", "machine", "sizes", "writes", "peak_rss_mb"} <= set(report)
    size = report["sizes"][0]
    assert size["memories"] == 200
    for key in ("recall_exact_excluded", "recall_indexed_excluded", "numpy_dot_topk"):
        assert 0 < size[key]["p50_ms"] <= size[key]["p95_ms"], key
    assert size["ratio_best_to_numpy_p50"] > 0 and size["disk_bytes_per_memory"] > 100
    assert size["rss_store_open_mb"] > 0 and size["reopen_and_first_recall_s"] > 0
    writes = report["writes"]
    assert writes["raw_embedder_per_s"] > 0 and writes["batched_writes_per_s"] > 0 and writes["single_writes_per_s"] > 0
    assert writes["zero_cost_defaults"]["batched_writes_per_s"] > 0


def test_ablations_change_one_thing_at_a_time(results, real_embedder, tmp_path):
    out = tmp_path / "ablations.json"
    report = locomo_ablations.main([str(results["data"]), "--variants", "gate", "force", "--no-cache",
                                    "--out", str(out)], embedder=real_embedder)
    gate, force = report["variants"]["gate"], report["variants"]["force"]
    assert gate["stored"] < gate["offered"] and force["stored"] == force["offered"] == 16
    assert json.loads(out.read_text())["variants"].keys() == {"gate", "force"}
    with pytest.raises(SystemExit):
        locomo_ablations.main([str(results["data"]), "--variants", "no-such-variant"], embedder=real_embedder)


def test_readme_section_is_rendered_between_the_markers(results, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# title\n\nintro\n\n<!-- bench:start -->\nold table\n<!-- bench:end -->\n\n## After\n")
    assert render_readme.main(["--readme", str(readme), "--results", str(results["folder"])]) == 0
    text = readme.read_text()
    assert text.startswith("# title\n\nintro\n\n<!-- bench:start -->\n## Benchmarks") and text.endswith("## After\n")
    assert "old table" not in text
    for name in results["locomo"]["systems"]:
        assert f"| {name} |" in text
    assert "| 200 |" in text and "batched writes" in text
    render_readme.main(["--readme", str(readme), "--results", str(results["folder"])])
    assert readme.read_text() == text  # regenerating changes nothing


def test_readme_without_markers_is_left_alone(results, tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n")
    assert render_readme.main(["--readme", str(readme), "--results", str(results["folder"])]) == 1
    assert readme.read_text() == "# no markers\n" and "bench:start" in capsys.readouterr().err


def test_plots_are_png_files(results):
    pytest.importorskip("matplotlib")
    made = plots.make_all(results["folder"])
    assert {p.name for p in made} >= {"locomo_recall.png", "locomo_tokens.png", "speed.png"}
    for path in made:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_separate_peer_run_merges_into_the_report(results, tmp_path):
    base = tmp_path / "locomo.json"
    report = dict(results["locomo"])
    peer = report["systems"]["bm25"]
    base.write_text(json.dumps({**report, "systems": {k: v for k, v in report["systems"].items() if k != "bm25"}}))
    other = tmp_path / "peer.json"
    other.write_text(json.dumps({**report, "systems": {"bm25": peer}, "command": "peer run"}))
    merged = locomo_bench.merge(base, [other])
    assert merged["systems"]["bm25"] == peer and merged["merged_from"] == ["peer run"]
    assert json.loads(base.read_text())["systems"].keys() == report["systems"].keys()
    other.write_text(json.dumps({**report, "data": {**report["data"], "sha256": "0" * 64}}))
    with pytest.raises(SystemExit, match="other data"):
        locomo_bench.merge(base, [other])
