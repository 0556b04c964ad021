"""Recall quality on LoCoMo: hindsight beside plain baselines and peer libraries, in one run.

    python -m benchmarks.locomo_bench [PATH] [--limit N] [--max-questions N] [--systems ...]
                                      [--out benchmarks/results/locomo.json]
    python -m benchmarks.locomo_bench --protocol adapters [PATH] [--limit N] [--max-questions N]
                                      (-> benchmarks/results/locomo_adapters.json; see locomo_adapters.py)

PATH is any file in LoCoMo's schema (default ../shared/benchmarks/locomo10.json;
CC BY-NC 4.0, read in place, never copied). Every system gets the same strings,
one per turn: "Speaker: text", with " [shared a photo: caption]" when the turn
shared an image (`--text-format`, `--no-caption` change that for all systems).

hindsight: one user namespace per conversation (user_id = sample_id); each turn
is one `write` with the session's date as its timestamp, source "user" for both
speakers (both are people talking to each other; `--source-map a_user_b_agent`
files speaker_b as the agent instead), the dialog id in metadata. It runs twice:
through the write gate (turns it declines are not stored, so cannot be found),
and with force=True. Questions are asked with recall(k=10, reinforce=False) on
a clock one hour after the last session.

Reported per category and overall: recall@5 and @10 of the evidence ids (mean
fraction found; questions without evidence count as 1, as in the LoCoMo paper),
any-hit@5, mean tokens of the top-5 prompt block (cl100k_base), and search
latency with the query embedded by the model (`--cached-queries` leaves it out).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
HERE = Path(__file__).resolve().parent

from benchmarks.embedcache import CACHE_DIR, CachedEmbedder  # noqa: E402
from benchmarks.harness import write_results  # noqa: E402
from benchmarks.locomo import CATEGORIES, TEXT_FORMATS, Conversation, history_text, load_locomo, turn_text  # noqa: E402
from benchmarks.locomo_adapters import add_arguments as add_adapter_arguments  # noqa: E402
from benchmarks.locomo_adapters import run as run_adapters  # noqa: E402
from benchmarks.metrics import question_row, summarise  # noqa: E402
from benchmarks.peers import LangChainSystem, LlamaIndexSystem, PeerUnavailable, run_mem0  # noqa: E402
from benchmarks.systems import BM25System, DenseSystem, HindsightSystem, RRFSystem, System  # noqa: E402

from hindsight_core import count_tokens  # noqa: E402

DEFAULT_DATA = HERE.parent.parent / "shared" / "benchmarks" / "locomo10.json"
ALL_SYSTEMS = ("hindsight", "hindsight-force", "bm25", "dense", "rrf", "langchain", "llamaindex", "mem0")
PUBLISHED = {
    "DRAGON, LoCoMo paper Table 3 (dialog turns)": {
        "overall": {"recall@5": 56.7, "recall@10": 66.2}, "single-hop": {"recall@5": 68.0},
        "multi-hop": {"recall@5": 35.4}, "temporal": {"recall@5": 70.4}, "open-domain": {"recall@5": 33.1},
        "adversarial": {"recall@5": 43.9}},
}


def set_torch_threads(threads: int | None) -> None:
    """Pin the model's thread count (torch's default oversubscribes a busy 2-core machine)."""
    if threads:
        os.environ["OMP_NUM_THREADS"] = str(threads)  # inherited by the mem0 subprocess
        try:
            import torch

            torch.set_num_threads(threads)
        except ImportError:
            pass


def evaluate(system: System, conversations: list[Conversation], texts: dict[str, list[str]], embedder,
             *, max_questions: int | None, live_queries: bool, progress: bool = True) -> dict[str, Any]:
    """Index every conversation in `system`, ask its questions; returns the summary and timings."""
    rows, index_s = [], 0.0
    for conv in conversations:
        start = time.perf_counter()
        session = system.open(conv, texts[conv.sample_id])
        index_s += time.perf_counter() - start
        try:
            embedder.live = live_queries
            for question in conv.questions[:max_questions]:
                start = time.perf_counter()
                hits = session.search(question.question, 10)
                latency = (time.perf_counter() - start) * 1000
                row = question_row(question.category, [h.ids for h in hits], question.evidence,
                                   session.prompt_tokens(hits[:5]), latency)
                if hasattr(session, "full_text_tokens"):
                    row["tokens_full_text"] = session.full_text_tokens(hits[:5])
                rows.append(row)
        finally:
            embedder.live = False
            session.close()
        if progress:
            print(f"  {system.name}: {conv.sample_id} done", file=sys.stderr, flush=True)
    out = {"kind": system.kind, "status": "ok", "summary": summarise(rows), "index_s": round(index_s, 2),
           "setup": system.describe()}
    if isinstance(system, HindsightSystem):
        out.update({key: system.stats[key] for key in ("offered", "stored", "memories")})
    return out


def mem0_result(args, conversations: list[Conversation]) -> dict[str, Any]:
    raw = run_mem0(args.path, limit=args.limit, text_format=args.text_format, caption=not args.no_caption,
                   max_questions=args.max_questions)
    questions = {(c.sample_id, i): q for c in conversations for i, q in enumerate(c.questions)}
    rows = []
    for r in raw["rows"]:
        q = questions[(r["sample_id"], r["q"])]
        rows.append(question_row(q.category, r["ranked"], q.evidence, r["tokens"], r["latency_ms"]))
    return {"kind": "peer", "status": "ok", "summary": summarise(rows), "index_s": round(raw["index_s"], 2),
            "setup": {"version": raw["version"], "infer": False, "notes": raw["notes"]}}


def build_systems(names: list[str], embedder, args) -> tuple[list[System], dict[str, dict]]:
    systems: list[System] = []
    unavailable: dict[str, dict] = {}
    for name in names:
        try:
            if name == "hindsight":
                systems.append(HindsightSystem(embedder, name="hindsight (write gate)", source_map=args.source_map))
            elif name == "hindsight-force":
                systems.append(HindsightSystem(embedder, name="hindsight (force=True)", force=True,
                                               source_map=args.source_map))
            elif name == "bm25":
                systems.append(BM25System())
            elif name == "dense":
                systems.append(DenseSystem(embedder))
            elif name == "rrf":
                systems.append(RRFSystem(embedder))
            elif name == "langchain":
                systems.append(LangChainSystem(embedder))
            elif name == "llamaindex":
                systems.append(LlamaIndexSystem(embedder))
        except PeerUnavailable as exc:
            unavailable[name] = {"kind": "peer", "status": "unavailable", "reason": str(exc)}
    return systems, unavailable


def print_tables(report: dict[str, Any]) -> None:
    systems = report["systems"]
    print(f"\nLoCoMo: {report['data']['conversations']} conversations, {report['data']['turns']:,} turns, "
          f"{report['data']['questions']:,} questions")
    print(f"{'system':<32} {'R@5':>6} {'R@10':>6} {'hit@5':>6} {'tokens':>7} {'p50 ms':>8} {'stored':>12}")
    for name, r in systems.items():
        if r["status"] != "ok":
            print(f"{name:<32} unavailable: {r['reason']}")
            continue
        o = r["summary"]["overall"]
        stored = f"{r['stored']}/{r['offered']}" if "stored" in r else ""
        p50 = o.get("latency", {}).get("p50_ms", float("nan"))
        print(f"{name:<32} {o['recall@5']:>6.1f} {o['recall@10']:>6.1f} {o['hit@5']:>6.1f} {o['tokens']:>7.0f} "
              f"{p50:>8.2f} {stored:>12}")
    print(f"{'full history (tokens only)':<32} {'':>6} {'':>6} {'':>6} {report['full_history']['tokens']:>7.0f}")
    cats = list(CATEGORIES.values())
    print(f"\nrecall@5 by category\n{'system':<32} " + " ".join(f"{c:>12}" for c in cats))
    for name, r in systems.items():
        if r["status"] == "ok":
            print(f"{name:<32} " + " ".join(f"{r['summary'].get(c, {}).get('recall@5', float('nan')):>12.1f}"
                                           for c in cats))
    for name, figures in report["published"].items():
        print(f"{name[:32]:<32} " + " ".join(f"{figures.get(c, {}).get('recall@5', float('nan')):>12.1f}" for c in cats))


def targets(report: dict[str, Any]) -> dict[str, Any]:
    """The issue's quality targets, checked against this run."""
    ours = report["systems"].get("hindsight (write gate)")
    if not ours or ours["status"] != "ok":
        return {}
    o = ours["summary"]["overall"]
    behind = []
    for name, r in report["systems"].items():
        if r["status"] != "ok" or r["kind"] == "hindsight":
            continue
        for cat in ["overall", *CATEGORIES.values()]:
            mine, theirs = ours["summary"].get(cat, {}), r["summary"].get(cat, {})
            if "recall@5" in mine and "recall@5" in theirs and mine["recall@5"] <= theirs["recall@5"]:
                behind.append(f"{cat}: {mine['recall@5']} vs {name} {theirs['recall@5']}")
    return {"recall@5 overall >= 60": {"measured": o["recall@5"], "met": o["recall@5"] >= 60},
            "tokens per question <= 400": {"measured": o["tokens"], "met": o["tokens"] <= 400},
            "above every baseline and peer in every category": {"met": not behind, "not above": behind}}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path, nargs="?", default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--max-questions", type=int, default=None, help="only the first N questions of each")
    parser.add_argument("--systems", nargs="+", default=list(ALL_SYSTEMS), choices=ALL_SYSTEMS)
    parser.add_argument("--text-format", default="speaker", choices=TEXT_FORMATS)
    parser.add_argument("--no-caption", action="store_true", help="leave image captions out of the turn text")
    parser.add_argument("--source-map", default="both_user", choices=("both_user", "a_user_b_agent"))
    parser.add_argument("--cached-queries", action="store_true", help="time searches without the query embedding")
    parser.add_argument("--torch-threads", type=int, default=1,
                        help="threads for the model (1: steadier single-query latency on a shared machine)")
    parser.add_argument("--embedder", default=None,
                        help="model name (default: hindsight's default embedder, multilingual-e5-small; "
                             "all-MiniLM-L6-v2 for the sentence-transformers model)")
    parser.add_argument("--cache", type=Path, default=None, help="vector cache (default: one file per embedder)")
    parser.add_argument("--no-cache", action="store_true", help="keep vectors in memory only")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "locomo.json")
    parser.add_argument("--protocol", default="turns", choices=("turns", "adapters"),
                        help="turns: each turn one write() with its context (this script); adapters: each session "
                             "offered to the core's conversation policy, beside baselines over turns and exchanges "
                             "(locomo_adapters.py)")
    add_adapter_arguments(parser, shared=True)
    parser.add_argument("--merge", type=Path, nargs="+", default=None, metavar="JSON",
                        help="add the systems of these result files (same data) to --out, instead of running")
    args = parser.parse_args(argv)
    if args.protocol == "adapters" and args.out == HERE / "results" / "locomo.json":
        args.out = HERE / "results" / "locomo_adapters.json"
    return args


def run(args, embedder=None) -> dict[str, Any]:
    from hindsight_core.embed.embedder import DEFAULT_MODEL, embedder_named

    set_torch_threads(args.torch_threads)
    conversations = load_locomo(args.path, args.limit)
    texts = {c.sample_id: [turn_text(t, args.text_format, caption=not args.no_caption) for t in c.turns]
             for c in conversations}
    inner = embedder or embedder_named(args.embedder or DEFAULT_MODEL)
    cache = args.cache or CACHE_DIR / f"locomo-{inner.name.replace('/', '_')}.npy"
    cached = CachedEmbedder(inner, None if args.no_cache else cache)
    all_texts = [x for c in conversations for x in texts[c.sample_id]]
    questions = [q.question for c in conversations for q in c.questions[:args.max_questions]]
    start = time.perf_counter()
    fresh = cached.warm(all_texts) + (cached.warm_queries(questions) + cached.warm(questions)
                                      if args.cached_queries else 0)
    if fresh:
        print(f"embedded {fresh:,} new texts in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    cached.save()

    asked = sum(len(c.questions[:args.max_questions]) for c in conversations)
    report: dict[str, Any] = {
        **({} if embedder is None else {"command": "(test)"}),  # date, command and machine: `write_results`
        "data": {"path": str(args.path), "sha256": hashlib.sha256(Path(args.path).read_bytes()).hexdigest(),
                 "conversations": len(conversations), "turns": len(all_texts), "questions": asked,
                 "evidence_ids_dropped": sorted({d for c in conversations for q in c.questions
                                                 for d in q.dropped_evidence})},
        "setup": {"embedder": inner.name, "text_format": args.text_format, "caption": not args.no_caption,
                  "source_map": args.source_map, "query_embedding_in_latency": not args.cached_queries,
                  "torch_threads": args.torch_threads,
                  "tokens": "cl100k_base tokens of the top-5 prompt block (hindsight's format_for_prompt; "
                            "the same header and tags for the others)"},
        "systems": {}, "published": PUBLISHED,
        "full_history": {"tokens": round(sum(count_tokens(history_text(c)) * len(c.questions[:args.max_questions])
                                             for c in conversations) / max(asked, 1), 1)},
    }
    systems, unavailable = build_systems([s for s in args.systems if s != "mem0"], cached, args)
    for system in systems:
        print(f"running {system.name} ...", file=sys.stderr, flush=True)
        report["systems"][system.name] = evaluate(system, conversations, texts, cached,
                                                  max_questions=args.max_questions,
                                                  live_queries=not args.cached_queries)
    report["systems"].update({f"{name} (peer)": r for name, r in unavailable.items()})
    if "mem0" in args.systems:
        print("running mem0 in .venv-peers ...", file=sys.stderr, flush=True)
        try:
            report["systems"]["mem0 (infer=False)"] = mem0_result(args, conversations)
        except (PeerUnavailable, OSError, ValueError) as exc:
            report["systems"]["mem0 (infer=False)"] = {"kind": "peer", "status": "unavailable", "reason": str(exc)}
    report["targets"] = targets(report)
    cached.save()
    print_tables(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        report = write_results(args.out, report, __file__)
        print(f"\nwrote {args.out}")
    return report


def merge(out: Path, others: list[Path]) -> dict[str, Any]:
    """Add the systems of other runs on the same data (e.g. a peer run on its own) to the report at `out`."""
    report = json.loads(out.read_text())
    for path in others:
        other = json.loads(path.read_text())
        if other["data"]["sha256"] != report["data"]["sha256"] or \
                other["data"]["questions"] != report["data"]["questions"]:
            raise SystemExit(f"{path} was run on other data than {out}; not merged")
        report["systems"].update({k: v for k, v in other["systems"].items() if v.get("status") == "ok"})
        report.setdefault("merged_from", []).append(other.get("command", str(path)))
    report["targets"] = targets(report)
    report = write_results(out, report, __file__)  # the first run's date and command are kept
    print_tables(report)
    return report


if __name__ == "__main__":
    cli = parse_args()
    if cli.merge:
        merge(cli.out, cli.merge)
    else:
        run_adapters(cli) if cli.protocol == "adapters" else run(cli)
