"""LoCoMo written the way the adapters write: through the core's conversation policy, beside like-for-like baselines.

Run through `locomo_bench.py`, the one LoCoMo entry point:

    python -m benchmarks.locomo_bench --protocol adapters [PATH] [--limit N] [--max-questions N]
                                      [--out benchmarks/results/locomo_adapters.json]

hindsight: one store per conversation (user_id = sample_id), every session
offered in order, once, to `hindsight_core.session.turns.TurnLog(memory).offer([Turn(text,
source, timestamp=session date)...], user_id=..., session_id="session-N")` -
the policy the LangChain and LlamaIndex adapters use, so whatever it decides
(which turns are written, whether a turn is paired with the one it answers,
duplicates) is what is measured. `Turn` gets its `timestamp` only where the
core's `Turn` has that field; the clock is set to the session's date either way.
Both speakers are source "user" (`--source-map a_user_b_agent` files speaker_b
as the agent). Questions: `recall(k=10, reinforce=False)`, the clock one hour
after the last session.

Crediting: a memory covers the dialog ids of the turns it was written from,
plus the turn it answers when the policy stored one (`record.context`), plus its
episodes' ids when it is knowledge. The baselines are scored the same way over
the same strings ("Speaker: text [shared a photo: caption]"), once over SINGLE
turns and once over EXCHANGES (each turn with the turn before it in its session;
a hit covers both dialog ids): e5 dense on its query and passage sides, BM25,
and their reciprocal-rank fusion (`plain.py`).

Reported per system, overall and per category: recall@5, recall@10, hit@5,
the share of evidence whose text reaches the top-5 prompt block whole
(`evidence_in_block@5`, counted like recall: the evidence turn's own words,
spaces collapsed, found whole in `Hindsight.format_for_prompt(results[:5])` for
hindsight, as a memory or as the turn a memory answers, and in the same-shaped
block for the baselines: `metrics.evidence_in_block`), and the block's cl100k
tokens (`hindsight_core.language.tokens`).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Sequence

os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = Path(__file__).resolve().parent

from benchmarks.embedcache import CACHE_DIR  # noqa: E402
from benchmarks.harness import write_results  # noqa: E402
from benchmarks.locomo import CATEGORIES, TEXT_FORMATS, Conversation, load_locomo, turn_text  # noqa: E402
from benchmarks.metrics import evidence_in_block, question_row, squash, summarise  # noqa: E402
from benchmarks.plain import BASELINES, PlainIndex, Unit, block  # noqa: E402
from benchmarks.recipes import E5Vectors, Recipe  # noqa: E402

from hindsight_core import Source, count_tokens  # noqa: E402
from hindsight_core.session.turns import Turn, TurnLog  # noqa: E402
from hindsight_core.testing import FrozenClock  # noqa: E402

DEFAULT_DATA = HERE.parent.parent / "shared" / "benchmarks" / "locomo10.json"
HINDSIGHT = "hindsight (adapters' protocol)"
QUESTION_DELAY_HOURS = 1
TURN_TAKES_TIMESTAMP = "timestamp" in {f.name for f in dataclasses.fields(Turn)}


def make_turn(text: str, source: Source, when: datetime) -> Turn:
    """A policy turn, dated where the core's `Turn` takes a timestamp."""
    return Turn(text, source, timestamp=when) if TURN_TAKES_TIMESTAMP else Turn(text, source)


def single_units(conv: Conversation, texts: Sequence[str]) -> list[Unit]:
    return [Unit(text, (t.dia_id,), t.timestamp) for t, text in zip(conv.turns, texts)]


def exchange_units(conv: Conversation, texts: Sequence[str]) -> list[Unit]:
    """Each turn with the turn before it in its session (the first turn of a session alone)."""
    out = []
    for i, (turn, text) in enumerate(zip(conv.turns, texts)):
        before = conv.turns[i - 1] if i and conv.turns[i - 1].session == turn.session else None
        out.append(Unit(f"{texts[i - 1]}\n{text}", (before.dia_id, turn.dia_id), turn.timestamp) if before
                   else Unit(text, (turn.dia_id,), turn.timestamp))
    return out


class AdapterStore:
    """One conversation written through the conversation policy (see the module doc)."""

    def __init__(self, recipe: Recipe, vectors: E5Vectors, conv: Conversation, texts: Sequence[str],
                 source_map: str = "both_user") -> None:
        self.user = conv.sample_id
        self.recipe = recipe
        self.clock = FrozenClock(conv.turns[0].timestamp)
        self.folder = tempfile.mkdtemp(prefix="hindsight-adapters-")
        self.memory = recipe.build(vectors, self.clock, self.folder)
        log = TurnLog(recipe.writer(self.memory))
        self.covers: dict[str, set[str]] = {}
        self.offered = self.stored = 0
        sessions: dict[int, list[int]] = {}
        for i, turn in enumerate(conv.turns):
            sessions.setdefault(turn.session, []).append(i)
        for number in sorted(sessions):
            positions = sessions[number]
            when = conv.turns[positions[0]].timestamp
            self.clock.set(when)
            turns = [make_turn(texts[i], Source.AGENT if source_map == "a_user_b_agent"
                               and conv.turns[i].speaker == conv.speaker_b else Source.USER, when)
                     for i in positions]
            by_digest: dict[str, set[str]] = {}
            by_text: dict[str, set[str]] = {}
            for i, turn in zip(positions, turns):
                by_digest.setdefault(turn.digest, set()).add(conv.turns[i].dia_id)
                by_text.setdefault(texts[i], set()).add(conv.turns[i].dia_id)
            for offered in log.offer(turns, user_id=self.user, session_id=f"session-{number}"):
                self.offered += 1
                result = offered.result
                if result is None or result.record is None:
                    continue
                self.stored += int(bool(result.stored))
                covered = self.covers.setdefault(result.record.id, set())
                covered |= by_digest.get(offered.turn.digest, set())
                context = getattr(result.record, "context", None)
                if context and not result.merged:  # the turn it answers, as the policy paired them
                    covered |= by_text.get(context, set())
        self.memories = len(self.memory.memories(user_id=self.user, include_inactive=False))
        self.clock.set(conv.last_time + timedelta(hours=QUESTION_DELAY_HOURS))

    def ids(self, record) -> tuple[str, ...]:
        out = set(self.covers.get(record.id, ()))
        for source in getattr(record, "derived_from", None) or ():
            out |= self.covers.get(source, set())
        return tuple(sorted(out))

    def search(self, query: str, k: int):
        """(ids per result, the top-5 prompt block)."""
        results = self.memory.recall(query, user_id=self.user, k=k, reinforce=False)
        return [self.ids(r.memory) for r in results], self.recipe.block(self.memory, results)

    def close(self) -> None:
        self.memory.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def _row(conv: Conversation, question, ranked, text_block: str, words: dict[str, str]) -> dict[str, Any]:
    row = question_row(question.category, ranked, question.evidence, count_tokens(text_block) if ranked else 0,
                       None)
    row["evidence_in_block@5"] = evidence_in_block(text_block, question.evidence, words)
    row["query"] = question.question
    return row


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out = summarise(rows)
    for name, group in [("overall", rows), *((CATEGORIES.get(c, f"category {c}"),
                                             [r for r in rows if r["category"] == c])
                                            for c in sorted({r["category"] for r in rows}))]:
        if group:
            out[name]["evidence_in_block@5"] = round(100 * statistics.fmean(r["evidence_in_block@5"] for r in group), 1)
    return out


def run_hindsight(recipe: Recipe, conversations: Sequence[Conversation], texts: dict[str, list[str]],
                  vectors: E5Vectors, *, max_questions: int | None = None, source_map: str = "both_user",
                  keep_rows: bool = False) -> dict[str, Any]:
    rows, offered, stored, memories = [], 0, 0, 0
    start = time.perf_counter()
    for conv in conversations:
        words = {t.dia_id: squash(t.text) for t in conv.turns}
        store = AdapterStore(recipe, vectors, conv, texts[conv.sample_id], source_map)
        offered, stored, memories = offered + store.offered, stored + store.stored, memories + store.memories
        try:
            for question in conv.questions[:max_questions]:
                ranked, text_block = store.search(question.question, 10)
                rows.append(_row(conv, question, ranked, text_block, words))
        finally:
            store.close()
        vectors.save()
    return {"kind": "hindsight", "summary": summary(rows), "offered": offered, "stored": stored,
            "memories": memories, "seconds": round(time.perf_counter() - start, 1), "setup": recipe.describe(),
            **({"rows": rows} if keep_rows else {})}


def run_baselines(conversations: Sequence[Conversation], texts: dict[str, list[str]], vectors: E5Vectors, *,
                  max_questions: int | None = None, systems: Sequence[str] = BASELINES) -> dict[str, Any]:
    rows: dict[str, list[dict]] = {}
    for conv in conversations:
        words = {t.dia_id: squash(t.text) for t in conv.turns}
        for unit_name, units in (("turns", single_units(conv, texts[conv.sample_id])),
                                 ("exchanges", exchange_units(conv, texts[conv.sample_id]))):
            index = PlainIndex(units, passage_side=vectors.passage_side, query_side=vectors.query_side)
            for system in systems:
                for question in conv.questions[:max_questions]:
                    hits = index.rank(system, question.question, 10)
                    rows.setdefault(f"{system} over {unit_name}", []).append(
                        _row(conv, question, [u.ids for u in hits], block(hits[:5]), words))
        vectors.save()
    return {name: {"kind": "baseline", "summary": summary(group)} for name, group in rows.items()}


def prepare(path: Path, limit: int | None, text_format: str = "speaker", caption: bool = True,
            max_questions: int | None = None, vectors: E5Vectors | None = None, cache: Path | None = None):
    conversations = load_locomo(path, limit)
    texts = {c.sample_id: [turn_text(t, text_format, caption=caption) for t in c.turns] for c in conversations}
    vectors = vectors or E5Vectors(cache)
    warm = [x for c in conversations for x in texts[c.sample_id]]
    warm += [u.text for c in conversations for u in exchange_units(c, texts[c.sample_id])]
    start = time.perf_counter()
    fresh = vectors.warm(warm) + vectors.warm_queries([q.question for c in conversations
                                                       for q in c.questions[:max_questions]])
    if fresh:
        print(f"embedded {fresh:,} new texts in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    vectors.save()
    return conversations, texts, vectors


def add_arguments(parser: argparse.ArgumentParser, *, shared: bool = False) -> None:
    """The options of this script (`shared`: those locomo_bench.py already has are left out)."""
    if not shared:
        parser.add_argument("path", type=Path, nargs="?", default=DEFAULT_DATA)
        parser.add_argument("--limit", type=int, default=None, help="only the first N conversations")
        parser.add_argument("--max-questions", type=int, default=None, help="only the first N questions of each")
        parser.add_argument("--text-format", default="speaker", choices=TEXT_FORMATS)
        parser.add_argument("--no-caption", action="store_true")
        parser.add_argument("--source-map", default="both_user", choices=("both_user", "a_user_b_agent"))
        parser.add_argument("--no-cache", action="store_true", help="keep vectors in memory only")
    parser.add_argument("--baselines", nargs="*", default=list(BASELINES), choices=BASELINES)


def run(args: argparse.Namespace, vectors: E5Vectors | None = None) -> dict[str, Any]:
    cache = None if args.no_cache else CACHE_DIR / "locomo-adapters-multilingual-e5-small.npy"
    conversations, texts, vectors = prepare(args.path, args.limit, args.text_format, not args.no_caption,
                                            args.max_questions, vectors, cache)
    report: dict[str, Any] = {
        "data": {"path": str(args.path), "sha256": hashlib.sha256(Path(args.path).read_bytes()).hexdigest(),
                 "conversations": len(conversations), "turns": sum(len(c.turns) for c in conversations),
                 "questions": sum(len(c.questions[:args.max_questions]) for c in conversations)},
        "setup": {"embedder": vectors.name, "protocol": "TurnLog.offer, one offer per session, in order",
                  "turn_takes_timestamp": TURN_TAKES_TIMESTAMP, "text_format": args.text_format,
                  "caption": not args.no_caption, "source_map": args.source_map, "k": 10,
                  "tokens": "cl100k_base tokens of the top-5 prompt block"},
        "systems": {},
    }
    print(f"running {HINDSIGHT} ...", file=sys.stderr, flush=True)
    report["systems"][HINDSIGHT] = run_hindsight(Recipe(), conversations, texts, vectors,
                                                 max_questions=args.max_questions, source_map=args.source_map)
    report["systems"].update(run_baselines(conversations, texts, vectors, max_questions=args.max_questions,
                                           systems=args.baselines))
    report = write_results(args.out, report, "locomo_bench.py")  # the entry point that runs this protocol
    print_table(report)
    return report


def print_table(report: dict[str, Any]) -> None:
    data = report["data"]
    print(f"\nLoCoMo through the adapters' protocol: {data['conversations']} conversations, {data['turns']:,} turns, "
          f"{data['questions']:,} questions")
    cats = list(CATEGORIES.values())
    print(f"{'system':<44} {'R@5':>6} {'R@10':>6} {'hit@5':>6} {'block':>6} {'tokens':>7}  "
          + " ".join(f"{c[:11]:>11}" for c in cats))
    for name, r in report["systems"].items():
        s = r["summary"]
        o = s["overall"]
        print(f"{name:<44} {o['recall@5']:>6.1f} {o['recall@10']:>6.1f} {o['hit@5']:>6.1f} "
              f"{o['evidence_in_block@5']:>6.1f} {o['tokens']:>7.0f}  "
              + " ".join(f"{s.get(c, {}).get('recall@5', float('nan')):>11.1f}" for c in cats))
    ours = report["systems"].get(HINDSIGHT)
    if ours:
        print(f"hindsight stored {ours['stored']}/{ours['offered']} offered turns as {ours['memories']} memories")

