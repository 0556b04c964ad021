"""One entry point for the benchmarks.

    python -m benchmarks list              # every script, one line each
    python -m benchmarks NAME [ARGS...]    # the same as python benchmarks/NAME.py [ARGS...]
    python -m benchmarks all [--dry-run]   # every run behind a figure of the README or docs/benchmarks.md,
                                           # then the plots and the rendered sections (what `make bench` does)

Run from the repository root, with hindsight installed (`pip install -e ".[all]"`: `make bench` does).
"""

from __future__ import annotations

import ast
import runpy
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: (result file, arguments of its script): the run behind each result file a page renders, as each file
#: records it (`command`). Runs write into benchmarks/results/; the order puts the slow LoCoMo runs last
#: but one, so the quick figures are refreshed first; the plots and the pages are redrawn at the end.
FIGURES: list[tuple[str, list[str]]] = [
    ("model_load.json", ["model_load.py", "--runs", "3"]),
    ("cli_timings.json", ["cli_timings.py", "--runs", "3"]),
    ("embedder_batch.json", ["embedder_batch.py"]),
    ("multilingual.json", ["multilingual.py"]),
    ("poisoning.json", ["poisoning.py", "--shared", "../shared/benchmarks"]),  # BIPIA: its default, named
    ("serve.json", ["serve_latency.py"]),
    ("forget_races.json", ["forget_races.py"]),
    ("adapter_overhead.json", ["adapter_overhead.py", "--turns", "15"]),
    ("adapter_overhead.json", ["adapter_overhead.py", "--turn-cost", "--turns", "12"]),  # after: adds turn_cost
    # and turn_cost_busy: the same under a CPU hog per core
    ("adapter_overhead.json", ["adapter_overhead.py", "--turn-cost", "--hogs", "--turns", "16"]),
    ("audit_speed.json", ["audit_speed.py"]),
    ("knowledge.json", ["knowledge.py", "--out", "benchmarks/results/knowledge.json"]),
    # the held-out slices and the steps of the change rules, which docs/ quotes beside their commands
    ("knowledge_fresh.json", ["knowledge.py", "--data", "benchmarks/data/knowledge/fresh.jsonl",
                              "--out", "benchmarks/results/knowledge_fresh.json"]),
    ("knowledge_fresh2.json", ["knowledge.py", "--data", "benchmarks/data/knowledge/fresh2.jsonl",
                               "--out", "benchmarks/results/knowledge_fresh2.json"]),
    ("knowledge_fresh3.json", ["knowledge.py", "--data", "benchmarks/data/knowledge/fresh3.jsonl",
                               "--out", "benchmarks/results/knowledge_fresh3.json"]),
    ("knowledge_fresh4.json", ["knowledge.py", "--data", "benchmarks/data/knowledge/fresh4.jsonl",
                               "--out", "benchmarks/results/knowledge_fresh4.json"]),
    ("knowledge_fresh5.json", ["knowledge.py", "--data", "benchmarks/data/knowledge/fresh5.jsonl",
                               "--out", "benchmarks/results/knowledge_fresh5.json"]),
    ("knowledge_calibration.json", ["knowledge_calibration.py", "--limit", "1"]),
    ("knowledge_steps.json", ["knowledge_steps.py"]),
    ("change_steps.json", ["change_steps.py"]),
    ("write_cost.json", ["write_cost.py", "--limit", "2", "--sessions", "3"]),
    ("decisions.json", ["decisions.py"]),
    # the e5 vectors of madial's texts, as ablations.py caches them (the same model: the same figures, less waiting)
    ("madial.json", ["madial.py", "--cache", "benchmarks/results/cache/ablations-multilingual-e5-small.npy"]),
    ("tenants.json", ["tenants.py", "--users", "100", "1000", "--sample", "50", "--forget", "5",
                      "--label", "shared-shards"]),
    ("tenants.json", ["tenants.py", "--users", "1000", "--sample", "50", "--forget", "5",
                      "--label", "shared-shards-1k-paged-out"]),
    ("tenants.json", ["tenants.py", "--users", "1000", "--sample", "50", "--forget", "5", "--model", "default",
                      "--label", "default-model-1k"]),
    ("tenants.json", ["tenants.py", "--users", "10000", "--sample", "50", "--forget", "5",
                      "--label", "shared-shards-10k-paged-out"]),
    ("tenants_served.json", ["tenants.py", "--serve", "--users", "1000", "--sample", "50", "--forget", "5",
                             "--clients", "16", "--label", "served-1k-16-clients-paged-out"]),
    ("speed.json", ["speed.py", "--sizes", "10000", "20000", "100000", "--repeats", "200", "--write-sample", "2000",
                    "--overhead-sample", "5000", "--auto-index", "20000"]),
    ("speed_1m.json", ["speed.py", "--sizes", "--million", "--no-writes", "--auto-index", "--repeats", "100",
                       "--out", "benchmarks/results/speed_1m.json"]),
    ("working_memory.json", ["working_memory.py"]),
    ("locomo_adapters.json", ["locomo_bench.py", "--protocol", "adapters"]),
    ("ablations.json", ["ablations.py"]),
    ("locomo.json", ["locomo_bench.py", "--systems", "hindsight", "hindsight-force", "bm25", "dense", "rrf",
                     "langchain", "llamaindex", "--cached-queries", "--out", "benchmarks/results/locomo.json"]),
    ("locomo_mem0.json", ["locomo_bench.py", "--systems", "mem0", "--out", "benchmarks/results/locomo_mem0.json"]),
    ("locomo.json", ["locomo_bench.py", "--merge", "benchmarks/results/locomo_mem0.json"]),
]
PAGES: list[list[str]] = [["plots.py"], ["render_readme.py"]]


def scripts() -> dict[str, str]:
    """Every script of the folder with the first line of its docstring."""
    out = {}
    for path in sorted(HERE.glob("*.py")):
        if path.name.startswith("__"):
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        out[path.stem] = doc.splitlines()[0] if doc else ""
    return out


def run_script(name: str, args: list[str]) -> None:
    """Run benchmarks/NAME.py as `python -m benchmarks.NAME ARGS` would."""
    path = HERE / (name if name.endswith(".py") else f"{name}.py")
    if not path.exists() or path.name.startswith("__"):
        raise SystemExit(f"no benchmark {name!r}; `python -m benchmarks list` names them")
    sys.argv = [str(path), *args]
    runpy.run_module(f"benchmarks.{path.stem}", run_name="__main__", alter_sys=True)


def run_all(dry_run: bool = False) -> int:
    """Each run of FIGURES, then PAGES, each in its own process (a failure is reported, the rest still run)."""
    failed = []
    for argv in [a for _, a in FIGURES] + PAGES:
        module = "benchmarks." + argv[0].removesuffix(".py")
        line = " ".join(["python -m " + module, *argv[1:]])
        print(f"== {line}", flush=True)
        if dry_run:
            continue
        if subprocess.run([sys.executable, "-m", module, *argv[1:]], cwd=HERE.parent).returncode != 0:
            failed.append(line)
    for line in failed:
        print(f"failed: {line}", file=sys.stderr)
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if argv[0] == "list":
        for name, line in scripts().items():
            print(f"{name:<24} {line}")
        return 0
    if argv[0] == "all":
        return run_all(dry_run="--dry-run" in argv[1:])
    run_script(argv[0], argv[1:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
