"""What hindsight adds to an agent turn through its adapters, with the default embedder, quiet and loaded.

    python benchmarks/adapter_overhead.py [--turns 20] [--out benchmarks/results/adapter_overhead.json]

Each arm runs real framework turns with a fake model that answers at once:
  - LangChain: a `create_agent` agent with `HindsightMiddleware` on the embedded
    store; the time spent in the middleware's write hook (`after_agent`: the turn
    handed to the write queue) and in its recall hook (`wrap_model_call` minus the
    model's own call);
  - LlamaIndex: a `SimpleChatEngine` on `hindsight_memory`; the time spent in the
    block's `_aget` (recall for the message, then the turns handed to the queue),
    and in the hand-over alone;
  - the query embedding alone (`embed_query` on a new text), the floor of any recall.
Between turns the queue is flushed outside the timings: a real model takes longer
to answer than the embedding of the last turn, so a turn's recall does not wait
for it (`settle` makes it wait when it must). Each message is new, so no query
comes from the cache. Arms: a quiet machine, then a CPU hog
(`python -c "while True: pass"`) on every core. No environment variable is set.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from load import cpu_hogs  # noqa: E402
from metrics import percentiles  # noqa: E402

from hindsight_core import Hindsight  # noqa: E402
from hindsight_core.embed.embedder import DEFAULT_MODEL, embedder_named  # noqa: E402

FACTS = ["My sister {n} lives in Lisbon and works as a nurse.", "I prefer meetings after {n} am on weekdays.",
         "Project Falcon-{n} ships on the 12th; Priya owns the release.", "I am allergic to peanuts and {n} shellfish.",
         "Book me an aisle seat on flight {n} to Berlin.", "My locker code at the gym is {n}."]


def message(i: int) -> str:
    return FACTS[i % len(FACTS)].format(n=i + 3)


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
    args = parser.parse_args(argv)
    embedder = embedder_named(DEFAULT_MODEL)
    embedder.embed(["warm up"])  # the model load is measured by benchmarks/model_load.py, not here
    report = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
              "command": "python benchmarks/adapter_overhead.py " + " ".join(argv if argv is not None else sys.argv[1:]),
              "embedder": embedder.name, "sync": _default_sync(), "arms": {}}
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
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print("wrote", args.out)
    return report


if __name__ == "__main__":
    main()
