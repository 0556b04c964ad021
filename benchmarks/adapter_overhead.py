"""What hindsight adds to an agent turn through its adapters, with the default embedder, quiet and loaded.

    python -m benchmarks.adapter_overhead [--turns 20] [--out benchmarks/results/adapter_overhead.json]

Each arm runs real framework turns with a fake model that answers at once:
  - LangChain: a `create_agent` agent with `HindsightMiddleware` on the embedded
    store; the time spent in the middleware's write hook (`after_agent`: the turn
    handed to the write queue) and in its recall hook (`wrap_model_call` minus the
    model's own call);
  - LlamaIndex: a `SimpleChatEngine` on `hindsight_memory`; the time spent in the
    block's `_aget` (recall for the message, then the turns handed to the queue),
    and in the hand-over alone;
  - the query embedding alone (`embed_query` on a new text), the floor of any recall.
With `--turn-cost`, it measures instead what `remember=True` costs a whole LangChain
turn (`agent.invoke`, wall clock) against `remember=False`, with a person's pause
between turns (`--pause`, 0.5 s) and back to back, both on a store that starts with
the same conversation (user turns and the agent's answers, through the conversation
policy) and, as a second baseline, `remember=False` on an empty store; arms
interleaved, each twice. Beside each figure, where the turn's time went: the
read-your-writes wait (`settle`), the recall (its query embedding and its retrieval
check apart) and the hand-over (`after_agent`), and the CPU time of the thread that
runs the turn (what the agent's thread pays, whatever else the machine runs; the
embedding runs on the embedder's own thread). The figures go under `turn_cost` in
the results file; the other arms are kept.

Between turns the queue is flushed outside the timings: a real model takes longer
to answer than the embedding of the last turn, so a turn's recall does not wait
for it (`settle` makes it wait when it must). Each message is new, so no query
comes from the cache; with `--turn-cost` each run of each arm says its turns in words
of its own (`WORDINGS`). Arms: a quiet machine, then a CPU hog
(`python -c "while True: pass"`) on every core; `--turn-cost --hogs` runs the
person's-pause arms under such hogs (`turn_cost_busy`). No environment variable is set.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.harness import percentiles, write_entry, write_results
from benchmarks.load import cpu_hogs

from hindsight_core import Hindsight
from hindsight_core.embed.embedder import DEFAULT_MODEL, embedder_named

FACTS = ["My sister {n} lives in Lisbon and works as a nurse.", "I prefer meetings after {n} am on weekdays.",
         "Project Falcon-{n} ships on the 12th; Priya owns the release.", "I am allergic to peanuts and {n} shellfish.",
         "Book me an aisle seat on flight {n} to Berlin.", "My locker code at the gym is {n}."]


#: how each arm of --turn-cost opens its messages: every arm (and each of its runs) says its turns in its own words,
#: so that no arm is served another's query embedding from a cache
WORDINGS = ["", "Quick note: ", "For the record, ", "Also, ", "One more thing: ", "By the way, ", "FYI: ",
            "Note to self: ", "Just so you know, ", "Heads up: ", "Reminder: ", "P.S. "]


def message(i: int, wording: int = 0) -> str:
    return WORDINGS[wording % len(WORDINGS)] + FACTS[i % len(FACTS)].format(n=i + 3)


def langchain_arm(embedder, turns: int) -> dict:
    from langchain.agents import create_agent

    from hindsight_langchain import HindsightMiddleware
    from hindsight_langchain.testing import RecordingChatModel

    writes, recalls = [], []

    class Timed(HindsightMiddleware):
        def after_agent(self, state, runtime):
            start = time.perf_counter()
            out = super().after_agent(state, runtime)
            writes.append((time.perf_counter() - start) * 1000)
            return out

        def wrap_model_call(self, request, handler):
            inner = [0.0]

            def timed_handler(req):
                t = time.perf_counter()
                try:
                    return handler(req)
                finally:
                    inner[0] += time.perf_counter() - t

            start = time.perf_counter()
            out = super().wrap_model_call(request, timed_handler)
            recalls.append((time.perf_counter() - start - inner[0]) * 1000)
            return out

    folder = tempfile.mkdtemp(prefix="hindsight-adapter-")
    try:
        with Hindsight(path=folder, embedder=embedder) as memory:
            middleware = Timed(memory)
            model = RecordingChatModel(responses=[f"Noted, item {i}." for i in range(turns + 1)])
            agent = create_agent(model, system_prompt="You are a helpful assistant.", middleware=[middleware])
            for i in range(turns + 1):
                agent.invoke({"messages": [{"role": "user", "content": message(i)}]}, context={"user_id": "alice"})
                middleware.flush()
            stored = len(memory.memories(user_id="alice"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"write_hook": percentiles(writes[1:]), "recall_hook": percentiles(recalls[1:]), "turns": turns,
            "memories_stored": stored}


def llamaindex_arm(embedder, turns: int) -> dict:
    from llama_index.core.chat_engine import SimpleChatEngine
    from llama_index.core.llms.mock import MockLLM
    from llama_index.core.memory import Memory

    from hindsight_llamaindex import HindsightMemoryBlock

    gets, offers = [], []

    class Timed(HindsightMemoryBlock):
        async def _aget(self, messages=None, session_id=None, **kwargs):
            start = time.perf_counter()
            out = await super()._aget(messages, session_id, **kwargs)
            gets.append((time.perf_counter() - start) * 1000)
            return out

        async def _offer(self, messages, user, session):
            start = time.perf_counter()
            await super()._offer(messages, user, session)
            offers.append((time.perf_counter() - start) * 1000)

    folder = tempfile.mkdtemp(prefix="hindsight-adapter-")
    try:
        with Hindsight(path=folder, embedder=embedder) as memory:
            block = Timed(memory=memory, user_id="alice")
            chat = SimpleChatEngine.from_defaults(llm=MockLLM(max_tokens=4),
                                                  memory=Memory.from_defaults(memory_blocks=[block]))
            for i in range(turns + 1):
                chat.chat(message(i))
                block.flush()
            stored = len(memory.memories(user_id="alice"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"block_aget": percentiles(gets[1:]), "hand_over": percentiles(offers[1:]), "turns": turns,
            "memories_stored": stored}


def turn_cost(embedder, turns: int, pause: float, remember: bool, seeded: bool, wording: int = 0) -> dict:
    """Whole LangChain turns with `HindsightMiddleware(remember=...)`, and where each turn's time went."""
    import collections
    import functools

    from langchain.agents import create_agent

    import hindsight_core.memory as facade
    from hindsight_core import Source
    from hindsight_core.session.turns import Turn, TurnLog
    from hindsight_core.session.write_queue import WriteQueue
    from hindsight_langchain import HindsightMiddleware
    from hindsight_langchain.testing import RecordingChatModel

    phases: dict[str, list[float]] = collections.defaultdict(list)
    patched = []

    def timed(owner, name: str, label: str) -> None:
        original = getattr(owner, name)

        @functools.wraps(original)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                phases[label].append((time.perf_counter() - start) * 1000)

        patched.append((owner, name, original))
        setattr(owner, name, wrapper)

    timed(WriteQueue, "settle", "settle")
    timed(Hindsight, "recall", "recall")
    timed(Hindsight, "_embed_query", "query_embedding")
    timed(facade, "check_recalled", "retrieval_check")
    timed(HindsightMiddleware, "after_agent", "hand_over")
    folder = tempfile.mkdtemp(prefix="hindsight-turns-")
    try:
        with Hindsight(path=folder, embedder=embedder) as memory:
            if seeded:  # the same conversation before the measured turns, in every seeded arm
                log = TurnLog(memory)
                for i in range(10):
                    log.offer([Turn(message(100 + i), Source.USER), Turn(f"Noted, item {100 + i}.", Source.AGENT)],
                              user_id="alice", session_id="earlier")
            middleware = HindsightMiddleware(memory, remember=remember)
            model = RecordingChatModel(responses=[f"Noted, item {i}." for i in range(turns + 2)])
            agent = create_agent(model, system_prompt="You are a helpful assistant.", middleware=[middleware])
            agent.invoke({"messages": [{"role": "user", "content": message(0, wording)}]},
                         context={"user_id": "alice"})
            middleware.flush()
            phases.clear()
            samples, cpu = [], []
            for i in range(1, turns + 1):
                time.sleep(pause)
                start, start_cpu = time.perf_counter(), time.thread_time()
                agent.invoke({"messages": [{"role": "user", "content": message(i, wording)}]},
                             context={"user_id": "alice"})
                samples.append((time.perf_counter() - start) * 1000)
                cpu.append((time.thread_time() - start_cpu) * 1000)
            middleware.flush()
    finally:
        for owner, name, original in patched:
            setattr(owner, name, original)
        shutil.rmtree(folder, ignore_errors=True)
    return {"turn": percentiles(samples), "turn_cpu_of_the_agents_thread": percentiles(cpu), "turns": turns,
            "phases_p50_ms": {k: percentiles(v)["p50_ms"] for k, v in phases.items()},
            "retrieval_checks": len(phases.get("retrieval_check", []))}


def turn_costs(embedder, turns: int, pause: float, pauses_only: bool = False) -> dict:
    """`remember=True` against `remember=False` per pause, arms interleaved and run twice (medians of the two);
    each run of each arm says its turns in words of its own (`WORDINGS`)."""
    out = {}
    wording = iter(range(1, 1000))
    for label, wait in (("person_pause", pause),) + ((("back_to_back", 0.0),) if not pauses_only else ()):
        runs: dict[str, list[dict]] = {"remember": [], "read_only": [], "read_only_empty_store": []}
        for _ in range(2):
            runs["read_only"].append(turn_cost(embedder, turns, wait, False, True, next(wording)))
            runs["remember"].append(turn_cost(embedder, turns, wait, True, True, next(wording)))
            runs["read_only_empty_store"].append(turn_cost(embedder, turns, wait, False, False, next(wording)))
        p50 = {arm: round(sorted(r["turn"]["p50_ms"] for r in rs)[0] / 2 + sorted(r["turn"]["p50_ms"] for r in rs)[1] / 2, 2)
               for arm, rs in runs.items()}
        cpu = {arm: round(statistics.median(r["turn_cpu_of_the_agents_thread"]["p50_ms"] for r in rs), 2)
               for arm, rs in runs.items()}
        out[label] = {"pause_s": wait, "turn_p50_ms": p50, "agents_thread_cpu_p50_ms": cpu,
                      "remember_minus_read_only_cpu_ms": round(cpu["remember"] - cpu["read_only"], 2),
                      "remember_minus_read_only_ms": round(p50["remember"] - p50["read_only"], 2),
                      "remember_minus_empty_store_ms": round(p50["remember"] - p50["read_only_empty_store"], 2),
                      "runs": runs}
        print(label, json.dumps(out[label]["turn_p50_ms"]), "CPU", json.dumps(cpu), flush=True)
    return out


def query_embedding(embedder, turns: int) -> dict:
    embed = getattr(embedder, "embed_query", embedder.embed)
    samples = []
    for i in range(turns):
        start = time.perf_counter()
        embed([f"what did I say about item {i} and my plans?"])
        samples.append((time.perf_counter() - start) * 1000)
    return percentiles(samples)


def journal_append(turns: int, sync: str) -> dict:
    """The hand-over alone: one `WriteQueue.submit` (a journal append; fsync'd with sync="full"), writer idle."""
    from hindsight_core.session.write_queue import WriteQueue
    from hindsight_core.testing import FakeEmbedder

    folder = tempfile.mkdtemp(prefix="hindsight-adapter-")
    samples = []
    try:
        with Hindsight(path=folder, embedder=FakeEmbedder()) as memory:
            queue = WriteQueue(memory, journal=Path(folder) / f"bench-{sync}.sqlite", sync=sync)
            for i in range(turns):
                start = time.perf_counter()
                queue.submit([message(i)], user_id="alice")
                samples.append((time.perf_counter() - start) * 1000)
                queue.flush()  # the writer idle at the next hand-over, as between an agent's turns
            queue.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return percentiles(samples)


def _default_sync() -> str:
    """The write queue's default journal setting, as the adapters get it."""
    from hindsight_core.session.write_queue import WriteQueue

    return WriteQueue.__init__.__kwdefaults__["sync"]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "adapter_overhead.json")
    parser.add_argument("--turn-cost", action="store_true", help="measure remember=True against remember=False "
                        "over whole turns (kept under `turn_cost`; the other arms stay as they were)")
    parser.add_argument("--pause", type=float, default=0.5, help="seconds between turns for --turn-cost")
    parser.add_argument("--hogs", action="store_true", help="--turn-cost under a CPU hog on every core (kept under "
                        "`turn_cost_busy`), with a person's pause only")
    args = parser.parse_args(argv)
    embedder = embedder_named(DEFAULT_MODEL)
    embedder.embed(["warm up"])  # the model load is measured by benchmarks/model_load.py, not here
    if args.turn_cost:
        with cpu_hogs(args.hogs) as hogs:
            costs = turn_costs(embedder, args.turns, args.pause, pauses_only=args.hogs)
            load = round(os.getloadavg()[0], 1)
        report = write_entry(args.out, "turn_cost_busy" if args.hogs else "turn_cost",
                             {"load_average": load, "cpu_hogs": hogs, "embedder": embedder.name, **costs},
                             __file__, argv)
        print("wrote", args.out)
        return report
    report = {"embedder": embedder.name, "sync": _default_sync(), "arms": {}}
    for arm in ("quiet", "loaded"):
        with cpu_hogs(arm == "loaded") as hogs:
            result = {"cpu_hogs": hogs, "load_average": round(os.getloadavg()[0], 1),
                      "query_embedding": query_embedding(embedder, args.turns),
                      "queue_submit": journal_append(args.turns, "full"),
                      "queue_submit_no_fsync": journal_append(args.turns, "normal"),
                      "langchain": langchain_arm(embedder, args.turns),
                      "llamaindex": llamaindex_arm(embedder, args.turns)}
        report["arms"][arm] = result
        print(arm, json.dumps(result), flush=True)
    report["targets"] = {
        arm: {"langchain_write_p50_le_5ms": r["langchain"]["write_hook"]["p50_ms"] <= 5,
              "llamaindex_hand_over_p50_le_5ms": r["llamaindex"]["hand_over"]["p50_ms"] <= 5,
              "langchain_recall_le_embedding_plus_10ms":
                  r["langchain"]["recall_hook"]["p50_ms"] <= r["query_embedding"]["p50_ms"] + 10}
        for arm, r in report["arms"].items()}
    report = write_results(args.out, report, __file__, argv, keep=("turn_cost", "turn_cost_busy"))  # --turn-cost's stay
    print("wrote", args.out)
    return report


if __name__ == "__main__":
    main()
