"""Recall latency, write throughput, memory and disk use on the embedded store, beside the raw embedder.

    python benchmarks/speed.py [--sizes 1000 10000 100000] [--repeats 200] [--out benchmarks/results/speed.json]

For each store size N (one user, synthetic memories from `synthetic.py`, loaded
with `write_many(..., force=True)` in batches of 250 on the embedded on-disk store, near-duplicate
merging off so that the store holds N memories):
  - recall p50/p95 with the query embedding included, and excluded (queries pre-embedded);
  - the same top-k as a plain numpy dot product + argpartition over the same vectors (the floor);
  - Qdrant embedded mode's own filtered query over the same points, for scale;
  - reopening the store (loading the user's index from disk), the process's resident
    memory with the store open and its peak so far, and the store's bytes on disk per memory.
Write throughput: one `remember` at a time, and `write_many` batches, beside the
embedder's raw throughput on the same texts. Timings are wall-clock on this machine:
compare the ratios within one run, not across machines.

The synthetic texts' vectors are cached in benchmarks/results/cache/ (git-ignored):
embedding 100,000 texts takes about ten minutes on two cores, and is done once.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import resource
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from embedcache import CACHE_DIR, CachedEmbedder  # noqa: E402
from metrics import percentiles  # noqa: E402
from synthetic import QUERIES, synthetic_memories  # noqa: E402

from hindsight_core import Hindsight, HindsightConfig  # noqa: E402

BATCH = 250  # write_many checks each text against the rest of its batch in Python: O(batch²)


def scale_config() -> HindsightConfig:
    """Defaults, but every text stays its own memory: templated texts are often near-duplicates, which
    hindsight would merge, and a store of N memories must hold N (merging is measured on LoCoMo)."""
    base = HindsightConfig()
    semantic = getattr(base, "semantic", None)
    if semantic is None:
        return base
    # the similarity floors at 1.0 too: with the features off, they only decide how many neighbours
    # each write lists and then ignores (thousands per write in a 100k store of templated texts)
    return dataclasses.replace(base, semantic=dataclasses.replace(
        semantic, merge_duplicates=False, detect_conflicts=False, auto_consolidate=False,
        group_similarity=1.0, conflict_similarity=1.0, correction_similarity=1.0))


def rss_mb() -> float:
    """Resident memory of this process now, in MiB (from /proc; 0 where unavailable)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
    except (OSError, ValueError, IndexError):
        return 0.0


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (2**20 if sys.platform == "darwin" else 2**10), 1)


def folder_bytes(folder: str | Path) -> int:
    return sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file())


def timed(fn, repeats: int) -> list[float]:
    out = []
    for i in range(repeats):
        start = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - start) * 1000)
    return out


def bench_size(n: int, cached: CachedEmbedder, texts: list[str], repeats: int) -> dict:
    folder = tempfile.mkdtemp(prefix=f"hindsight-bench-{n}-")
    result: dict = {"memories": n}
    try:
        with Hindsight(path=folder, embedder=cached, config=scale_config()) as memory:
            start = time.perf_counter()
            for i in range(0, n, BATCH):
                memory.write_many(texts[i:i + BATCH], user_id="bench", force=True)
            result["load_s"] = round(time.perf_counter() - start, 2)
        result["disk_bytes_per_memory"] = round(folder_bytes(folder) / n)
        with Hindsight(path=folder, embedder=cached, config=scale_config()) as memory:
            start = time.perf_counter()
            stored = len(memory.memories(user_id="bench"))  # opening a user loads its index from disk
            result["reopen_s"] = round(time.perf_counter() - start, 2)
            result["stored"] = stored
            queries = [QUERIES[i % len(QUERIES)] + f" ({i})" for i in range(repeats)]
            cached.live = True
            included = timed(lambda i: memory.recall(queries[i], user_id="bench", reinforce=False), repeats)
            cached.live = False
            cached.warm(queries)
            excluded = timed(lambda i: memory.recall(queries[i], user_id="bench", reinforce=False), repeats)
            result["recall_query_embedding_included"] = percentiles(included)
            result["recall_query_embedding_excluded"] = percentiles(excluded)

            matrix = np.asarray(cached.embed(texts[:n]), dtype=np.float32)
            qv = cached.embed(queries)

            def numpy_topk(i):
                scores = matrix @ qv[i]
                top = np.argpartition(-scores, 5)[:5]
                return top[np.argsort(-scores[top])]

            result["numpy_dot_topk"] = percentiles(timed(numpy_topk, repeats))
            result["qdrant_embedded_filtered_query"] = qdrant_query_ms(memory, qv, max(5, repeats // 10))
            result["ratio_excluded_to_numpy_p50"] = round(
                result["recall_query_embedding_excluded"]["p50_ms"] / max(result["numpy_dot_topk"]["p50_ms"], 1e-6), 2)
            result["rss_store_open_mb"] = rss_mb()
            result["peak_rss_mb"] = peak_rss_mb()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return result


def qdrant_query_ms(memory: Hindsight, qv: np.ndarray, repeats: int) -> dict:
    """Qdrant's own filtered top-5 query over the user's points (what recall would cost without the index)."""
    from qdrant_client import models

    from hindsight_core.store.qdrant import VECTOR, collection_for

    client = memory.store.client
    flt = models.Filter(must=[models.FieldCondition(key="user_id", match=models.MatchValue(value="bench")),
                              models.FieldCondition(key="status", match=models.MatchValue(value="active"))])
    return percentiles(timed(lambda i: client.query_points(collection_for("bench"), query=qv[i].tolist(),
                                                           using=VECTOR, query_filter=flt, limit=5), repeats))


def bench_writes(embedder, texts: list[str], single: int = 200) -> dict:
    """Throughput of the raw embedder, single `remember` calls and `write_many` batches (model in the loop)."""
    sample_single, sample_batch = texts[:single], texts[single:]
    start = time.perf_counter()
    embedder.embed(sample_batch)
    raw = len(sample_batch) / (time.perf_counter() - start)
    out = {"raw_embedder_per_s": round(raw, 1)}
    folder = tempfile.mkdtemp(prefix="hindsight-bench-w-")
    try:
        with Hindsight(path=folder, embedder=embedder) as memory:
            start = time.perf_counter()
            for text in sample_single:
                memory.remember(text, user_id="w", force=True)
            out["single_writes_per_s"] = round(len(sample_single) / (time.perf_counter() - start), 1)
            start = time.perf_counter()
            for i in range(0, len(sample_batch), 500):
                memory.write_many(sample_batch[i:i + 500], user_id="w", force=True)
            out["batched_writes_per_s"] = round(len(sample_batch) / (time.perf_counter() - start), 1)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    out["batched_vs_raw"] = round(out["batched_writes_per_s"] / out["raw_embedder_per_s"], 2)
    return out


def print_report(report: dict) -> None:
    print(f"\n{'memories':>9} | {'recall p50/p95 (ms), embed incl.':>33} | {'excl.':>15} | {'numpy dot+topk':>15} | "
          f"{'ratio':>5} | {'qdrant embedded filtered':>24} | {'RSS MiB':>7} | {'disk B/mem':>10}")
    for r in report["sizes"]:
        inc, exc, npy, qd = (r["recall_query_embedding_included"], r["recall_query_embedding_excluded"],
                             r["numpy_dot_topk"], r["qdrant_embedded_filtered_query"])
        print(f"{r['memories']:>9,} | {inc['p50_ms']:>15.2f} / {inc['p95_ms']:<15.2f} | {exc['p50_ms']:>6.2f} / "
              f"{exc['p95_ms']:<6.2f} | {npy['p50_ms']:>6.3f} / {npy['p95_ms']:<6.3f} | "
              f"{r['ratio_excluded_to_numpy_p50']:>5} | {qd['p50_ms']:>10.1f} / {qd['p95_ms']:<10.1f} | "
              f"{r['rss_store_open_mb']:>7.0f} | {r['disk_bytes_per_memory']:>10,}")
    w = report["writes"]
    print(f"\nwrites/s: raw embedder {w['raw_embedder_per_s']}, single remember {w['single_writes_per_s']}, "
          f"batched write_many {w['batched_writes_per_s']} ({w['batched_vs_raw']:.0%} of raw)")
    print(f"peak RSS {report['peak_rss_mb']} MiB")


def main(argv: list[str] | None = None, embedder=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--write-sample", type=int, default=2000, help="texts for the batched-write timing")
    parser.add_argument("--cache", type=Path, default=CACHE_DIR / "synthetic-vectors.npy")
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "speed.json")
    args = parser.parse_args(argv)

    if embedder is None:
        from hindsight_core import SentenceTransformerEmbedder

        embedder = SentenceTransformerEmbedder()
    single = min(200, max(1, args.write_sample // 10))
    writes_n = single + args.write_sample
    texts = synthetic_memories(max(args.sizes + [writes_n]))
    cached = CachedEmbedder(embedder, None if args.no_cache else args.cache)
    scale_texts = texts[:max(args.sizes)]
    missing = sum(t not in cached for t in scale_texts)
    if missing:
        print(f"embedding {missing:,} synthetic memories once (cached in {args.cache.parent}) ...", flush=True)
        start = time.perf_counter()
        for i in range(0, len(scale_texts), 5000):  # in slices, saved as it goes: an interrupted run resumes
            cached.warm(scale_texts[i:i + 5000])
            cached.save()
        print(f"  {missing / (time.perf_counter() - start):.0f} texts/s")

    report = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
              "command": "python benchmarks/speed.py " + " ".join(argv if argv is not None else sys.argv[1:]),
              "synthetic": "synthetic.py: 12 templates filled with seeded random names, places, projects, items, "
                           "foods, dates and amounts",
              "sizes": [], "writes": bench_writes(embedder, texts[:writes_n], single)}
    for n in args.sizes:
        print(f"store of {n:,} memories ...", flush=True)
        report["sizes"].append(bench_size(n, cached, scale_texts[:n], args.repeats))
    report["peak_rss_mb"] = peak_rss_mb()
    print_report(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"\nwrote {args.out}")
    return report


if __name__ == "__main__":
    main()
