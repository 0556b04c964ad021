"""Recall latency and write throughput on the embedded store, beside the raw embedder.

    python benchmarks/speed.py [--sizes 1000 10000] [--out benchmarks/results/speed.json]

For each store size N (one user, synthetic memories from `synthetic.py`):
  - recall p50/p95 with the query embedding included, and excluded (queries pre-embedded);
  - the same top-k as a plain numpy dot product + argpartition over the same vectors (the floor);
  - Qdrant embedded mode's own filtered query over the same points, for scale.
Write throughput: one `remember` at a time, and `write_many` batches, beside the
embedder's raw throughput on the same texts. Timings are wall-clock on this machine:
compare the ratios within one run, not across machines.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from synthetic import QUERIES, synthetic_memories  # noqa: E402

from hindsight_core import Hindsight, SentenceTransformerEmbedder  # noqa: E402


class CachedEmbedder:
    """Serves pre-computed vectors, so a timing can leave the model out."""

    def __init__(self, inner, cache: dict[str, np.ndarray]) -> None:
        self.inner, self.cache = inner, cache
        self.name, self.dimension = inner.name, inner.dimension

    def embed(self, texts):
        missing = [t for t in texts if t not in self.cache]
        if missing:
            for t, v in zip(missing, self.inner.embed(missing)):
                self.cache[t] = v
        return np.stack([self.cache[t] for t in texts])


def percentiles(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)
    return {"p50_ms": round(statistics.median(ordered), 3),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3)}


def timed(fn, repeats: int) -> list[float]:
    out = []
    for i in range(repeats):
        start = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - start) * 1000)
    return out


def bench_size(n: int, embedder, vectors_cache: dict, texts: list[str], repeats: int) -> dict:
    cached = CachedEmbedder(embedder, vectors_cache)
    folder = tempfile.mkdtemp(prefix=f"hindsight-bench-{n}-")
    result: dict = {"memories": n}
    with Hindsight(path=folder, embedder=cached) as memory:
        start = time.perf_counter()
        for i in range(0, n, 1000):
            memory.write_many(texts[i:i + 1000], user_id="bench", force=True)
        result["load_s"] = round(time.perf_counter() - start, 2)
        queries = [QUERIES[i % len(QUERIES)] + f" ({n}/{i})" for i in range(repeats)]  # unseen by the cache
        included = timed(lambda i: memory.recall(queries[i], user_id="bench", reinforce=False), repeats)
        cached.embed(queries)  # now pre-embedded
        excluded = timed(lambda i: memory.recall(queries[i], user_id="bench", reinforce=False), repeats)
        result["recall_query_embedding_included"] = percentiles(included)
        result["recall_query_embedding_excluded"] = percentiles(excluded)

        index = memory._indexes["bench"]
        matrix = index.vectors[: index.size].copy()
        qv = cached.embed(queries)

        def numpy_topk(i):
            scores = matrix @ qv[i]
            top = np.argpartition(-scores, 5)[:5]
            return top[np.argsort(-scores[top])]

        result["numpy_dot_topk"] = percentiles(timed(numpy_topk, repeats))

        from qdrant_client import models

        from hindsight_core.store.qdrant import VECTOR, collection_for

        client = memory.store.client
        flt = models.Filter(must=[models.FieldCondition(key="user_id", match=models.MatchValue(value="bench")),
                                  models.FieldCondition(key="status", match=models.MatchValue(value="active"))])
        qdrant_ms = timed(lambda i: client.query_points(collection_for("bench"), query=qv[i].tolist(), using=VECTOR,
                                                        query_filter=flt, limit=5),
                          max(5, repeats // 10))
        result["qdrant_embedded_filtered_query"] = percentiles(qdrant_ms)
        result["ratio_excluded_to_numpy_p50"] = round(
            result["recall_query_embedding_excluded"]["p50_ms"] / max(result["numpy_dot_topk"]["p50_ms"], 1e-6), 2)
    return result


def bench_writes(embedder, texts: list[str]) -> dict:
    sample_single, sample_batch = texts[:200], texts[200:2200]
    start = time.perf_counter()
    embedder.embed(sample_batch)
    raw = len(sample_batch) / (time.perf_counter() - start)
    out = {"raw_embedder_per_s": round(raw, 1)}
    with Hindsight(path=tempfile.mkdtemp(prefix="hindsight-bench-w-"), embedder=embedder) as memory:
        start = time.perf_counter()
        for text in sample_single:
            memory.remember(text, user_id="w", force=True)
        out["single_writes_per_s"] = round(len(sample_single) / (time.perf_counter() - start), 1)
        start = time.perf_counter()
        for i in range(0, len(sample_batch), 500):
            memory.write_many(sample_batch[i:i + 500], user_id="w", force=True)
        out["batched_writes_per_s"] = round(len(sample_batch) / (time.perf_counter() - start), 1)
    out["batched_vs_raw"] = round(out["batched_writes_per_s"] / out["raw_embedder_per_s"], 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "speed.json")
    args = parser.parse_args()

    embedder = SentenceTransformerEmbedder()
    texts = synthetic_memories(max(args.sizes + [2200]))
    print(f"embedding {len(texts):,} synthetic memories once ...", flush=True)
    start = time.perf_counter()
    cache = dict(zip(texts, embedder.embed(texts)))
    print(f"  {len(texts) / (time.perf_counter() - start):.0f} texts/s")

    report = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
              "sizes": [], "writes": bench_writes(embedder, texts)}
    for n in args.sizes:
        print(f"store of {n:,} memories ...", flush=True)
        report["sizes"].append(bench_size(n, embedder, cache, texts[:n], args.repeats))

    print(f"\n{'memories':>9} | {'recall p50/p95 (ms), embed incl.':>33} | {'excl.':>15} | {'numpy dot+topk':>15} | "
          f"{'ratio':>5} | {'qdrant embedded filtered':>24}")
    for r in report["sizes"]:
        inc, exc, npy, qd = (r["recall_query_embedding_included"], r["recall_query_embedding_excluded"],
                             r["numpy_dot_topk"], r["qdrant_embedded_filtered_query"])
        print(f"{r['memories']:>9,} | {inc['p50_ms']:>15.2f} / {inc['p95_ms']:<15.2f} | {exc['p50_ms']:>6.2f} / "
              f"{exc['p95_ms']:<6.2f} | {npy['p50_ms']:>6.3f} / {npy['p95_ms']:<6.3f} | "
              f"{r['ratio_excluded_to_numpy_p50']:>5} | {qd['p50_ms']:>10.1f} / {qd['p95_ms']:<10.1f}")
    w = report["writes"]
    print(f"\nwrites/s: raw embedder {w['raw_embedder_per_s']}, single remember {w['single_writes_per_s']}, "
          f"batched write_many {w['batched_writes_per_s']} ({w['batched_vs_raw']:.0%} of raw)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
