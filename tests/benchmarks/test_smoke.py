"""Each benchmark run end to end on a small slice, so none of them can rot (the real embedder, real Qdrant)."""

from __future__ import annotations

import json

from benchmarks import locomo_bench
from benchmarks import peers
from benchmarks import plots
import pytest
from benchmarks import render_readme
from benchmarks import speed

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


def test_readme_and_docs_sections_are_rendered_between_the_markers(results, tmp_path):
    readme, docs = tmp_path / "README.md", tmp_path / "docs" / "benchmarks.md"
    docs.parent.mkdir()
    readme.write_text("# title\n\nintro\n\n<!-- bench:start -->\nold table\n<!-- bench:end -->\n\n## After\n")
    docs.write_text("# Benchmarks\n\n<!-- bench:start -->\nold tables\n<!-- bench:end -->\n\n## Reading\n")
    assert render_readme.main(["--readme", str(readme), "--results", str(results["folder"])]) == 0
    summary, tables = readme.read_text(), docs.read_text()
    assert summary.startswith("# title\n\nintro\n\n<!-- bench:start -->\n## Benchmarks")
    assert summary.endswith("## After\n") and "old table" not in summary
    # the README's summary: a headline figure with its command and a link to its table on the docs page
    assert "(docs/benchmarks.md#speed-and-scale)" in summary and "`python -m benchmarks.speed" in summary
    assert tables.startswith("# Benchmarks\n\n<!-- bench:start -->\n") and tables.endswith("## Reading\n")
    assert "old tables" not in tables and "### Speed and scale" in tables
    for name in results["locomo"]["systems"]:
        assert f"| {name} |" in tables
    assert "| 200 |" in tables and "`write_many` ≥ 80% of the raw embedder" in tables
    render_readme.main(["--readme", str(readme), "--results", str(results["folder"])])
    assert readme.read_text() == summary and docs.read_text() == tables  # regenerating changes nothing


def test_every_target_in_the_readme_has_its_command_and_a_missed_one_says_what_limits_it():
    rows = render_readme.target_rows(render_readme.HERE / "results")
    assert len(rows) >= 8
    for target, figure, met, command, limit in rows:
        assert figure and command.startswith("python -m benchmarks."), target
        assert met or limit, target


def test_a_missing_docs_page_is_an_error_that_names_it(results, tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("<!-- bench:start -->\n<!-- bench:end -->\n")
    assert render_readme.main(["--readme", str(readme), "--results", str(results["folder"])]) == 1
    assert "benchmarks.md" in capsys.readouterr().err


def test_readme_without_markers_is_left_alone(results, tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "benchmarks.md").write_text("<!-- bench:start -->\n<!-- bench:end -->\n")
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


# -- madial.py, locomo_adapters.py (locomo_bench.py --protocol adapters), ablations.py: e5, the shipped default --

from benchmarks import ablations  # noqa: E402
from benchmarks import locomo_adapters  # noqa: E402
from benchmarks import madial  # noqa: E402
from benchmarks.plain import BASELINES, tokens  # noqa: E402
from benchmarks.recipes import E5Vectors, Recipe, tweak  # noqa: E402

SHARED_MADIAL = madial.DEFAULT_DATA


@pytest.fixture(scope="module")
def e5_vectors():
    return E5Vectors(None)  # in memory only: the tests never touch the benchmark caches


def _lines(rows) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


@pytest.fixture
def tiny_madial(tmp_path):
    """Three dated events in Chinese and English under the same ids, and two dialogues that each need one."""
    folder = tmp_path / "madial"
    folder.mkdir()
    events = {"zh": ["Tom在海边放风筝，感到非常开心。", "Tom的小狗生病了，他很难过。", "Tom在学校的数学考试中得了满分。"],
              "en": ["Tom flew a kite at the beach and felt very happy.", "Tom's puppy got sick and he felt sad.",
                     "Tom got a perfect score on his school maths exam."]}
    dialogues = {"zh": [["<Tom>:\"今天风好大，我想去放风筝！\"\n", "<Assistant>:\"好主意！\"\n"],
                        ["<Tom>:\"我的小狗今天还是不舒服。\"\n", "<Assistant>:\"别担心。\"\n"]],
                 "en": [["<Tom>: \"It's so windy today, I want to fly a kite!\"\n", "<Assistant>: \"Good idea!\"\n"],
                        ["<Tom>: \"My puppy still isn't feeling well today.\"\n", "<Assistant>: \"Don't worry.\"\n"]]}
    for lang in ("zh", "en"):
        (folder / f"{lang}-memory.json").write_text(_lines(
            {str(i + 1): {"time": f"2023-0{i + 3}-10", "scene": "s", "emotion": "e", "event": text}}
            for i, text in enumerate(events[lang])))
        (folder / f"{lang}-dialogue.json").write_text(_lines(
            {"dialogue": ["<BOD>\n", *turns, "<EOD>\n"], "test-turn": [2], "relevant-id": [relevant], "user-id": 1}
            for turns, relevant in zip(dialogues[lang], (1, 2))))
    return folder


def test_madial_reads_the_last_user_message_and_the_dialogue_so_far(tiny_madial):
    questions = madial.load_questions(tiny_madial / "en-dialogue.json")
    assert [q.relevant for q in questions] == [("1",), ("2",)]
    assert questions[0].last == "It's so windy today, I want to fly a kite!"
    assert questions[0].so_far == "Tom: It's so windy today, I want to fly a kite!"
    memories = madial.load_memories(tiny_madial / "zh-memory.json")
    assert memories["2"].text.startswith("Tom的小狗") and memories["2"].date.isoformat() == "2023-04-10T12:00:00+00:00"
    assert madial.alignment(memories, madial.load_memories(tiny_madial / "en-memory.json"))["aligned"]
    with pytest.raises(madial.MadialFormatError, match="no such file"):
        madial.load_memories(tiny_madial / "fr-memory.json")


def test_chinese_is_cut_into_words_for_bm25():
    assert {"风筝", "海边"} <= set(tokens("Tom在海边放风筝")) and tokens("Flew a Kite") == ["flew", "a", "kite"]


@pytest.mark.model
def test_madial_runs_every_arm_and_system_on_the_same_memories(tiny_madial, e5_vectors, tmp_path):
    args = madial.parse_args(["--data", str(tiny_madial), "--out", str(tmp_path / "madial.json")])
    report = madial.run(args, vectors=e5_vectors)
    assert json.loads((tmp_path / "madial.json").read_text()) == report
    assert report["data"]["alignment"]["aligned"] and set(report["arms"]) == set(madial.ARMS)
    for arm, result in report["arms"].items():
        assert result["write_gate"]["offered"] == 3 >= result["write_gate"]["stored"]
        for mode in madial.MODES:
            systems = result["modes"][mode]
            assert set(systems) == {madial.HINDSIGHT, *BASELINES}
            for name in BASELINES:  # nothing hidden: all three memories come back when 10 are asked for
                assert systems[name]["returned_of_10"] == 3.0, (arm, name)
            assert 0 <= systems[madial.HINDSIGHT]["returned_of_10"] <= 3
            # "kite" / "puppy" name their event: e5 on its query side finds both, in either language
            assert systems["e5 dense (query side)"]["recall@5"] == 100.0, (arm, mode)
            for name, r in systems.items():  # what reaches the prompt, for hindsight and every baseline
                assert 0 <= r["evidence_in_block@5"] <= 100 and r["tokens"] > 0, (arm, mode, name)
            assert systems["e5 dense (query side)"]["evidence_in_block@5"] == 100.0, (arm, mode)
    table = "\n".join(render_readme.madial_section(report, ""))
    assert "| hindsight (defaults) |" in table and "zh-en dialogue R@5" in table and "Write gate: zh-zh stored" in table


@pytest.mark.model
@pytest.mark.skipif(not SHARED_MADIAL.is_dir(), reason="no ../shared/benchmarks/madial")
def test_madial_on_the_shared_archive(e5_vectors, tmp_path):
    args = madial.parse_args(["--arms", "zh-zh", "en-zh", "--max-questions", "3", "--out", str(tmp_path / "m.json")])
    report = madial.run(args, vectors=e5_vectors)
    assert report["data"]["alignment"]["shared_ids"] == 76 and report["data"]["alignment"]["aligned"]
    for arm in ("zh-zh", "en-zh"):
        assert report["arms"][arm]["questions"] == 3 and report["arms"][arm]["memories"] == 83
        for r in report["arms"][arm]["modes"]["last"].values():
            assert 0 <= r["recall@5"] <= r["recall@10"] <= 100


@pytest.mark.model
def test_locomo_through_the_adapters_protocol(tiny_locomo, e5_vectors, tmp_path):
    args = locomo_bench.parse_args(["--protocol", "adapters", str(tiny_locomo), "--no-cache"])
    assert args.out.name == "locomo_adapters.json"  # the default moves with the protocol
    args.out = tmp_path / "adapters.json"
    report = locomo_adapters.run(args, vectors=e5_vectors)
    systems = report["systems"]
    assert set(systems) == {locomo_adapters.HINDSIGHT} | {f"{b} over {u}" for b in BASELINES
                                                          for u in ("turns", "exchanges")}
    ours = systems[locomo_adapters.HINDSIGHT]
    assert 0 < ours["stored"] <= ours["offered"] <= 16
    for name, system in systems.items():
        overall = system["summary"]["overall"]
        assert 0 <= overall["recall@5"] <= overall["recall@10"] <= 100, name
        assert overall["evidence_in_block@5"] <= 100 and overall["tokens"] > 0, name
        assert system["summary"]["open-domain"]["evidence_in_block@5"] == 100.0  # no evidence counts as found
        if system["kind"] == "baseline":  # a baseline's block holds every hit's whole text
            assert overall["evidence_in_block@5"] == overall["recall@5"], name
    # the parrot question names the parrot: the fusion finds its turn, alone or in its exchange
    for unit in ("turns", "exchanges"):
        assert systems[f"e5+bm25 rrf (query side) over {unit}"]["summary"]["single-hop"]["recall@5"] == 100.0
    table = "\n".join(render_readme.adapters_section(report, ""))
    assert f"| {locomo_adapters.HINDSIGHT} |" in table and "| bm25 over exchanges |" in table


def test_an_exchange_covers_both_of_its_turns(tiny_locomo):
    from benchmarks.locomo import load_locomo, turn_text

    conv = load_locomo(tiny_locomo, 1)[0]
    units = locomo_adapters.exchange_units(conv, [turn_text(t) for t in conv.turns])
    assert units[0].ids == ("D1:1",) and units[1].ids == ("D1:1", "D1:2") and units[5].ids == ("D2:1",)
    assert units[1].text == "Ana: Hi Ben! How was your week?\nBen: Busy! I adopted a grey parrot called Zorblax " \
                            "from the shelter."


@pytest.mark.model
def test_ablations_turn_one_mechanism_off_at_a_time(tiny_locomo, tiny_madial, e5_vectors, tmp_path, monkeypatch):
    monkeypatch.setitem(ablations.VARIANTS, "renamed-field",
                        Recipe("a setting this core does not have", (tweak("recall", no_such_weight=0.0),)))
    out = tmp_path / "ablations.json"
    report = ablations.main(["--sets", "locomo", "madial-zh", "multilingual", "--locomo-data", str(tiny_locomo),
                             "--madial-data", str(tiny_madial), "--max-questions", "2",
                             "--variants", "defaults", "no-gate", "no-exchanges", "renamed-field", "--out", str(out)],
                            vectors=e5_vectors)
    assert json.loads(out.read_text()) == report
    columns = {"locomo (2 conv)", "madial zh (last)", "madial zh (dialogue)", "multilingual"}
    assert set(report["columns"]) == columns
    for name in ("defaults", "no-gate", "no-exchanges"):
        assert report["variants"][name]["status"] == "ok" and set(report["variants"][name]["recall@5"]) == columns
        variant = report["variants"][name]
        assert set(variant["evidence_in_block@5"]) == columns - {"multilingual"}
        assert sum(c["questions"] for c in variant["by_class"].values()) == sum(report["columns"].values())
    broken = report["variants"]["renamed-field"]
    assert broken["status"] == "unavailable" and "no_such_weight" in broken["reason"]
    assert report["baselines"]["e5+bm25 rrf (query side) over exchanges"].keys() == {"locomo (2 conv)"}
    assert report["baselines"]["e5 dense (query side)"].keys() == columns - {"locomo (2 conv)"}
    table = "\n".join(render_readme.ablations_section(report, ""))
    assert "| hindsight no-gate: write gate off (force=True) |" in table and "unavailable: RecallConfig" in table
    with pytest.raises(SystemExit, match="unknown variants"):
        ablations.main(["--variants", "no-such-variant"], vectors=e5_vectors)


def test_questions_are_classed_by_what_they_ask_about_in_time():
    from datetime import datetime, timezone

    from benchmarks.query_classes import query_class

    now = datetime(2026, 3, 1, tzinfo=timezone.utc)
    cases = {"What do I drink?": "present", "我现在用什么数据库？": "present", "我对什么过敏？": "present",
             "When did Caroline go to the support group?": "past", "Where was she born?": "past",
             "你以前住在哪里？": "past", "你吃饭了吗？": "past",
             "What did Melanie paint last year?": "date", "我上个月买了什么？": "date",
             "Tom: Hi!\nTom: What did I do in May 2023?": "date"}
    assert {q: query_class(q, now) for q in cases} == cases


def test_every_variant_builds_a_valid_config():
    for name, recipe in ablations.VARIANTS.items():
        config = recipe.config()
        assert config is None or config != type(config)(), name  # a variant that changes the config changes it


def test_a_recipe_forces_writes_and_drops_the_answered_turn():
    from datetime import datetime, timezone

    from hindsight_core import Hindsight
    from hindsight_core.testing import FakeEmbedder, FrozenClock

    memory = Hindsight(location=":memory:", embedder=FakeEmbedder(),
                       clock=FrozenClock(datetime(2024, 3, 3, tzinfo=timezone.utc)))
    try:
        assert Recipe().writer(memory) is memory
        plain = Recipe(pairing=False).writer(memory).write_many(
            ["I moved to Porto last spring."], user_id="u", contexts=["Where do you live now?"])[0]
        paired = memory.write_many(["My sister lives in Lisbon."], user_id="u", contexts=["And your family?"])[0]
        assert plain.record.context is None and paired.record.context == "And your family?"
        assert memory.write("Ok, thanks!", user_id="u").record is None  # the gate declines it ...
        assert Recipe(force=True).writer(memory).write("Ok, thanks!", user_id="u").record is not None  # ... not here
    finally:
        memory.close()
