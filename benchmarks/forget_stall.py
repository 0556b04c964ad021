"""What a forget for good costs the process's other users: compaction in this process against in a child.

    python -m benchmarks.forget_stall [--users 160] [--memories 20] [--rounds 4]
                                      [--out benchmarks/results/forget_stall.json]

One embedded store, `--users` users with `--memories` synthetic memories each (the free 384-dimensional
hashing embedder). Each round, one thread runs `forget(memory_id=...)` (for good: the shard holding the
user is compacted) while the main thread keeps recalling for other users until it returns; arms
alternate: `in_process` (the store without its background builder: `optimize()` runs on the caller's
thread, holding the store's lock and the GIL) and `child` (the default: the compaction runs in a child
process on a copy that is swapped in, `store/indexing.py`). Reported per arm: the forget's own wall time,
and the other users' recalls that completed meanwhile (count, p50, max). Wall-clock on a shared
machine: compare the arms within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time

from benchmarks.harness import RESULTS, write_results
from benchmarks.synthetic import synthetic_memories

QUERIES = ["What does the team use for the project?", "Where did they travel last month?"]


def main() -> None:
    from hindsight_core import Hindsight
    from hindsight_core.testing import FakeEmbedder

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=160)
    parser.add_argument("--memories", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--out", default=str(RESULTS / "forget_stall.json"))
    args = parser.parse_args()
    texts = synthetic_memories(args.memories * 50, seed=3)
    arms: dict[str, dict[str, list[float]]] = {name: {"forget_ms": [], "recalls": [], "recall_p50_ms": [],
                                                      "recall_max_ms": []} for name in ("in_process", "child")}
    with tempfile.TemporaryDirectory() as folder:
        memory = Hindsight(path=folder, embedder=FakeEmbedder(dimension=384))
        for u in range(args.users):
            start = (u * args.memories) % (len(texts) - args.memories)
            memory.write_many(texts[start:start + args.memories], user_id=f"user-{u}", force=True)
        memory.store.flush()
        builder = memory.store._indexer
        half = args.users // 2
        victims = iter(range(half))
        for _ in range(args.rounds):
            for arm in ("in_process", "child"):
                memory.store._indexer = builder if arm == "child" else None
                user = f"user-{next(victims)}"
                victim = memory.memories(user_id=user)[0].id
                done = threading.Event()
                worker = threading.Thread(target=lambda: (memory.forget(user_id=user, memory_id=victim), done.set()))
                began = time.perf_counter()
                worker.start()
                latencies, i = [], 0
                while not done.is_set():
                    start = time.perf_counter()
                    memory.recall(QUERIES[i % 2], user_id=f"user-{half + i % half}", k=5)
                    latencies.append((time.perf_counter() - start) * 1000)
                    i += 1
                worker.join()
                arms[arm]["forget_ms"].append((time.perf_counter() - began) * 1000)
                arms[arm]["recalls"].append(len(latencies))
                arms[arm]["recall_p50_ms"].append(statistics.median(latencies))
                arms[arm]["recall_max_ms"].append(max(latencies))
        memory.store._indexer = builder
        memory.close()
    summary = {arm: {"forget_ms_p50": round(statistics.median(v["forget_ms"]), 1),
                     "other_recalls_meanwhile_p50": statistics.median(v["recalls"]),
                     "other_recall_p50_ms": round(statistics.median(v["recall_p50_ms"]), 1),
                     "other_recall_max_ms": round(max(v["recall_max_ms"]), 1),
                     "rounds": {k: [round(x, 1) for x in xs] for k, xs in v.items()}} for arm, v in arms.items()}
    report = {"load": round(os.getloadavg()[0], 1), "users": args.users, "memories_per_user": args.memories,
              "arms": summary}
    print(json.dumps(write_results(args.out, report, __file__), indent=1))


if __name__ == "__main__":
    main()
