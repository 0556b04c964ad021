"""Many users in one process: what the embedded store costs as users grow, memories per user fixed.

    python benchmarks/tenants.py [--users 100 1000] [--memories 20] [--sample 50] [--forget 5]
                                 [--model fake|default] [--label NAME] [--out benchmarks/results/tenants.json]

For each user count, a fresh process (so resident memory, threads and open files
are that size's alone) opens an embedded store in a temporary folder and writes
`--memories` memories for each user (the first alone, the others in one `write_many` batch; `force=True`,
synthetic texts; `--model fake` is the free 384-dimensional hashing embedder,
`default` the default model). It reports:

- `rss_mib`, `threads`, `open_files`: the process after the writes, and again after
  the cold recalls (`*_after_recalls`); `rss_anon_mib` is the process's own memory (heap, the model,
  the engine's in-memory structures), `rss_file_mib` the pages of mapped files (the engine's segments
  and logs) the kernel counts while they are cached: it gives those back under memory pressure;
- `files`, `disk_mib`, `bytes_per_memory`: the store's files (count and allocated bytes);
- `first_write_ms`: a new user's first write (one memory), p50/p95 over every user; `rest_batch_ms`: the
  user's other memories in one batch right after; `warm_write_ms`: one more memory for `--sample` users
  written long ago (after their cold recall); `first_over_warm_write` (p50 ratio);
- `cold_recall_ms`: the first recall of `--sample` users written long ago (the earliest users:
  an LRU of open shards has evicted them), `warm_recall_ms` the next recall of the same user
  (another query, so the query cache does not answer); p50/p95 and `cold_over_warm` (p50 ratio);
- `forget_everything_ms`: `forget(everything=True)` of `--forget` users, p50 and max; `forget_one_ms`:
  `forget(memory_id=...)` (for good: the shard is compacted) of `--forget` other users;
- `index_builds`: the background vector-index builds that finished during the run.

Wall-clock figures move with the machine's load (2 shared cores): compare ratios within one run.
Results are appended under `--label` (the store layout measured) with the date and the command.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

QUERIES = ["What does the team use for the project?", "Where did they travel last month?",
           "Which tool does someone prefer?", "What was decided about the meeting?"]


def process_counts() -> dict:
    status = Path("/proc/self/status").read_text()
    rss = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))
    threads = int(next(line.split()[1] for line in status.splitlines() if line.startswith("Threads:")))
    kib = {line.split(":")[0]: int(line.split()[1]) for line in status.splitlines() if line.startswith("Rss")}
    return {"rss_mib": round(rss / 1024, 1), "rss_anon_mib": round(kib.get("RssAnon", 0) / 1024, 1),
            "rss_file_mib": round(kib.get("RssFile", 0) / 1024, 1), "threads": threads,
            "open_files": len(os.listdir("/proc/self/fd"))}


def pct(values: list[float]) -> dict:
    ordered = sorted(values)
    return {"p50": round(statistics.median(ordered), 2),
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2), "n": len(ordered)}


def one_size(users: int, memories: int, sample: int, forgets: int, model: str) -> dict:
    from synthetic import synthetic_memories

    from hindsight_core import Hindsight
    from hindsight_core.testing import FakeEmbedder

    embedder = FakeEmbedder(dimension=384) if model == "fake" else None
    texts = synthetic_memories(memories * 50, seed=3)
    with tempfile.TemporaryDirectory() as folder:
        kwargs = {"embedder": embedder} if embedder is not None else {}
        memory = Hindsight(path=folder, **kwargs)
        base = process_counts()
        first, batch = [], []
        for u in range(users):
            start = (u * memories) % (len(texts) - memories)
            began = time.perf_counter()
            memory.write_many(texts[start:start + 1], user_id=f"user-{u}", force=True)
            first.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            memory.write_many(texts[start + 1:start + memories], user_id=f"user-{u}", force=True)
            batch.append((time.perf_counter() - began) * 1000)
        memory.store.flush()
        after_writes = process_counts()
        files = [p for p in Path(folder).rglob("*") if p.is_file()]
        disk = memory.store.disk_usage() or 0
        cold, warm, warm_write = [], [], []
        step = max(1, users // (2 * sample))  # the earliest half of the users, spread out
        chosen = [f"user-{i * step}" for i in range(min(sample, users))]
        for i, user in enumerate(chosen):
            began = time.perf_counter()
            memory.recall(QUERIES[i % 2], user_id=user, k=5)
            cold.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            memory.recall(QUERIES[2 + i % 2], user_id=user, k=5)
            warm.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            memory.write_many([f"Note {i}: the standup moved to ten o'clock."], user_id=user, force=True)
            warm_write.append((time.perf_counter() - began) * 1000)
        after_recalls = process_counts()
        forget_one = []
        for user in chosen[forgets:2 * forgets]:
            victim = memory.memories(user_id=user)[0].id
            began = time.perf_counter()
            memory.forget(user_id=user, memory_id=victim)
            forget_one.append((time.perf_counter() - began) * 1000)
        forget = []
        for user in chosen[:forgets]:
            began = time.perf_counter()
            memory.forget(user_id=user, everything=True)
            forget.append((time.perf_counter() - began) * 1000)
        memory.close()
    cold_p, warm_p = pct(cold), pct(warm)
    return {
        "users": users, "memories_per_user": memories, "model": model,
        "rss_mib_at_open": base["rss_mib"], **after_writes,
        **{f"{k}_after_recalls": v for k, v in after_recalls.items()},
        "files": len(files), "files_per_user": round(len(files) / users, 2),
        "disk_mib": round(disk / 2**20, 1), "bytes_per_memory": round(disk / (users * memories)),
        "first_write_ms": pct(first), "warm_write_ms": pct(warm_write), "rest_batch_ms": pct(batch),
        "first_over_warm_write": round(pct(first)["p50"] / pct(warm_write)["p50"], 2),
        "cold_recall_ms": cold_p, "warm_recall_ms": warm_p,
        "cold_over_warm": round(cold_p["p50"] / warm_p["p50"], 2) if warm_p["p50"] else None,
        "forget_everything_ms": {"p50": round(statistics.median(forget), 1), "max": round(max(forget), 1)}
        if forget else None,
        "forget_one_ms": {"p50": round(statistics.median(forget_one), 1), "max": round(max(forget_one), 1)}
        if forget_one else None,
        "index_builds": list(getattr(getattr(memory.store, "_indexer", None), "completed", []) or []),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--memories", type=int, default=20)
    parser.add_argument("--sample", type=int, default=50)
    parser.add_argument("--forget", type=int, default=5)
    parser.add_argument("--model", choices=["fake", "default"], default="fake")
    parser.add_argument("--label", default="shared-shards")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "tenants.json"))
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_size(args.one, args.memories, args.sample, args.forget, args.model)))
        return
    rows = []
    for users in args.users:
        out = subprocess.run([sys.executable, __file__, "--one", str(users), "--memories", str(args.memories),
                              "--sample", str(args.sample), "--forget", str(args.forget), "--model", args.model],
                             capture_output=True, text=True)
        if out.returncode != 0:
            row = {"users": users, "error": out.stderr.strip().splitlines()[-1:] or ["failed"]}
        else:
            row = json.loads(out.stdout.strip().splitlines()[-1])
        print(json.dumps(row), flush=True)
        rows.append(row)
    path = Path(args.out)
    results = json.loads(path.read_text()) if path.exists() else {}
    results[args.label] = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "python benchmarks/tenants.py " + " ".join(sys.argv[1:]),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} (shared)",
        "rows": rows,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
