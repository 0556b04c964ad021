"""Working memory on LoCoMo: which way of filling a token budget puts a question's evidence in front of the model.

    python -m benchmarks.working_memory [--data ../shared/benchmarks/locomo10.json] [--budgets 1000 2000]
        [--limit 50 | --conversations C --questions Q] [--via-gate] [--out benchmarks/results/working_memory.json]

Each conversation is replayed in order into a `WorkingMemory` (speaker_a as "user",
speaker_b as "assistant"; each turn "Speaker: text", a shared photo as its caption;
timestamped by its session date plus 30 s per turn) and into `Hindsight` stores (the
same texts, the session date as timestamp; `write_many(..., force=True)` by default
so every turn is stored, or through the write gate with `--via-gate`). Every question
is then asked at the end of its conversation (the clock one minute after the last
turn), and each strategy fills the same prompt budget:

  last_n               the most recent messages that fit
  full_truncated       the whole transcript as one message, cut to the budget (its start survives)
  window               WorkingMemory.window(question): priority-ranked messages, no long-term memory
  window_ltm           ContextBuilder: top-5 recalled memories + the window, default decay
  window_ltm_no_decay  the same on a store whose decay rates are 0

A turn reaches the context as a whole message in it, or as a recalled memory; a
question counts as covered when all its evidence turns (dia_id) did. Budgets count
every prompt token except the question, which all strategies would add alike:
message contents plus 4 tokens of framing each (cl100k_base), and the memory block.
Questions with no usable evidence are left out. Recall runs with reinforce=False,
so questions do not change each other's results.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from collections import defaultdict
from datetime import timedelta
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.embedcache import CachedEmbedder  # noqa: E402
from benchmarks.harness import write_results  # noqa: E402
from benchmarks.locomo import CATEGORIES, Conversation, load_locomo, turn_text  # noqa: E402

from hindsight_core import DecayConfig, FrozenClock, Hindsight, HindsightConfig  # noqa: E402
from hindsight_core.language.tokens import default_tokenizer  # noqa: E402
from hindsight_core.session.context import ContextBuilder  # noqa: E402
from hindsight_core.working import MESSAGE_OVERHEAD, WorkingMemory  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "benchmarks" / "locomo10.json"
DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "working_memory.json"
STRATEGIES = ("last_n", "full_truncated", "window", "window_ltm", "window_ltm_no_decay")
NO_DECAY = HindsightConfig(decay=DecayConfig(rates={}, default_rate=0.0))


def context_limit_for(budget: int, reserve_ratio: float = 0.2) -> int:
    """The smallest context limit whose available share (after the answer reserve) is `budget`."""
    limit = math.floor(budget / (1 - reserve_ratio))
    while limit - math.ceil(limit * reserve_ratio) < budget:
        limit += 1
    return limit


class Replay:
    """One conversation loaded into a working memory and two long-term stores, ready for questions."""

    def __init__(self, conversation: Conversation, embedder, *, via_gate: bool) -> None:
        self.conversation = conversation
        turns = conversation.turns
        self.texts = [turn_text(t, "speaker") for t in turns]
        self.dia_ids = [t.dia_id for t in turns]
        times = []
        for i, turn in enumerate(turns):
            first = i == 0 or turns[i - 1].session != turn.session
            times.append(turn.timestamp if first else times[-1] + timedelta(seconds=30))
        self.clock = FrozenClock(max(times) + timedelta(minutes=1))
        self.user = conversation.sample_id
        self.working = WorkingMemory(conversation.sample_id, user_id=self.user, embedder=embedder, clock=self.clock)
        self.working.extend([{"role": "user" if t.speaker == conversation.speaker_a else "assistant", "content": text,
                              "timestamp": when, "metadata": {"dia_id": t.dia_id}}
                             for t, text, when in zip(turns, self.texts, times)])
        self.stores: dict[str, Hindsight] = {}
        self.memory_dia: dict[str, dict[str, set[str]]] = {}
        self.stored: dict[str, int] = {}
        for name, config in (("window_ltm", None), ("window_ltm_no_decay", NO_DECAY)):
            store = Hindsight(location=":memory:", embedder=embedder, clock=self.clock, config=config)
            results = store.write_many(self.texts, user_id=self.user, timestamps=[t.timestamp for t in turns],
                                       force=not via_gate)
            self.stores[name] = store
            # a repeated turn is merged into the memory that holds it, which then stands for both turns
            held: dict[str, set[str]] = defaultdict(set)
            for result, dia in zip(results, self.dia_ids):
                if result.stored:
                    held[result.record.id].add(dia)
            self.memory_dia[name] = dict(held)
            self.stored[name] = len(held)
        self.tokenizer = default_tokenizer()
        self.costs = [self.tokenizer.count(t) + MESSAGE_OVERHEAD for t in self.texts]
        self.transcript = "\n".join(self.texts)
        self._fixed: dict[tuple[str, int], tuple[set[str], int]] = {}

    def close(self) -> None:
        for store in self.stores.values():
            store.close()

    def last_n(self, budget: int) -> tuple[set[str], int]:
        """The newest messages that fit (the same for every question, so computed once per budget)."""
        if ("last_n", budget) not in self._fixed:
            used, reached = 0, set()
            for cost, dia in zip(reversed(self.costs), reversed(self.dia_ids)):
                if used + cost > budget:
                    break
                used += cost
                reached.add(dia)
            self._fixed["last_n", budget] = (reached, used)
        return self._fixed["last_n", budget]

    def full_truncated(self, budget: int) -> tuple[set[str], int]:
        """The transcript as one message cut to the budget; a turn counts if it survived whole."""
        if ("full", budget) not in self._fixed:
            kept = self.tokenizer.truncate(self.transcript, max(0, budget - MESSAGE_OVERHEAD))
            reached, end = set(), -1
            for text, dia in zip(self.texts, self.dia_ids):
                end += 1 + len(text)
                if end > len(kept) or kept[:end] != self.transcript[:end]:
                    break
                reached.add(dia)
            self._fixed["full", budget] = (reached, self.tokenizer.count(kept) + MESSAGE_OVERHEAD)
        return self._fixed["full", budget]

    def window(self, question: str, budget: int) -> tuple[set[str], int]:
        window = self.working.window(question, budget=budget)
        return {m.metadata["dia_id"] for m in window.messages}, window.tokens

    def window_ltm(self, name: str, question: str, budget: int) -> tuple[set[str], int]:
        builder = ContextBuilder(self.stores[name], context_limit=context_limit_for(budget), k=5, reinforce=False)
        context = builder.build(self.working, query=question)
        assert context.tokens.available == budget
        reached = {m.metadata["dia_id"] for m in context.window.messages}
        for recalled in context.long_term:
            reached |= self.memory_dia[name].get(recalled.memory.id, set())
        return reached, context.tokens.total


def evaluate(conversations: list[Conversation], budgets: list[int], embedder, *, questions_per_conversation=None,
             via_gate: bool = False, log=print) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    skipped = 0
    stored = defaultdict(int)
    turns = 0
    started = time.perf_counter()
    for conversation in conversations:
        t0 = time.perf_counter()
        replay = Replay(conversation, embedder, via_gate=via_gate)
        turns += len(conversation.turns)
        for name, count in replay.stored.items():
            stored[name] += count
        load_s = time.perf_counter() - t0
        asked = conversation.questions[:questions_per_conversation] if questions_per_conversation else \
            conversation.questions
        for q in asked:
            evidence = set(q.evidence)
            if not evidence:
                skipped += 1
                continue
            row = {"sample_id": conversation.sample_id, "category": q.category, "evidence": len(evidence)}
            for budget in budgets:
                results = {
                    "last_n": replay.last_n(budget),
                    "full_truncated": replay.full_truncated(budget),
                    "window": replay.window(q.question, budget),
                    "window_ltm": replay.window_ltm("window_ltm", q.question, budget),
                    "window_ltm_no_decay": replay.window_ltm("window_ltm_no_decay", q.question, budget),
                }
                for strategy, (reached, tokens) in results.items():
                    if tokens > budget:
                        raise AssertionError(f"{strategy} used {tokens} tokens of a {budget} budget")
                    row[(strategy, budget)] = (len(evidence & reached) / len(evidence), tokens)
            rows.append(row)
        replay.close()
        log(f"{conversation.sample_id}: {len(conversation.turns)} turns, {len(asked)} questions "
            f"(load {load_s:.1f} s, total {time.perf_counter() - t0:.1f} s)")
    return summarise(rows, budgets, skipped=skipped, turns=turns, long_term_memories=dict(stored),
                     seconds=time.perf_counter() - started)


def summarise(rows: list[dict[str, Any]], budgets: list[int], **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"questions": len(rows), **extra, "budgets": {}}
    for budget in budgets:
        per_strategy = {}
        for strategy in STRATEGIES:
            cells = [row[(strategy, budget)] for row in rows]
            if not cells:
                continue
            by_category = {}
            for number, name in CATEGORIES.items():
                picked = [row[(strategy, budget)][0] for row in rows if row["category"] == number]
                if picked:
                    by_category[name] = round(sum(f == 1.0 for f in picked) / len(picked), 4)
            per_strategy[strategy] = {
                "all_evidence": round(sum(f == 1.0 for f, _ in cells) / len(cells), 4),
                "mean_evidence_fraction": round(statistics.fmean(f for f, _ in cells), 4),
                "mean_tokens": round(statistics.fmean(t for _, t in cells), 1),
                "max_tokens": max(t for _, t in cells),
                "all_evidence_by_category": by_category,
            }
        out["budgets"][str(budget)] = per_strategy
    return out


def print_table(summary: dict[str, Any]) -> None:
    print(f"\n{summary['questions']} questions ({summary['skipped']} without usable evidence left out)")
    for budget, strategies in summary["budgets"].items():
        print(f"\nbudget {budget} tokens       all evidence   mean share   mean tokens   max tokens")
        for name, s in strategies.items():
            print(f"  {name:<20} {s['all_evidence']:>10.1%} {s['mean_evidence_fraction']:>12.1%} "
                  f"{s['mean_tokens']:>13.1f} {s['max_tokens']:>12}")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--budgets", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--conversations", type=int, default=None, help="only the first C conversations")
    parser.add_argument("--questions", type=int, default=None, help="only the first Q questions of each")
    parser.add_argument("--limit", type=int, default=None,
                        help="a quick run: the first conversation, its first LIMIT questions")
    parser.add_argument("--via-gate", action="store_true", help="store turns through the write gate, not force=True")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--embedder", default="all-MiniLM-L6-v2", help="'fake' for the hashing test embedder")
    args = parser.parse_args(argv)
    if args.limit is not None:
        args.conversations, args.questions = 1, args.limit
    conversations = load_locomo(args.data, limit=args.conversations)
    if args.embedder == "fake":
        from hindsight_core.testing import FakeEmbedder

        inner = FakeEmbedder()
    else:
        from hindsight_core import SentenceTransformerEmbedder

        inner = SentenceTransformerEmbedder(args.embedder)
    embedder = CachedEmbedder(inner)
    summary = evaluate(conversations, args.budgets, embedder, questions_per_conversation=args.questions,
                       via_gate=args.via_gate)
    summary.update({
        "data": str(args.data), "conversations": len(conversations), "questions_per_conversation": args.questions,
        "long_term_writes": "write gate" if args.via_gate else "write_many(force=True): every turn",
        "embedder": inner.name, "tokenizer": "cl100k_base", "message_overhead": MESSAGE_OVERHEAD,
    })
    print_table(summary)
    summary = write_results(args.out, summary, __file__, argv)
    print(f"\nwrote {args.out}")
    return summary


if __name__ == "__main__":
    main()
