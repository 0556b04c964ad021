"""The benchmarks' shared harness and their one entry point (no benchmark is run here: those are test_smoke.py's)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import harness
import render_readme

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
spec = importlib.util.spec_from_file_location("benchmarks_main", BENCHMARKS / "__main__.py")
entry = importlib.util.module_from_spec(spec)
spec.loader.exec_module(entry)


def test_a_result_file_says_when_where_and_how_it_was_made(tmp_path):
    out = tmp_path / "deep" / "r.json"
    report = harness.write_results(out, {"figure": 1.5, "text": "中文"}, "/somewhere/speed.py", ["--sizes", "200"])
    assert json.loads(out.read_text(encoding="utf-8")) == report
    assert report["command"] == "python benchmarks/speed.py --sizes 200" and report["figure"] == 1.5
    assert report["date"].endswith("+00:00") and "cores" in report["machine"]
    assert "中文" in out.read_text(encoding="utf-8")  # written as text, not escaped
    kept = harness.write_results(out, {"command": "python benchmarks/x.py --a", "date": "2026-01-01"}, "y.py", [])
    assert kept["command"] == "python benchmarks/x.py --a" and kept["date"] == "2026-01-01"


def test_a_labelled_run_joins_the_file_and_keeps_the_others(tmp_path):
    out = tmp_path / "tenants.json"
    harness.write_entry(out, "layout-a", {"rows": [1]}, "tenants.py", ["--label", "layout-a"])
    report = harness.write_entry(out, "layout-b", {"rows": [2]}, "tenants.py", ["--label", "layout-b"])
    assert json.loads(out.read_text(encoding="utf-8")) == report
    assert list(report) == ["layout-a", "layout-b"] and report["layout-a"]["rows"] == [1]
    assert report["layout-b"]["command"] == "python benchmarks/tenants.py --label layout-b"
    again = harness.write_entry(out, "layout-a", {"rows": [3]}, "tenants.py", [])
    assert again["layout-a"]["rows"] == [3] and again["layout-b"] == report["layout-b"]


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


def test_every_rendered_result_file_is_remade_by_make_bench():
    made = {name for name, _ in entry.FIGURES}
    rendered = {name for name, _ in render_readme.SECTIONS} | {"cli_timings.json", "model_load.json"}
    on_the_pages = {name for name in rendered if (BENCHMARKS / "results" / name).exists()}
    assert on_the_pages <= made
    for _, argv in entry.FIGURES:
        assert (BENCHMARKS / argv[0]).exists(), argv
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^bench:.*\n\tHF_HUB_OFFLINE=1 \$\(PY\) -m benchmarks all$", makefile, re.M)


def test_one_entry_point_runs_a_script_as_its_own_command_would(tmp_path):
    done = subprocess.run([sys.executable, "-m", "benchmarks", "render_readme", "--results", str(tmp_path), "--stdout"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("## Benchmarks") and "| what | figure | command |" in done.stdout
    unknown = subprocess.run([sys.executable, "-m", "benchmarks", "no_such_script"], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
    assert unknown.returncode != 0 and "python -m benchmarks list" in unknown.stderr
