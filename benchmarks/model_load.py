"""How long the default embedding model takes to load in a fresh process (the README's model-load figure).

    python -m benchmarks.model_load [--runs 3] [--model multilingual-e5-small]
                                    [--out benchmarks/results/model_load.json]

Each run is a new Python process that imports hindsight, makes the embedder and
embeds one text (the load happens on the first text), timed inside the process:
import, then load plus the first text, then a second text (the steady cost).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from benchmarks.harness import write_results

ROOT = Path(__file__).resolve().parent.parent

_CHILD = """
import json, sys, time
t0 = time.perf_counter()
from hindsight_core.embed.embedder import embedder_named
t1 = time.perf_counter()
embedder = embedder_named(sys.argv[1])
embedder.embed(["The first text loads the model."])
t2 = time.perf_counter()
embedder.embed(["A second text costs only its embedding."])
t3 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "load_and_first_text_s": t2 - t1, "second_text_s": t3 - t2}))
"""


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--model", default=None, help="default: hindsight's default model")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "model_load.json")
    args = parser.parse_args(argv)
    from hindsight_core.embed.embedder import DEFAULT_MODEL

    model = args.model or DEFAULT_MODEL
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    runs = []
    for _ in range(args.runs):
        out = subprocess.run([sys.executable, "-c", _CHILD, model], env=env, capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(runs[-1], flush=True)
    report = write_results(args.out, {"load_average": round(os.getloadavg()[0], 1), "model": model, "runs": runs,
                                      "median": {k: round(statistics.median(r[k] for r in runs), 3)
                                                 for k in runs[0]}}, __file__, argv)
    print("median", report["median"], "; wrote", args.out)
    return report


if __name__ == "__main__":
    main()
