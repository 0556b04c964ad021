"""Many users in one process: what the embedded store costs as users grow, memories per user fixed.

    python -m benchmarks.tenants [--users 100 1000] [--memories 20] [--sample 50] [--forget 5]
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
  `resident_mib_by_part_after_recalls`: the same resident memory by what holds it (`resident_by_part`);
- `files`, `disk_mib`, `bytes_per_memory`: the store's files (count and allocated bytes); `user_key_files`: key
  files under `users/` (one per user before every user's keys went into the store's one key file);
- `first_write_ms`: a new user's first write (one memory), p50/p95 over every user; `rest_batch_ms`: the
  user's other memories in one batch right after; `warm_write_ms`: one more memory for `--sample` users
  written long ago (after their cold recall); `first_over_warm_write` (p50 ratio);
- `cold_recall_ms`: the first recall of `--sample` users written long ago (the earliest users:
  an LRU of open shards has evicted them), `warm_recall_ms` the next recall of the same user
  (another query, so the query cache does not answer); p50/p95 and `cold_over_warm` (p50 ratio);
- `forget_everything_ms`: `forget(everything=True)` of `--forget` users, p50 and max; `forget_one_ms`:
  `forget(memory_id=...)` (for good: the shard is compacted) of `--forget` other users;
- `index_builds`: the background vector-index builds that finished during the run.

With `--serve`, the same users go through `hindsight serve` (a child process holding the store, with the
same embedder, recall log off; results in `results/tenants_served.json`) and `--clients` client threads (`HindsightClient`, 16 by default), each
writing and recalling for its share of the users: every call's errors are counted, and the server
process's resident memory, threads and open files are read from /proc.

Wall-clock figures move with the machine's load (2 shared cores): compare ratios within one run.
Results are appended under `--label` (the store layout measured) with the date and the command.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.harness import RESULTS, write_entry

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


#: what a mapped file of a shard holds, by a part of its path (the first that matches)
SHARD_PARTS = ("wal", "vector_storage", "payload_storage", "payload_index", "id_tracker")
MAPPING = re.compile(r"[0-9a-f]+-[0-9a-f]+ ")


def resident_by_part() -> dict:
    """This process's resident MiB by what holds it (`/proc/self/smaps`): the parts of the shards' files
    (`SHARD_PARTS`, the rest as `shard, other`), the process's own memory (`anonymous`: the heap, the engine's
    in-memory structures, the model) and the libraries' code and data."""
    totals: dict[str, float] = {}
    part = "anonymous"
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if MAPPING.match(line):  # a mapping's first line: its addresses, ..., its file
            path = fields[5] if len(fields) > 5 else ""
            if "/shards/" in path:
                part = next((name for name in SHARD_PARTS if name in path), "shard, other")
            elif path.startswith("/"):
                part = "libraries and other files"
            else:
                part = "anonymous"
        elif fields and fields[0] == "Rss:":
            totals[part] = totals.get(part, 0.0) + int(fields[1]) / 1024
    return {name: round(mib, 1) for name, mib in sorted(totals.items(), key=lambda kv: -kv[1])}


def pct(values: list[float]) -> dict:
    ordered = sorted(values)
    return {"p50": round(statistics.median(ordered), 2),
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2), "n": len(ordered)}


def one_size(users: int, memories: int, sample: int, forgets: int, model: str) -> dict:
    from benchmarks.synthetic import synthetic_memories

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
        by_part = resident_by_part()
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
        "resident_mib_by_part_after_recalls": by_part,
        "files": len(files), "files_per_user": round(len(files) / users, 2),
        # key files of the users' own (the layout before one key file per store)
        "user_key_files": sum(1 for p in files if p.name.startswith("keys") and "users" in p.parts),
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


_SERVER = """
import sys
from hindsight_core import Hindsight
from hindsight_core.remote.runner import ServeOptions, serve
from hindsight_core.testing import FakeEmbedder
folder, port, model = sys.argv[1], int(sys.argv[2]), sys.argv[3]
kwargs = {"embedder": FakeEmbedder(dimension=384)} if model == "fake" else {}
serve(lambda: Hindsight(path=folder, **kwargs), ServeOptions(port=port, recall_log=False), store_folder=None,
      say=lambda line: print(line, flush=True))
"""


def counts_of(pid: int) -> dict:
    status = Path(f"/proc/{pid}/status").read_text()
    kib = {line.split(":")[0]: int(line.split()[1]) for line in status.splitlines()
           if line.startswith(("VmRSS", "RssAnon", "RssFile", "Threads"))}
    return {"rss_mib": round(kib["VmRSS"] / 1024, 1), "rss_anon_mib": round(kib["RssAnon"] / 1024, 1),
            "rss_file_mib": round(kib["RssFile"] / 1024, 1), "threads": kib["Threads"],
            "open_files": len(os.listdir(f"/proc/{pid}/fd"))}


def served_size(users: int, memories: int, sample: int, forgets: int, model: str, clients: int) -> dict:
    """The same users through `hindsight serve` and `clients` client threads (see the module docstring)."""
    import socket
    import threading
    import urllib.request

    from benchmarks.synthetic import synthetic_memories

    from hindsight_core.remote import HindsightClient

    texts = synthetic_memories(memories * 50, seed=3)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as folder:
        server = subprocess.Popen([sys.executable, "-c", _SERVER, folder, str(port), model],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ})
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 180
            while True:
                try:
                    with urllib.request.urlopen(url + "/healthz", timeout=2):
                        break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit("the server did not start: " + server.stderr.read().decode()[-500:])
                    time.sleep(0.2)
            base = counts_of(server.pid)
            lock = threading.Lock()
            found: dict[str, list[float]] = {"first": [], "batch": [], "cold": [], "warm": [], "forget_one": [],
                                             "forget_everything": []}
            errors: list[str] = []

            def run(worker: int, job) -> None:
                with HindsightClient(url, caller="tenants") as client:
                    for u in range(worker, users, clients):
                        try:
                            job(client, u)
                        except Exception as exc:  # counted: the target is none
                            with lock:
                                errors.append(f"{type(exc).__name__}: {exc}"[:200])

            def timed(name: str, call) -> Any:
                began = time.perf_counter()
                out = call()
                with lock:
                    found[name].append((time.perf_counter() - began) * 1000)
                return out

            def write(client, u: int) -> None:
                start = (u * memories) % (len(texts) - memories)
                timed("first", lambda: client.write_many(texts[start:start + 1], user_id=f"user-{u}", force=True))
                timed("batch", lambda: client.write_many(texts[start + 1:start + memories], user_id=f"user-{u}",
                                                         force=True))

            step = max(1, users // (2 * sample))
            chosen = {i * step for i in range(min(sample, users))}

            def read(client, u: int) -> None:
                if u in chosen:
                    timed("cold", lambda: client.recall(QUERIES[u % 2], user_id=f"user-{u}", k=5))
                    timed("warm", lambda: client.recall(QUERIES[2 + u % 2], user_id=f"user-{u}", k=5))

            forgotten = sorted(chosen)[:2 * forgets]

            def forget(client, u: int) -> None:
                if u in forgotten[:forgets]:
                    timed("forget_everything", lambda: client.forget(user_id=f"user-{u}", everything=True))
                elif u in forgotten[forgets:]:
                    victim = client.memories(user_id=f"user-{u}")[0].id
                    timed("forget_one", lambda: client.forget(user_id=f"user-{u}", memory_id=victim))
                else:  # the other users keep recalling while the forgets run
                    client.recall(QUERIES[u % 4], user_id=f"user-{u}", k=5)

            phases = {}
            for name, job in (("writes", write), ("recalls", read), ("forgets", forget)):
                began = time.perf_counter()
                pool = [threading.Thread(target=run, args=(w, job)) for w in range(clients)]
                for thread in pool:
                    thread.start()
                for thread in pool:
                    thread.join()
                phases[name] = {"seconds": round(time.perf_counter() - began, 1), **counts_of(server.pid)}
        finally:
            server.terminate()
            server.wait(30)
        files = [p for p in Path(folder).rglob("*") if p.is_file()]
    cold_p, warm_p = pct(found["cold"]), pct(found["warm"])
    return {"users": users, "memories_per_user": memories, "model": model, "clients": clients, "served": True,
            "errors": len(errors), "error_samples": sorted(set(errors))[:5], "server_at_open": base,
            "server": phases, "files": len(files), "files_per_user": round(len(files) / users, 2),
            "writes_per_second": round(users * memories / phases["writes"]["seconds"], 1),
            "first_write_ms": pct(found["first"]), "rest_batch_ms": pct(found["batch"]),
            "cold_recall_ms": cold_p, "warm_recall_ms": warm_p,
            "cold_over_warm": round(cold_p["p50"] / warm_p["p50"], 2) if warm_p["p50"] else None,
            "forget_everything_ms": pct(found["forget_everything"]) if found["forget_everything"] else None,
            "forget_one_ms": pct(found["forget_one"]) if found["forget_one"] else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--memories", type=int, default=20)
    parser.add_argument("--sample", type=int, default=50)
    parser.add_argument("--forget", type=int, default=5)
    parser.add_argument("--model", choices=["fake", "default"], default="fake")
    parser.add_argument("--label", default="shared-shards")
    parser.add_argument("--out", help="results file (default results/tenants.json, results/tenants_served.json "
                        "with --serve)")
    parser.add_argument("--serve", action="store_true", help="through `hindsight serve` and --clients clients")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        size = (served_size(args.one, args.memories, args.sample, args.forget, args.model, args.clients)
                if args.serve else one_size(args.one, args.memories, args.sample, args.forget, args.model))
        print(json.dumps(size))
        return
    rows = []
    for users in args.users:
        out = subprocess.run([sys.executable, __file__, "--one", str(users), "--memories", str(args.memories),
                              "--sample", str(args.sample), "--forget", str(args.forget), "--model", args.model,
                              "--clients", str(args.clients), *(["--serve"] if args.serve else [])],
                             capture_output=True, text=True)
        if out.returncode != 0:
            row = {"users": users, "error": out.stderr.strip().splitlines()[-1:] or ["failed"]}
        else:
            row = json.loads(out.stdout.strip().splitlines()[-1])
        print(json.dumps(row), flush=True)
        rows.append(row)
    path = Path(args.out or RESULTS / ("tenants_served.json" if args.serve else "tenants.json"))
    write_entry(path, args.label, {"load_average": round(os.getloadavg()[0], 1), "rows": rows}, __file__)


if __name__ == "__main__":
    main()
