"""What "forgotten for good" costs: a forget that compacts the user's shards, against one that does not.

    python -m benchmarks.forget_compaction [--sizes 500 5000] [--users 4] [--rounds 3]
                                           [--out benchmarks/results/forget_compaction.json]

`Hindsight.forget` compacts the forgetting user's shards once something went
(the embedded store rewrites their segments so the forgotten points leave the
files). For each size, `--users` users get that many synthetic memories each
(384-dimensional hashing vectors: the default model's width, without its
embedding time); then, median of `--rounds`, for one user:
`delete_ms` the journaled delete alone (what forget cost before), `compact_user_ms`
the compaction `forget` now adds, `compact_all_ms` `Hindsight.compact()` over every
user's shards (what the CLI and the inspector ran after a forget before), and
`forget_ms` a whole `forget(memory_id=...)` as users call it. Wall-clock: compare
ratios within one run.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.harness import write_results  # noqa: E402
from benchmarks.synthetic import synthetic_memories  # noqa: E402

from hindsight_core import Hindsight  # noqa: E402
from hindsight_core.testing import FakeEmbedder  # noqa: E402


def ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 1)


def measure(size: int, users: int, rounds: int) -> dict:
    texts = synthetic_memories(size)
    with tempfile.TemporaryDirectory() as folder, \
            Hindsight(path=folder, embedder=FakeEmbedder(dimension=384)) as memory:
        for u in range(users):
            for start in range(0, size, 500):
                memory.write_many(texts[start:start + 500], user_id=f"user-{u}", force=True,
                                  merge_duplicates=False)
        memory.compact()  # start from compacted shards
        ids = [m.id for m in memory.memories(user_id="user-0")]
        times: dict[str, list[float]] = {"delete_ms": [], "compact_user_ms": [], "compact_all_ms": [], "forget_ms": []}
        for r in range(rounds):
            start = time.perf_counter()
            memory.store.commit("user-0", deletes=[ids[3 * r]])
            times["delete_ms"].append(ms(start))
            start = time.perf_counter()
            memory.store.compact("user-0")
            times["compact_user_ms"].append(ms(start))
            memory.store.commit("user-0", deletes=[ids[3 * r + 1]])
            start = time.perf_counter()
            memory.compact()
            times["compact_all_ms"].append(ms(start))
            start = time.perf_counter()
            memory.forget(user_id="user-0", memory_id=ids[3 * r + 2])
            times["forget_ms"].append(ms(start))
        stored = len(memory.memories(user_id="user-0"))
    return {"memories_per_user": size, "stored_for_user_0": stored,
            **{name: statistics.median(values) for name, values in times.items()}}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 5000])
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "forget_compaction.json")
    args = parser.parse_args(argv)
    report = {"users": args.users, "rounds": args.rounds, "runs": []}
    for size in args.sizes:
        report["runs"].append(measure(size, args.users, args.rounds))
        print(report["runs"][-1], flush=True)
    return write_results(args.out, report, __file__, argv)


if __name__ == "__main__":
    main()
