"""Acknowledged writes lost when a forget races the write queue's writer, embedded and through `HindsightClient`.

    python -m benchmarks.forget_races [--races 1000] [--wave 25] [--out benchmarks/results/forget_races.json]

One race is one user's: a write handed to the adapters' write queue (`WriteQueue`,
acknowledged once journaled), a forget of that user a random moment later (0-40 ms,
about the writer's `linger`: the writer lingers, batches, stores or is idle when it
lands), then one more write handed over after the forget returned. Meanwhile a
bystander's write is handed over from another thread. Forgets alternate between
everything (the write queued before it is dropped or forgotten) and the first
write's text as a topic (it is stored first, then forgotten). Races run in waves of
`--wave` threads at once over one queue (so forgets overlap, as they share a
compaction), `--races` in all, on an embedded store and through a live
`hindsight serve` subprocess, with the free hashing embedder (what is measured is
the queue and the forget, not the model).

Reported per arm: writes acknowledged; of those that must be stored (the bystander's,
and the one handed over after the forget), how many are not (`lost`: the target is 0);
forgotten writes that were stored after their forget returned (`came_back`, also 0);
whether the writer stopped; refused writes; races whose forget or write raised (the
caller was told: `failed_races`, with the first errors).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.harness import RESULTS, write_results
from benchmarks.serve_latency import start_server

#: the first write (forgotten), the bystander's (kept), the write after the forget (kept): no shared word
FIRST = "Race {i}: my gym locker code is {code}."
BYSTANDER = "Bystander note {i}: the plumber visits on Thursday."
AFTER = "Afterwards {i}, book a window table at Marisco for Friday."


def race(queue, memory, i: int, jitter: float, acknowledged: list[str]) -> None:
    """One user's race: a write, a forget at a random moment, a write after it (see the module's rules)."""
    user, first = f"racer-{i}", FIRST.format(i=i, code=1000 + i)
    queue.submit([first], user_id=user, force=True, merge_duplicates=False)
    acknowledged.append(first)
    time.sleep(jitter)
    if i % 2:
        memory.forget(user_id=user, about=first)
    else:
        memory.forget(user_id=user, everything=True)
    queue.submit([AFTER.format(i=i)], user_id=user, force=True, merge_duplicates=False)
    acknowledged.append(AFTER.format(i=i))


def run_arm(memory, races: int, wave: int, seed: int) -> dict:
    """`races` races over `memory`'s write queue, `wave` at a time; what was lost or came back."""
    from hindsight_core.session.write_queue import WriteQueue

    queue = WriteQueue(memory)
    rng = random.Random(seed)
    errors: list[str] = []
    acknowledged: list[str] = []  # list.append is atomic: the race threads share it
    failed: set[int] = set()  # races whose forget or write raised (its caller was told: not counted as came back)
    started = time.perf_counter()
    for low in range(0, races, wave):
        numbers = range(low, min(races, low + wave))

        def one(i: int, jitter: float) -> None:
            try:
                race(queue, memory, i, jitter, acknowledged)
            except Exception as exc:  # counted, never raised: a race that failed is a finding
                errors.append(f"race {i}: {type(exc).__name__}: {exc}")
                failed.add(i)

        threads = [threading.Thread(target=one, args=(i, rng.uniform(0, 0.04))) for i in numbers]
        for thread in threads:
            thread.start()
        for i in numbers:  # the bystander's writes, while the wave's forgets run
            queue.submit([BYSTANDER.format(i=i)], user_id=f"bystander-{i % 7}", force=True,
                         merge_duplicates=False)  # kept as written: no note merged into another
            acknowledged.append(BYSTANDER.format(i=i))
        for thread in threads:
            thread.join()
    queue.flush(timeout=600)
    seconds = time.perf_counter() - started
    stopped = queue._stopped is not None
    failures = len(queue.failures)
    queue.close()
    bystanders = {r.raw_content for u in range(7) for r in memory.memories(user_id=f"bystander-{u}")}
    acked = set(acknowledged)
    lost, came_back = [], []
    for i in range(races):
        held = {r.raw_content for r in memory.memories(user_id=f"racer-{i}")}
        if AFTER.format(i=i) in acked and AFTER.format(i=i) not in held:
            lost.append(f"racer-{i}: the write after the forget")
        if BYSTANDER.format(i=i) not in bystanders:
            lost.append(f"race {i}: the bystander's write")
        if FIRST.format(i=i, code=1000 + i) in held and i not in failed:
            came_back.append(f"racer-{i}")
    must = sum(text.startswith(("Bystander", "Afterwards")) for text in acked)
    return {"races": races, "acknowledged": len(acknowledged), "must_be_stored": must,
            "lost": len(lost), "came_back": len(came_back), "writer_stopped": stopped, "refused": failures,
            "failed_races": len(failed), "errors": errors[:10], "examples": (lost + came_back)[:10],
            "seconds": round(seconds, 1)}


def main(argv: list[str] | None = None) -> dict:
    from hindsight_core import Hindsight
    from hindsight_core.remote import HindsightClient
    from hindsight_core.testing import FakeEmbedder

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--races", type=int, default=1000)
    parser.add_argument("--wave", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default=str(RESULTS / "forget_races.json"))
    args = parser.parse_args(argv)
    arms = {}
    with tempfile.TemporaryDirectory() as folder:
        with Hindsight(path=Path(folder) / "store", embedder=FakeEmbedder()) as memory:
            arms["embedded"] = run_arm(memory, args.races, args.wave, args.seed)
        process, url = start_server(Path(folder) / "served", "fake-hash-embedder")
        try:
            with HindsightClient(url, queue_journal=Path(folder) / "client-journal") as client:
                arms["client"] = run_arm(client, args.races, args.wave, args.seed)
        finally:
            process.terminate()
            process.wait(timeout=30)
    report = {"benchmark": "forget_races", "embedder": "fake-hash-embedder", "wave": args.wave, **arms,
              "lost": sum(a["lost"] for a in arms.values()), "came_back": sum(a["came_back"] for a in arms.values())}
    report = write_results(Path(args.out), report, __file__, argv)
    print(json.dumps({k: report[k] for k in ("lost", "came_back")} | {
        arm: {k: report[arm][k] for k in ("acknowledged", "lost", "came_back", "failed_races", "seconds")}
        for arm in arms}, indent=1))
    return report


if __name__ == "__main__":
    main()
