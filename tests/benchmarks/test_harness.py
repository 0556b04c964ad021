"""The benchmarks' shared harness and their one entry point (no benchmark is run here: those are test_smoke.py's)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

from benchmarks import harness
from benchmarks import render_readme

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
RESULTS = BENCHMARKS / "results"
spec = importlib.util.spec_from_file_location("benchmarks_main", BENCHMARKS / "__main__.py")
entry = importlib.util.module_from_spec(spec)
spec.loader.exec_module(entry)


def test_a_result_file_says_when_where_and_how_it_was_made(tmp_path):
    out = tmp_path / "deep" / "r.json"
    report = harness.write_results(out, {"figure": 1.5, "text": "中文"}, "/somewhere/speed.py", ["--sizes", "200"])
    assert json.loads(out.read_text(encoding="utf-8")) == report
    assert report["command"] == "python -m benchmarks.speed --sizes 200" and report["figure"] == 1.5
    assert report["date"].endswith("+00:00") and "cores" in report["machine"]
    assert "中文" in out.read_text(encoding="utf-8")  # written as text, not escaped
    kept = harness.write_results(out, {"command": "python -m benchmarks.x --a", "date": "2026-01-01"}, "y.py", [])
    assert kept["command"] == "python -m benchmarks.x --a" and kept["date"] == "2026-01-01"


def test_a_labelled_run_joins_the_file_and_keeps_the_others(tmp_path):
    out = tmp_path / "tenants.json"
    harness.write_entry(out, "layout-a", {"rows": [1]}, "tenants.py", ["--label", "layout-a"])
    report = harness.write_entry(out, "layout-b", {"rows": [2]}, "tenants.py", ["--label", "layout-b"])
    assert json.loads(out.read_text(encoding="utf-8")) == report
    assert list(report) == ["layout-a", "layout-b"] and report["layout-a"]["rows"] == [1]
    assert report["layout-b"]["command"] == "python -m benchmarks.tenants --label layout-b"
    again = harness.write_entry(out, "layout-a", {"rows": [3]}, "tenants.py", [])
    assert again["layout-a"]["rows"] == [3] and again["layout-b"] == report["layout-b"]


def test_a_main_run_keeps_the_entries_another_run_wrote(tmp_path):
    out = tmp_path / "adapter_overhead.json"
    harness.write_results(out, {"arms": {"quiet": 1}}, "adapter_overhead.py", ["--turns", "15"])
    harness.write_entry(out, "turn_cost", {"remember": 2}, "adapter_overhead.py", ["--turn-cost"])
    again = harness.write_results(out, {"arms": {"quiet": 3}}, "adapter_overhead.py", ["--turns", "15"],
                                  keep=("turn_cost",))
    assert json.loads(out.read_text(encoding="utf-8")) == again
    assert again["arms"] == {"quiet": 3} and again["turn_cost"]["remember"] == 2
    assert again["turn_cost"]["command"] == "python -m benchmarks.adapter_overhead --turn-cost"
    plain = harness.write_results(out, {"arms": {}}, "adapter_overhead.py", [])
    assert "turn_cost" not in plain  # only what is named is kept


def test_the_adapter_benchmarks_main_run_keeps_turn_cost(tmp_path, monkeypatch):
    """`make bench` runs adapter_overhead.py, then --turn-cost (which adds its entry); a later main run keeps it.
    The arms are replaced by constants here: what is checked is the file, not a timing."""
    import contextlib

    from benchmarks import adapter_overhead
    from hindsight_core.testing import FakeEmbedder

    stat = {"p50_ms": 1.0, "p95_ms": 2.0}
    monkeypatch.setattr(adapter_overhead, "embedder_named", lambda name: FakeEmbedder())
    monkeypatch.setattr(adapter_overhead, "cpu_hogs", lambda on: contextlib.nullcontext(0))
    for arm in ("query_embedding", "journal_append"):
        monkeypatch.setattr(adapter_overhead, arm, lambda *args: stat)
    for arm in ("langchain_arm", "llamaindex_arm"):
        monkeypatch.setattr(adapter_overhead, arm, lambda *args: {"write_hook": stat, "recall_hook": stat,
                                                                  "hand_over": stat})
    out = tmp_path / "adapter_overhead.json"
    harness.write_entry(out, "turn_cost", {"remember": 2}, "adapter_overhead.py", ["--turn-cost"])
    report = adapter_overhead.main(["--turns", "1", "--out", str(out)])
    assert report["turn_cost"]["remember"] == 2 and set(report["arms"]) == {"quiet", "loaded"}
    assert json.loads(out.read_text(encoding="utf-8")) == report


def test_timings_are_milliseconds_summarised_one_way():
    samples = harness.timed(lambda i: sum(range(100 * i)), range(20))
    assert len(samples) == 20 and all(s >= 0 for s in samples)
    summary = harness.percentiles([5.0, 1.0, 3.0, 2.0, 4.0])
    assert summary == {"p50_ms": 3.0, "p95_ms": 5.0}
    assert harness.best_of(lambda: None, 3) >= 0


def test_every_file_of_the_folder_is_named_in_its_readme():
    readme = (BENCHMARKS / "README.md").read_text(encoding="utf-8")
    files = [p.name for p in BENCHMARKS.iterdir() if p.suffix in (".py", ".sh")]
    assert files
    missing = [name for name in files if f"`{name}`" not in readme and f"`{name} " not in readme]
    assert missing == []


def test_list_names_every_script_with_its_first_line():
    scripts = entry.scripts()
    assert {p.stem for p in BENCHMARKS.glob("*.py") if not p.name.startswith("__")} == set(scripts)
    assert all(scripts.values()), [name for name, line in scripts.items() if not line]


def _read_by_the_pages(monkeypatch) -> set[str]:
    """The result files the README, docs/benchmarks.md and the plots are made from, as the renderer reads them
    (every name it asks `_load` for, whether the file is there or not) and as `plots.PLOTS` names them."""
    from benchmarks import plots

    read: set[str] = set()
    load = render_readme._load

    def recording(results: Path, name: str):
        read.add(name)
        return load(results, name)

    monkeypatch.setattr(render_readme, "_load", recording)
    render_readme.render(RESULTS)
    render_readme.render_summary(RESULTS)
    return read | {name for name, _ in plots.PLOTS}


def _recorded_commands(report: dict) -> list[str]:
    """The commands a result file says made it: its own, and each labelled or kept entry's."""
    found = [report["command"]] if "command" in report else []
    found += [entry["command"] for key, entry in report.items()
              if key != render_readme.HISTORY and isinstance(entry, dict) and "command" in entry]
    return [" ".join(command.split()) for command in found]


def _script(command: str) -> str:
    """The module a command runs (`python -m benchmarks.NAME ...`)."""
    return command.split()[2]


def test_every_figure_on_the_pages_comes_from_a_file_a_step_of_benchmarks_all_writes(monkeypatch):
    """Every result file the pages render is named by a step of `python -m benchmarks all` (FIGURES) and was made
    by that step's script, so `make bench` remakes every figure the README shows. A file one run made records
    that step's very command; a file its script keeps from several runs (`earlier_runs`: ablations.py keeps the
    rows of a run of some variants over the same sets) records runs of that script."""
    steps: dict[str, set[str]] = {}
    for name, argv in entry.FIGURES:
        assert (BENCHMARKS / argv[0]).exists(), argv
        steps.setdefault(name, set()).add(" ".join(["python", "-m", f"benchmarks.{argv[0].removesuffix('.py')}",
                                                    *argv[1:]]))
    read = _read_by_the_pages(monkeypatch)
    assert read and sorted(read - set(steps)) == []
    not_from_a_step = {}
    for name in sorted(read):
        if not (RESULTS / name).exists():
            continue
        report = json.loads((RESULTS / name).read_text(encoding="utf-8"))
        commands = _recorded_commands(report)
        assert commands, f"{name} does not say what made it"
        if report.get("earlier_runs"):
            scripts = {_script(step) for step in steps[name]}
            wrong = [c for c in [*commands, *report["earlier_runs"]] if _script(c) not in scripts]
        else:
            wrong = [c for c in commands if c not in steps[name]]
        not_from_a_step.update({f"{name}: {c}": sorted(steps[name]) for c in wrong})
    assert not_from_a_step == {}
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^bench:.*\n\tHF_HUB_OFFLINE=1 \$\(PY\) -m benchmarks all$", makefile, re.M)


def test_every_script_named_in_the_readme_is_in_the_folder():
    readme = (BENCHMARKS / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-z_0-9]+\.(?:py|sh))[` ]", readme))
    assert named and sorted(name for name in named if not (BENCHMARKS / name).exists()) == []


def test_every_rendered_run_of_a_labelled_file_is_one_make_bench_remakes():
    """tenants.json keeps a run per label; a run `make bench` cannot remake (an earlier store layout) is history,
    which the pages do not render."""
    labels = {argv[argv.index("--label") + 1] for name, argv in entry.FIGURES if name == "tenants.json"}
    stored = json.loads((BENCHMARKS / "results" / "tenants.json").read_text(encoding="utf-8"))
    assert set(stored) - {render_readme.HISTORY} <= labels
    rendered = render_readme.render(BENCHMARKS / "results")
    old = [label for label in stored.get(render_readme.HISTORY, {}) if label != "note"]
    assert old and not [label for label in old if f"| {label} |" in rendered]
    assert all(f"| {label} |" in rendered for label in set(stored) - {render_readme.HISTORY})


def test_one_entry_point_runs_a_script_as_its_own_command_would(tmp_path):
    done = subprocess.run([sys.executable, "-m", "benchmarks", "render_readme", "--results", str(tmp_path), "--stdout"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("## Benchmarks") and "| what | figure | command |" in done.stdout
    unknown = subprocess.run([sys.executable, "-m", "benchmarks", "no_such_script"], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
    assert unknown.returncode != 0 and "python -m benchmarks list" in unknown.stderr


def test_the_benchmarks_are_a_package_that_edits_no_import_path():
    """Every script imports its siblings as `benchmarks.NAME` and runs as `python -m benchmarks.NAME`: no script
    puts a folder on sys.path, and none imports a sibling by its bare name."""
    siblings = {p.stem for p in BENCHMARKS.glob("*.py") if not p.stem.startswith("__")}
    bare = re.compile(rf"^\s*(?:from ({'|'.join(siblings)}) import|import ({'|'.join(siblings)})\b)", re.M)
    offenders = {p.name: m.group(0).strip() for p in [*BENCHMARKS.rglob("*.py"), *Path(__file__).parent.glob("*.py")]
                 for m in [bare.search(p.read_text(encoding="utf-8"))] if m}
    assert offenders == {}
    assert [p.name for p in BENCHMARKS.rglob("*.py") if "sys.path" in p.read_text(encoding="utf-8")] == []
