"""How fast the memory inspector's pages answer, over HTTP on loopback, for one user with N memories.

    python -m benchmarks.ui_pages [--sizes 1000 10000] [--repeats 7]

The store is in memory with the hashing `FakeEmbedder` (the real model's cost is
the embedding of a query, measured in speed.py), memories are synthetic
(`synthetic.py`) and 50 days old. Prints the median wall-clock time and the size
of each page: the memories page (200 per layer, then a "show all" link), a search,
and one memory with its retention plot.
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import time
from datetime import timedelta

from benchmarks.synthetic import synthetic_memories  # noqa: E402

from hindsight_core import Hindsight  # noqa: E402
from hindsight_core.testing import FakeEmbedder, FrozenClock  # noqa: E402
from hindsight_core.ui import InspectorServer  # noqa: E402


def timed_get(port: int, path: str) -> tuple[float, int]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    start = time.perf_counter()
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    elapsed = time.perf_counter() - start
    connection.close()
    assert response.status == 200, (path, response.status)
    return elapsed, len(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    for size in args.sizes:
        clock = FrozenClock()
        with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
            texts = synthetic_memories(size)
            for start in range(0, size, 250):
                batch = texts[start:start + 250]
                memory.write_many(batch, user_id="alice", force=True, merge_duplicates=False,
                                  timestamps=[clock() + timedelta(minutes=start + i) for i in range(len(batch))])
            clock.advance(days=50)
            first = memory.memories(user_id="alice")[0].id
            pages = {"memories": "/memories?user=alice", "search": "/search?user=alice&q=Orion+budget+review&k=10",
                     "one memory": f"/memory?user=alice&id={first}"}
            with InspectorServer(memory, port=0) as server:
                for name, path in pages.items():
                    runs = [timed_get(server.port, path) for _ in range(args.repeats)]
                    median = statistics.median(t for t, _ in runs)
                    print(f"{size:>7,} memories  {name:<10}  median {median * 1000:6.0f} ms  "
                          f"{runs[0][1] / 1024:6.0f} KB")


if __name__ == "__main__":
    main()
