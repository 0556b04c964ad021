"""Recall latency, write throughput, memory and disk use on the embedded store (Qdrant Edge), in one run.

    python -m benchmarks.speed [--sizes 10000 100000] [--million] [--repeats 200]
                               [--out benchmarks/results/speed.json]

Scale (one user, N memories): the vectors come from a zero-cost embedder
(seeded random unit vectors, so the engine and the library are measured, not
the model), loaded with `write_many(..., force=True)` in batches of 1,000 with
the write rules that compare neighbours switched off (a store of N memories
must hold N). For each N:
  - recall p50/p95 with the query embedding excluded, with the vector index
    not built (exact search: what a store has until `optimize`) and built;
  - the same top-5 as a numpy dot product + argpartition over the same vectors in RAM;
  - reopening the store and the first recall after it, resident memory with the
    store open (the benchmark's own vector matrix is freed first), disk per memory,
    and how long building the index (`Hindsight.optimize`) took; and the resident memory of a fresh process
    that loads the default model and opens the store (`rss_fresh_process_mb`: what a user's process holds).
Writes: the real model (the default, multilingual-e5-small; `--embedder`) alone, single `remember` calls (after
the user's first write, timed apart: it registers the user and, on a fresh store, creates the shared shard) and
`write_many` batches with the default write rules; and the zero-cost embedder
with the defaults, with a write audit that allows everything at once (`zero_cost_noop_audit`: the rest of a
write apart from the audit) and with the neighbour rules off (library overhead alone). Each write rate is also
given in the process's own CPU time (`*_per_cpu_s`), which others' load on a shared machine moves far less, and
a batched write's CPU time by stage (`stages_us_per_write`, `write_stages`).
Timings are wall-clock on this machine: compare ratios within one run.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchmarks.harness import percentiles, stamped, timed, write_results  # noqa: E402
from benchmarks.synthetic import QUERIES, synthetic_memories  # noqa: E402

from hindsight_core import Hindsight, HindsightConfig  # noqa: E402

BATCH = 1000


class ZeroCostEmbedder:
    """Seeded random unit vectors, one per distinct text: an embedder that costs (almost) nothing."""

    name = "zero-cost-random"

    def __init__(self, dimension: int = 384) -> None:
        self.dimension = dimension

    def embed(self, texts):
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            rng = np.random.default_rng(abs(hash(text)) % (2**32))
            v = rng.standard_normal(self.dimension).astype(np.float32)
            out[i] = v / np.linalg.norm(v)
        return out


def scale_config() -> HindsightConfig:
    """Defaults, but every text stays its own memory (templated texts are often near-duplicates, which
    hindsight would merge; merging is measured on LoCoMo), and no rule compares neighbours on write."""
    base = HindsightConfig()
    return dataclasses.replace(base, semantic=dataclasses.replace(
        base.semantic, merge_duplicates=False, detect_conflicts=False, auto_consolidate=False))


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


_FRESH_PROCESS = """
import sys
from benchmarks.speed import ZeroCostEmbedder, scale_config, rss_mb
from benchmarks.synthetic import QUERIES
from hindsight_core import Hindsight
from hindsight_core.embed.embedder import DEFAULT_MODEL, embedder_named
from hindsight_core.store import EdgeStore
model = embedder_named(DEFAULT_MODEL)
model.embed(["the model's weights, loaded and used"])
with Hindsight(store=EdgeStore({folder!r}, auto_index=None), embedder=ZeroCostEmbedder(),
               config=scale_config()) as memory:
    for query in QUERIES[:20]:
        memory.recall(query, user_id="bench", reinforce=False)
    print(rss_mb())
"""


def rss_in_a_fresh_process(folder: str) -> float:
    """Resident MiB of a new process that loads the default model and opens the store, as a user's would
    (this benchmark's own process holds every earlier phase's memory)."""
    here = Path(__file__).resolve().parent
    code = _FRESH_PROCESS.format(folder=str(folder))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=here.parent)
    return float(out.stdout.strip().splitlines()[-1])


def folder_bytes(folder: str | Path) -> int:
    """Bytes allocated on disk (Edge preallocates its log files sparsely: their apparent size is not used space)."""
    return sum(p.stat().st_blocks * 512 for p in Path(folder).rglob("*") if p.is_file())


def bench_auto_index(n: int, texts: list[str], repeats: int) -> dict:
    """The store as users get it: the vector index built automatically in a child process while writes go on.

    The load's slowest batch shows the stall of copying the shard when a build
    starts; then the wait for the build, and recall with the index swapped in.
    """
    embedder = ZeroCostEmbedder()
    folder = tempfile.mkdtemp(prefix=f"hindsight-bench-auto-{n}-")
    result: dict = {"memories": n}
    try:
        with Hindsight(path=folder, embedder=embedder, config=scale_config()) as memory:
            batches = []
            start = time.perf_counter()
            for i in range(0, n, BATCH):
                t = time.perf_counter()
                memory.write_many(texts[i:i + BATCH], user_id="bench", force=True)
                batches.append((time.perf_counter() - t) * 1000)
            result["load_writes_per_s"] = round(n / (time.perf_counter() - start), 1)
            result["batch_ms"] = {**percentiles(batches), "max_ms": round(max(batches), 1)}
            start = time.perf_counter()
            memory.store.wait_for_index()
            result["index_wait_after_load_s"] = round(time.perf_counter() - start, 1)
            result["builds"] = list(memory.store._indexer.completed) if memory.store._indexer else []
            queries = [QUERIES[i % len(QUERIES)] + f" ({i})" for i in range(repeats)]
            memory.recall(queries[0], user_id="bench", reinforce=False)
            result["recall_excluded"] = percentiles(
                timed(lambda i: memory.recall(queries[i], user_id="bench", reinforce=False), range(repeats)))
            result["recall_excluded_reinforce"] = percentiles(
                timed(lambda i: memory.recall(queries[i], user_id="bench"), range(repeats)))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return result


def recall_breakdown(memory: Hindsight, queries: list[str], repeats: int) -> dict:
    """Where one recall's time goes (p50 ms, query embedding excluded), each part timed over the same queries:

    - `engine_bare`: the recall's query plan sent straight to the Qdrant Edge shard holding the user (fused dense + BM25
      prefetches, rescored by the ranking formula), ids and scores only: the engine's floor;
    - `engine_call`: the same with the payloads and vectors a recall reads returned;
    - `store_search`: the same through `EdgeStore.search`, which also reads each returned point back into a
      record (unsealing its text, checking its fields);
    - `recall`: the whole `Hindsight.recall` (query checks, time hints, the plan, explanations, final order).

    It runs after `recall_indexed_excluded` has asked the same queries once, so the engine's pages and the
    memories' keys are warm: its `recall` is below that first pass (on this machine by 1-2 ms at 20k).
    """
    from hindsight_core.contract.options import RecallOptions
    from hindsight_core.recall import plan as recall_plan
    from hindsight_core.store import Scope
    from hindsight_core.store.edge_query import edge_filter, engine_batch

    store, cfg = memory.store, memory.config.recall
    scope = Scope.of(RecallOptions().checked(memory.config))

    from hindsight_core.store.keywords import weighted
    from qdrant_edge import QueryBatchRequest, QueryRequest

    def request(query: str):  # as Hindsight.recall builds it for k=5
        now = memory.now()
        return recall_plan.build_request(
            memory._embed_query([query])[0], query, recall=cfg, decay=memory.config.decay,
            episode_weight=memory.config.semantic.episode_weight, now=now, scope=scope, limit=15,
            min_similarity=cfg.min_similarity, multilingual_dense=False, priors=recall_plan.time_priors(query, now))

    requests = [request(q) for q in queries]
    shard, tenant = store._shard("bench", "memories"), store._tenant("bench")
    counts = store._keyword_counts("bench", shard, tenant)  # the user's keyword weights, as search applies them
    batches = [engine_batch(weighted(r, counts), edge_filter(r.scope, tenant, store._id_digest("bench")))
               for r in requests]
    bare = [QueryBatchRequest([QueryRequest(limit=b.queries[0].limit, prefetches=b.queries[0].prefetches,
                                            query=b.queries[0].query, with_payload=False, with_vector=False)])
            for b in batches]
    return {"engine_bare": percentiles(timed(lambda i: shard.query_batch(bare[i]), range(repeats))),
            "engine_call": percentiles(timed(lambda i: shard.query_batch(batches[i]), range(repeats))),
            "store_search": percentiles(timed(lambda i: store.search("bench", requests[i]), range(repeats))),
            "recall": percentiles(timed(lambda i: memory.recall(queries[i], user_id="bench", reinforce=False),
                                        range(repeats)))}


def bench_size(n: int, texts: list[str], repeats: int, build_index: bool = True) -> dict:
    """Exact search (the automatic index switched off), then the index built by `optimize`, against numpy."""
    import gc

    from hindsight_core.store import EdgeStore

    embedder = ZeroCostEmbedder()
    folder = tempfile.mkdtemp(prefix=f"hindsight-bench-{n}-")
    result: dict = {"memories": n}
    try:
        with Hindsight(store=EdgeStore(folder, auto_index=None), embedder=embedder, config=scale_config()) as memory:
            start = time.perf_counter()
            for i in range(0, n, BATCH):
                memory.write_many(texts[i:i + BATCH], user_id="bench", force=True)
            result["load_writes_per_s"] = round(n / (time.perf_counter() - start), 1)
        result["disk_bytes_per_memory"] = round(folder_bytes(folder) / n)
        queries = [QUERIES[i % len(QUERIES)] + f" ({i})" for i in range(repeats)]
        qv = embedder.embed(queries)
        matrix = embedder.embed(texts[:n])

        def numpy_topk(i):
            scores = matrix @ qv[i]
            top = np.argpartition(-scores, 5)[:5]
            return top[np.argsort(-scores[top])]

        result["numpy_dot_topk"] = percentiles(timed(numpy_topk, range(repeats)))
        matrix = None  # its memory given back before the store is measured
        gc.collect()
        rss_before = rss_mb()
        start = time.perf_counter()
        with Hindsight(store=EdgeStore(folder, auto_index=None), embedder=embedder,
                       config=scale_config()) as memory:
            memory.recall(queries[0], user_id="bench", reinforce=False)
            result["reopen_and_first_recall_s"] = round(time.perf_counter() - start, 3)
            result["rss_store_open_mb"] = rss_mb()
            result["rss_before_open_mb"] = rss_before
            exact = timed(lambda i: memory.recall(queries[i], user_id="bench", reinforce=False), range(repeats))
            result["recall_exact_excluded"] = percentiles(exact)
            if build_index:
                start = time.perf_counter()
                memory.optimize(user_id="bench")
                result["optimize_s"] = round(time.perf_counter() - start, 1)
                indexed = timed(lambda i: memory.recall(queries[i], user_id="bench", reinforce=False), range(repeats))
                result["recall_indexed_excluded"] = percentiles(indexed)
                result["recall_breakdown_indexed"] = recall_breakdown(memory, queries, repeats)
                result["rss_indexed_mb"] = rss_mb()
        result["rss_fresh_process_mb"] = rss_in_a_fresh_process(folder)
        best = result.get("recall_indexed_excluded", result["recall_exact_excluded"])["p50_ms"]
        result["ratio_best_to_numpy_p50"] = round(best / max(result["numpy_dot_topk"]["p50_ms"], 1e-6), 2)
        result["peak_rss_mb"] = peak_rss_mb()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return result


def allow_everything(text: str, source):
    """A write audit that finds nothing (`zero_cost_noop_audit`: what a write costs apart from its audit)."""
    from hindsight_core.safety.verdict import Action, AuditVerdict

    return AuditVerdict(Action.ALLOW, None, (), 0.0, source)


def _write_rates(embedder, texts: list[str], single: int, config: HindsightConfig | None, audit=None) -> dict:
    out = {}
    folder = tempfile.mkdtemp(prefix="hindsight-bench-w-")
    try:
        with Hindsight(path=folder, embedder=embedder, config=config, audit=audit) as memory:
            start = time.perf_counter()  # a user's first write also registers them (and creates the fresh store's shard): apart
            memory.remember("The benchmark user's first memory.", user_id="w", force=True)
            out["first_write_ms"] = round((time.perf_counter() - start) * 1000, 1)
            start = time.perf_counter()
            for text in texts[:single]:
                memory.remember(text, user_id="w", force=True)
            out["single_writes_per_s"] = round(single / (time.perf_counter() - start), 1)
            batch = texts[single:]
            start, cpu = time.perf_counter(), time.process_time()
            for i in range(0, len(batch), 500):
                memory.write_many(batch[i:i + 500], user_id="w", force=True)
            out["batched_writes_per_s"] = round(len(batch) / (time.perf_counter() - start), 1)
            out["batched_writes_per_cpu_s"] = round(len(batch) / (time.process_time() - cpu), 1)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return out


def write_stages(texts: list[str], audit=None) -> dict:
    """Where a batched write's CPU time goes (µs a write, zero-cost embedder, default rules): each stage timed in the
    process's CPU time around the call `write_many` makes (`prepare`: validation, the write audit, the gate and
    the record; `plan`: the stored neighbours' search and the write rules; `commit`: the points and the upserts)."""
    from hindsight_core.write import preparing, writing

    spent = {"prepare": 0.0, "embed": 0.0, "plan": 0.0, "commit": 0.0}

    def timed_call(stage: str, call):
        def run(*args, **kwargs):
            began = time.process_time()
            try:
                return call(*args, **kwargs)
            finally:
                spent[stage] += time.process_time() - began
        return run

    folder = tempfile.mkdtemp(prefix="hindsight-bench-stages-")
    originals = (preparing.prepare_batch, writing.plan_batch)
    try:
        with Hindsight(path=folder, embedder=ZeroCostEmbedder(), audit=audit) as memory:
            memory.remember("The benchmark user's first memory.", user_id="w", force=True)
            preparing.prepare_batch = timed_call("prepare", preparing.prepare_batch)
            writing.plan_batch = timed_call("plan", writing.plan_batch)
            memory._embed = timed_call("embed", memory._embed)
            memory.store.commit = timed_call("commit", memory.store.commit)
            began = time.process_time()
            for i in range(0, len(texts), 500):
                memory.write_many(texts[i:i + 500], user_id="w", force=True)
            total = time.process_time() - began
    finally:
        preparing.prepare_batch, writing.plan_batch = originals
        shutil.rmtree(folder, ignore_errors=True)
    per_write = {stage: round(seconds / len(texts) * 1e6, 1) for stage, seconds in spent.items()}
    return {**per_write, "rest": round(total / len(texts) * 1e6 - sum(per_write.values()), 1),
            "total": round(total / len(texts) * 1e6, 1)}


def bench_writes(embedder, texts: list[str], single: int = 200, overhead_n: int = 20000) -> dict:
    """The model alone, then writes through hindsight with it; then the library alone (zero-cost embedder)."""
    start = time.perf_counter()
    embedder.embed(texts[single:])
    out = {"raw_embedder_per_s": round((len(texts) - single) / (time.perf_counter() - start), 1)}
    out.update(_write_rates(embedder, texts, single, None))
    out["batched_vs_raw"] = round(out["batched_writes_per_s"] / out["raw_embedder_per_s"], 2)
    many = synthetic_memories(overhead_n)
    zero = ZeroCostEmbedder()
    out["zero_cost_defaults"] = _write_rates(zero, many, single, None)
    out["zero_cost_noop_audit"] = _write_rates(zero, many, single, None, audit=allow_everything)
    out["zero_cost_rules_off"] = _write_rates(zero, many, single, scale_config())
    out["stages_us_per_write"] = {"audit as shipped": write_stages(many), "no-op audit": write_stages(
        many, audit=allow_everything)}
    return out


def print_report(report: dict) -> None:
    print(f"\n{'memories':>9} | {'exact p50/p95 ms':>17} | {'indexed p50/p95':>17} | {'numpy p50':>9} | {'ratio':>5} | "
          f"{'reopen s':>8} | {'RSS MiB':>7} | {'optimize s':>10} | {'disk B/mem':>10}")
    for r in report["sizes"]:
        exa, npy = r["recall_exact_excluded"], r["numpy_dot_topk"]
        idx = r.get("recall_indexed_excluded") or {"p50_ms": float("nan"), "p95_ms": float("nan")}
        print(f"{r['memories']:>9,} | {exa['p50_ms']:>7.2f} / {exa['p95_ms']:<7.2f} | {idx['p50_ms']:>7.2f} / "
              f"{idx['p95_ms']:<7.2f} | {npy['p50_ms']:>9.3f} | {r['ratio_best_to_numpy_p50']:>5} | "
              f"{r['reopen_and_first_recall_s']:>8} | {r['rss_store_open_mb']:>7.0f} | {r.get('optimize_s', '-'):>10} | "
              f"{r['disk_bytes_per_memory']:>10,}")
    for r in report["sizes"]:
        if "recall_breakdown_indexed" in r:
            b = r["recall_breakdown_indexed"]
            print(f"recall at {r['memories']:,}, p50 ms: engine alone {b['engine_bare']['p50_ms']}, with the payloads "
                  f"{b['engine_call']['p50_ms']}, store search "
                  f"{b['store_search']['p50_ms']}, whole recall {b['recall']['p50_ms']} "
                  f"(numpy {r['numpy_dot_topk']['p50_ms']})")
    for r in report.get("auto_index", []):
        print(f"auto index at {r['memories']:,}: load {r['load_writes_per_s']}/s, slowest batch "
              f"{r['batch_ms']['max_ms']} ms, wait after load {r['index_wait_after_load_s']} s, recall p50 "
              f"{r['recall_excluded']['p50_ms']} ms (reinforcing {r['recall_excluded_reinforce']['p50_ms']} ms)")
    w = report["writes"]
    if not w:
        return
    print(f"\nwrites/s: raw embedder {w['raw_embedder_per_s']}, single remember {w['single_writes_per_s']}, "
          f"batched write_many {w['batched_writes_per_s']} ({w['batched_vs_raw']:.0%} of raw)")
    print(f"zero-cost embedder: defaults {w['zero_cost_defaults']}, a no-op audit {w['zero_cost_noop_audit']}, "
          f"neighbour rules off {w['zero_cost_rules_off']}")
    print(f"CPU µs a batched write, by stage: {w['stages_us_per_write']}")
    print(f"peak RSS {report['peak_rss_mb']} MiB")


def main(argv: list[str] | None = None, embedder=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="*", default=[10000, 100000])
    parser.add_argument("--million", action="store_true", help="also a store of 1,000,000 memories (exact search)")
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--write-sample", type=int, default=2000, help="texts for the batched-write timing")
    parser.add_argument("--overhead-sample", type=int, default=20000, help="texts for the zero-cost write timing")
    parser.add_argument("--no-index", action="store_true", help="skip building the vector index (optimize)")
    parser.add_argument("--auto-index", type=int, nargs="*", default=None,
                        help="sizes at which to measure the automatic index build (default: each size below 1M)")
    parser.add_argument("--no-writes", action="store_true", help="skip the write-rate section")
    parser.add_argument("--embedder", default=None, help="the real model for the write timings (default: "
                                                         "hindsight's default, multilingual-e5-small)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "speed.json")
    args = parser.parse_args(argv)

    if embedder is None:
        from hindsight_core.embed.embedder import DEFAULT_MODEL, embedder_named

        embedder = embedder_named(args.embedder or DEFAULT_MODEL)
    single = min(200, max(1, args.write_sample // 10))
    sizes = list(args.sizes) + ([1_000_000] if args.million else [])
    texts = synthetic_memories(max(sizes + (args.auto_index or []) + [single + args.write_sample]))
    load_at_start = round(os.getloadavg()[0], 1)
    report = {"engine": "Qdrant Edge (qdrant-edge-py), 16 shards per space, users filtered on a tenant-indexed user_id",
              "synthetic": "synthetic.py: 12 templates filled with seeded random names, places, projects, items, "
                           "foods, dates and amounts; scale vectors from ZeroCostEmbedder",
              "sizes": [], "auto_index": [],
              "writes": {} if args.no_writes else
              bench_writes(embedder, texts[:single + args.write_sample], single, args.overhead_sample)}
    for n in sizes:
        print(f"store of {n:,} memories ...", flush=True)
        report["sizes"].append(bench_size(n, texts[:n], args.repeats, build_index=not args.no_index and n < 1_000_000))
    for n in (args.auto_index if args.auto_index is not None else [n for n in sizes if n < 1_000_000]):
        print(f"store of {n:,} memories, index built automatically ...", flush=True)
        report["auto_index"].append(bench_auto_index(n, texts[:n], args.repeats))
    report["peak_rss_mb"] = peak_rss_mb()
    # the 1-minute load average of the machine when the run began and ended (others' jobs slow numpy's
    # multithreaded product more than the engine's single search thread)
    report["load_average"] = [load_at_start, round(os.getloadavg()[0], 1)]
    report = stamped(report, __file__, argv)
    print_report(report)
    write_results(args.out, report, __file__, argv)
    print(f"\nwrote {args.out}")
    return report


if __name__ == "__main__":
    main()
