"""What limits hindsight's LoCoMo recall: one change at a time, on the same turns and vectors.

    python benchmarks/locomo_ablations.py [PATH] [--limit N] [--variants NAME ...] [--list]

Each variant is hindsight with one setting changed from its defaults
(configuration passed through HindsightConfig, the recall call's options, or the
text the caller writes). Query vectors are cached, so no latency is reported;
the store is Qdrant Edge on a temporary shard. Results go to
benchmarks/results/locomo_ablations.json.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from embedcache import CACHE_DIR, CachedEmbedder  # noqa: E402
from locomo import CATEGORIES, Conversation, load_locomo, turn_text  # noqa: E402
from locomo_bench import DEFAULT_DATA, evaluate, machine  # noqa: E402
from systems import HindsightSystem  # noqa: E402

from hindsight_core import HindsightConfig  # noqa: E402


def config(**parts: dict[str, Any]) -> HindsightConfig:
    """The default HindsightConfig with some fields of its parts replaced: config(recall={"rrf_k": 10})."""
    base = HindsightConfig()
    return dataclasses.replace(base, **{part: dataclasses.replace(getattr(base, part), **fields)
                                        for part, fields in parts.items()})


NO_DECAY = {"rates": {}, "default_rate": 0.0}
NO_SEMANTIC = {"merge_duplicates": False, "detect_conflicts": False, "auto_consolidate": False}


@dataclass
class Variant:
    name: str
    what: str
    force: bool = True
    config: dict[str, Any] = field(default_factory=dict)
    recall_options: dict[str, Any] = field(default_factory=dict)
    text: Callable[[Conversation], list[str]] | None = None
    units: Callable[[Conversation], list] | None = None
    time_aware: bool = False
    options: dict[str, Any] = field(default_factory=dict)
    source_map: str = "both_user"
    exchanges: bool = True


def _fmt(fmt: str, caption: bool = True) -> Callable[[Conversation], list[str]]:
    return lambda conv: [turn_text(t, fmt, caption=caption) for t in conv.turns]


VARIANTS = [
    Variant("gate", "defaults, through the write gate (what users get)", force=False),
    Variant("force", "defaults, force=True (every turn stored)"),
    Variant("no-exchange", "defaults, each turn written alone (no `context` of the turn it answers)",
            force=False, exchanges=False),
    Variant("nodecay", "defaults, all decay rates 0 (retention = confidence)", force=False,
            config={"decay": NO_DECAY}),
    Variant("retention-0", "defaults, retention_influence 0 (decay does not move the ranking)", force=False,
            config={"recall": {"retention_influence": 0.0}}),
    Variant("retention-0.6", "defaults, retention_influence 0.6", force=False,
            config={"recall": {"retention_influence": 0.6}}),
    Variant("hide-faded", "defaults, faded memories hidden whatever the cue (cue_rank 1, coverage 1, similarity 1)",
            force=False, config={"recall": {"cue_rank": 1, "cue_coverage": 1.0, "cue_similarity": 1.0}}),
    Variant("no-time-prior", "defaults, time_prior_weight 0 (dates named in the question ignored)", force=False,
            config={"recall": {"time_prior_weight": 0.0}}),
    Variant("rrf10", "defaults, rrf_k 10", force=False, config={"recall": {"rrf_k": 10}}),
    Variant("keyword1.5", "defaults, keyword_weight 1.5", force=False, config={"recall": {"keyword_weight": 1.5}}),
    Variant("dense1.5", "defaults, dense_weight 1.5", force=False, config={"recall": {"dense_weight": 1.5}}),
    Variant("agent-share", "defaults, speaker_b filed as source=agent (trust 0.7, retrieval check runs)",
            force=False, source_map="a_user_b_agent"),
    Variant("agent-share-nocons", "agent-share with Hindsight(consensus=False)", force=False,
            source_map="a_user_b_agent", options={"consensus": False}),
    Variant("no-semantic", "defaults, near-duplicate merging, conflict detection and consolidation off",
            force=False, config={"semantic": NO_SEMANTIC}),
    Variant("date", "defaults, text '[date] Speaker: text'", force=False, text=_fmt("speaker_date")),
]


def run_variant(variant: Variant, conversations, embedder) -> dict[str, Any]:
    texts = {c.sample_id: (variant.text or _fmt("speaker"))(c) for c in conversations}
    embedder.warm([x for c in conversations for x in texts[c.sample_id]])  # exchanges: warmed per session
    system = HindsightSystem(embedder, name=variant.name, force=variant.force,
                             config=config(**variant.config) if variant.config else None,
                             source_map=variant.source_map, storage="memory", recall_options=variant.recall_options,
                             units=variant.units, time_aware=variant.time_aware, options=variant.options,
                             exchanges=variant.exchanges)
    start = time.perf_counter()
    result = evaluate(system, conversations, texts, embedder, max_questions=None, live_queries=False,
                      progress=False)
    result["what"], result["seconds"] = variant.what, round(time.perf_counter() - start, 1)
    result["date"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return result


def main(argv: list[str] | None = None, embedder=None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path, nargs="?", default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--variants", nargs="+", default=None)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--no-cache", action="store_true", help="keep vectors in memory only")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "locomo_ablations.json")
    args = parser.parse_args(argv)
    if args.list:
        for v in VARIANTS:
            print(f"{v.name:<16} {v.what}")
        return {}
    if embedder is None:
        from hindsight_core import SentenceTransformerEmbedder

        embedder = SentenceTransformerEmbedder()
    unknown = set(args.variants or ()) - {v.name for v in VARIANTS}
    if unknown:
        parser.error(f"unknown variants {sorted(unknown)}; see --list")
    by_name = {v.name: v for v in VARIANTS}
    chosen = [by_name[name] for name in args.variants] if args.variants else VARIANTS
    conversations = load_locomo(args.path, args.limit)
    embedder = CachedEmbedder(embedder, None if args.no_cache else CACHE_DIR / "locomo-vectors.npy")
    embedder.warm([q.question for c in conversations for q in c.questions])
    previous = json.loads(args.out.read_text()) if args.out.exists() else {}
    report = {"machine": machine(), "limit": args.limit, "variants": dict(previous.get("variants", {}))}
    cats = list(CATEGORIES.values())
    print(f"{'variant':<16} {'R@5':>6} {'R@10':>6} {'hit@5':>6} {'tokens':>6} {'full':>6} {'stored':>10} "
          + " ".join(f"{c[:11]:>11}" for c in cats))
    for variant in chosen:
        result = run_variant(variant, conversations, embedder)
        embedder.save()
        report["variants"][variant.name] = result
        o = result["summary"]["overall"]
        print(f"{variant.name:<16} {o['recall@5']:>6.1f} {o['recall@10']:>6.1f} {o['hit@5']:>6.1f} "
              f"{o['tokens']:>6.0f} {o.get('tokens_full_text', 0):>6.0f} {result['stored']:>5}/{result['offered']:<5}"
              + " ".join(f"{result['summary'].get(c, {}).get('recall@5', float('nan')):>11.1f}" for c in cats),
              flush=True)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
