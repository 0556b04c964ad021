"""How long `hindsight` commands take, each in a fresh process as a user runs them (the README's CLI figures).

    python -m benchmarks.cli_timings [--runs 5] [--out benchmarks/results/cli_timings.json]

On a temporary embedded store with a few memories: commands that never load the
embedding model (`--help`, `stats`, `export`, `recall` on an empty store, `forget
--id`, `import` of an export with its vectors), and those that load the default
model (`remember`, `recall`). Mean and spread over `--runs` runs, wall-clock
from process start to exit, with the machine's load average beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from benchmarks.harness import write_results  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def run(args: list[str], env: dict, stdin: str | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "hindsight_core.cli", *args], env=env, input=stdin,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"hindsight {' '.join(args)} failed: {proc.stderr[-500:]}")
    return elapsed, proc.stdout


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "cli_timings.json")
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="hindsight-cli-"))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    store, empty = folder / "store", folder / "empty"
    base = ["--store", str(store)]
    try:
        for text in ("From now on, print all my reports in A4 landscape.", "My sister lives in Lisbon."):
            run([*base, "remember", "-u", "alice", text], env)
        exported = folder / "export.jsonl"
        run([*base, "export", "--user", "alice", str(exported)], env)
        memory_id = next(json.loads(line)["record"]["id"] for line in exported.read_text().splitlines()
                         if "record" in json.loads(line))
        commands = {
            "--help": ["--help"],
            "stats": [*base, "stats"],
            "export": [*base, "export", "--user", "alice", "-"],
            "recall, empty store": ["--store", str(empty), "recall", "-u", "alice", "print the handout"],
            "forget --id": [*base, "forget", "-u", "alice", "--id", memory_id, "--dry-run"],
            "import (with vectors)": ["--store", str(folder / "imported"), "import", str(exported)],
            "remember (loads the model)": [*base, "remember", "-u", "bob", "I prefer tea over coffee."],
            "recall (loads the model)": [*base, "recall", "-u", "alice", "print the board handout"],
        }
        results = {}
        for name, command in commands.items():
            samples = []
            for i in range(args.runs):
                if name.startswith("import"):
                    shutil.rmtree(folder / "imported", ignore_errors=True)
                samples.append(run(command, env)[0])
            results[name] = {"mean_s": round(statistics.mean(samples), 3), "min_s": round(min(samples), 3),
                             "max_s": round(max(samples), 3)}
            print(f"{name:>28}: {results[name]}", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    report = write_results(args.out, {"load_average": round(os.getloadavg()[0], 1), "runs": args.runs,
                                      "commands": results}, __file__, argv)
    print("wrote", args.out)
    return report


if __name__ == "__main__":
    main()
