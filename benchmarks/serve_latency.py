"""Recall through `hindsight serve` against recall in process, and the server's throughput with concurrent clients.

    python -m benchmarks.serve_latency [--memories 300] [--queries 40] [--seconds 6] [--model multilingual-e5-small]
                                       [--out benchmarks/results/serve.json]

Two stores with the same memories: one opened in this process (`Hindsight`),
one held by a `hindsight serve` subprocess on 127.0.0.1 and reached with
`HindsightClient`. Reported:

- recall p50/p95 for the same queries, embedded and through the client (one
  caller at a time; `reinforce=False`, so both sides read the same store state),
  and the difference of the medians: what the HTTP hop costs;
- throughput (recalls per second) and p50/p95 with 1, 4 and 16 client threads
  recalling at once for `--seconds` each.

Both sides embed the query with the same model, which dominates a recall.
Wall-clock on a shared machine: compare within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from hindsight_core import Hindsight  # noqa: E402
from hindsight_core.remote import HindsightClient  # noqa: E402
from benchmarks.harness import percentiles, timed, write_results  # noqa: E402

TOPICS = ["tea", "printing", "flights", "the garden", "my sister", "the budget", "running", "the staging server",
          "Python", "the dentist", "the car", "music", "Lisbon", "the quarterly report", "cooking", "the cat"]
TEMPLATES = ["I prefer {t} in the morning, every day.", "Last week I talked about {t} with my manager.",
             "Remember that {t} matters to me more than most things.", "My plan for {t} changed on Tuesday.",
             "I wrote a note about {t} and left it on the desk."]


def texts(n: int) -> list[str]:
    return [TEMPLATES[i % len(TEMPLATES)].format(t=TOPICS[(i // len(TEMPLATES)) % len(TOPICS)]) + f" (note {i})"
            for i in range(n)]


def queries(n: int) -> list[str]:
    return [f"What did I say about {TOPICS[i % len(TOPICS)]}?" for i in range(n)]


def summary(ms: list[float]) -> dict:
    return {**percentiles(ms, digits=2), "n": len(ms)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(home: Path, model: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    env.update(HINDSIGHT_HOME=str(home), HINDSIGHT_EMBEDDING_MODEL=model, HF_HUB_OFFLINE="1",
               PYTHONPATH=str(ROOT))
    process = subprocess.Popen([sys.executable, "-m", "hindsight_core.cli", "serve", "--port", str(port),
                                "--no-recall-log"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2):
                return process, url
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not start")


def throughput(url: str, user: str, asked: list[str], threads: int, seconds: float) -> dict:
    latencies: list[float] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker(offset: int) -> None:
        with HindsightClient(url, caller="benchmark") as client:
            i = offset
            mine = []
            while time.monotonic() < stop:
                start = time.perf_counter()
                client.recall(asked[i % len(asked)], user_id=user, k=5, reinforce=False)
                mine.append((time.perf_counter() - start) * 1000)
                i += 1
        with lock:
            latencies.extend(mine)

    started = time.perf_counter()
    pool = [threading.Thread(target=worker, args=(i * 7,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    elapsed = time.perf_counter() - started
    return {"clients": threads, "recalls": len(latencies), "recalls_per_second": round(len(latencies) / elapsed, 1),
            **summary(latencies)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memories", type=int, default=300)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--model", default="multilingual-e5-small")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "serve.json")
    args = parser.parse_args()
    if args.model == "fake-hash-embedder":
        from hindsight_core.testing import FakeEmbedder
        embedder = FakeEmbedder()
    else:
        from hindsight_core.embed.embedder import embedder_named
        embedder = embedder_named(args.model)
    user, written, asked = "bench", texts(args.memories), queries(args.queries)
    with tempfile.TemporaryDirectory() as tmp:
        with Hindsight(path=Path(tmp) / "local", embedder=embedder) as local:
            local.write_many(written, user_id=user, force=True, merge_duplicates=False)
            local.recall(asked[0], user_id=user, reinforce=False)  # warm up
            embedded = timed(lambda q: local.recall(q, user_id=user, k=5, reinforce=False), asked)
            process, url = start_server(Path(tmp) / "served", args.model)
            try:
                with HindsightClient(url, caller="benchmark") as client:
                    client.write_many(written, user_id=user, force=True, merge_duplicates=False)
                    client.recall(asked[0], user_id=user, reinforce=False)
                    through = timed(lambda q: client.recall(q, user_id=user, k=5, reinforce=False), asked)
                    # the same queries again in process, interleaved in time with the client's: a fairer median
                    embedded += timed(lambda q: local.recall(q, user_id=user, k=5, reinforce=False), asked)
                    through += timed(lambda q: client.recall(q, user_id=user, k=5, reinforce=False), asked)
                loads = [throughput(url, user, asked, n, args.seconds) for n in (1, 4, 16)]
            finally:
                process.terminate()
                process.wait(timeout=30)
    result = {
        "benchmark": "serve_latency", "model": args.model, "memories": args.memories, "queries": args.queries,
        "embedded_recall": summary(embedded), "client_recall": summary(through),
        "client_minus_embedded_p50_ms": round(statistics.median(through) - statistics.median(embedded), 2),
        "target": "client recall p50 <= embedded recall p50 + 3 ms",
        "throughput": loads,
    }
    result["target_met"] = result["client_minus_embedded_p50_ms"] <= 3.0
    result = write_results(args.out, result, __file__)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
