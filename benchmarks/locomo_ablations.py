"""What limits hindsight's LoCoMo recall: one change at a time, on the same turns and vectors.

    python benchmarks/locomo_ablations.py [PATH] [--limit N] [--variants NAME ...] [--list]

Each variant is hindsight with one setting changed from the row it builds on
(configuration passed through HindsightConfig, the recall call's options, or the
text the caller writes). Query vectors are cached, so no latency is reported;
the store is Qdrant in memory (recall runs on hindsight's in-process index either
way). Results go to benchmarks/results/locomo_ablations.json.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from datetime import datetime, timezone
from dataclasses import dataclass, field
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


def with_previous(conv: Conversation, fmt: str = "speaker") -> list[str]:
    """Each turn written with the turn before it in the same session, as context: 'prev / this'."""
    out, previous = [], None
    for turn in conv.turns:
        text = turn_text(turn, fmt)
        same = previous is not None and previous.session == turn.session
        out.append(f"{turn_text(previous, fmt)} / {text}" if same else text)
        previous = turn
    return out


def _units(conv: Conversation, span: int, stride: int, fmt: str = "speaker"):
    """Memories written from `span` consecutive turns of one session, every `stride` turns; each covers its turns."""
    out = []
    for start in range(0, len(conv.turns), stride):
        turns = [t for t in conv.turns[start:start + span] if t.session == conv.turns[start].session]
        out.append(("\n".join(turn_text(t, fmt) for t in turns), tuple(t.dia_id for t in turns), turns[0]))
    return out


def pairs(conv: Conversation):
    """One memory per exchange: turns 1+2, 3+4, ... of a session (about half as many memories)."""
    return _units(conv, 2, 2)


def sliding_pairs(conv: Conversation):
    """One memory per turn, written with the turn after it: 1+2, 2+3, ... (overlapping)."""
    return _units(conv, 2, 1)


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


def _fmt(fmt: str, caption: bool = True) -> Callable[[Conversation], list[str]]:
    return lambda conv: [turn_text(t, fmt, caption=caption) for t in conv.turns]


BEST_CONFIG = {"decay": NO_DECAY, "recall": {"retention_power": 0.0, "recency_weight": 0.0}}

VARIANTS = [
    Variant("gate", "defaults, through the write gate", force=False),
    Variant("force", "defaults, force=True (every turn stored)"),
    Variant("force+agent", "force, speaker_b filed as source=agent (trust 0.7)", source_map="a_user_b_agent"),
    Variant("faded", "force, recall(include_faded=True): retention threshold off", recall_options={"include_faded": True}),
    Variant("nodecay", "force, all decay rates 0 (retention = confidence)", config={"decay": NO_DECAY}),
    Variant("nodecay+noret", "no decay, retention_power 0 (confidence ignored in ranking)",
            config={"decay": NO_DECAY, "recall": {"retention_power": 0.0}}),
    Variant("best-cfg", "no decay, no retention weight, recency_weight 0", config=BEST_CONFIG),
    Variant("best-cfg+gate", "best-cfg through the write gate", force=False, config=BEST_CONFIG),
    Variant("minsim0", "best-cfg, min_similarity 0",
            config={"decay": NO_DECAY, "recall": {"retention_power": 0.0, "recency_weight": 0.0,
                                                  "min_similarity": 0.0}}),
    Variant("dense2", "best-cfg, dense_weight 2",
            config={"decay": NO_DECAY, "recall": {"retention_power": 0.0, "recency_weight": 0.0,
                                                  "dense_weight": 2.0}}),
    Variant("keyword2", "best-cfg, keyword_weight 2",
            config={"decay": NO_DECAY, "recall": {"retention_power": 0.0, "recency_weight": 0.0,
                                                  "keyword_weight": 2.0}}),
    Variant("rrf10", "best-cfg, rrf_k 10",
            config={"decay": NO_DECAY, "recall": {"retention_power": 0.0, "recency_weight": 0.0, "rrf_k": 10}}),
    Variant("plain", "best-cfg, text without the speaker's name", config=BEST_CONFIG, text=_fmt("plain")),
    Variant("date", "best-cfg, text '[date] Speaker: text'", config=BEST_CONFIG, text=_fmt("speaker_date")),
    Variant("nocaption", "best-cfg, image captions left out", config=BEST_CONFIG, text=_fmt("speaker", False)),
    Variant("prev-turn", "best-cfg, each turn written with the previous turn as context", config=BEST_CONFIG,
            text=with_previous),
    Variant("soft-decay-0.1", "decay kept, faded memories eligible, retention_power 0.1, recency_weight 0",
            recall_options={"include_faded": True}, config={"recall": {"retention_power": 0.1, "recency_weight": 0.0}}),
    Variant("soft-decay-0.25", "as soft-decay-0.1 with retention_power 0.25", recall_options={"include_faded": True},
            config={"recall": {"retention_power": 0.25, "recency_weight": 0.0}}),
    Variant("time-aware", "best-cfg, dates named in the question as a soft time prior (timeaware.py)",
            config=BEST_CONFIG, time_aware=True),
    Variant("gate+time", "best-cfg through the write gate, with the time-aware prototype", force=False,
            config=BEST_CONFIG, time_aware=True),
    Variant("best-cfg-nocons", "best-cfg, Hindsight(consensus=False): no contradiction check on recall",
            config=BEST_CONFIG, options={"consensus": False}),
    Variant("gate-nocons", "best-cfg through the write gate, consensus=False", force=False, config=BEST_CONFIG,
            options={"consensus": False}),
    Variant("gate+time-nocons", "gate-nocons with the time-aware prototype", force=False, config=BEST_CONFIG,
            options={"consensus": False}, time_aware=True),
    Variant("best-nocons+pairs", "gate+time-nocons, one memory per exchange (2 turns, covering both)",
            force=False, config=BEST_CONFIG, options={"consensus": False}, time_aware=True, units=pairs),
    Variant("best-nocons+kw1.5", "gate+time-nocons, keyword_weight 1.5", force=False,
            config={"decay": NO_DECAY, "recall": {"retention_power": 0.0, "recency_weight": 0.0,
                                                  "keyword_weight": 1.5}},
            options={"consensus": False}, time_aware=True),
    Variant("best-nocons+pairs+kw1.5", "best-nocons+pairs with keyword_weight 1.5", force=False,
            config={"decay": NO_DECAY, "recall": {"retention_power": 0.0, "recency_weight": 0.0,
                                                  "keyword_weight": 1.5}},
            options={"consensus": False}, time_aware=True, units=pairs),
    Variant("no-semantic", "best-cfg, near-duplicate merging, conflict detection and consolidation off",
            config={**BEST_CONFIG, "semantic": NO_SEMANTIC}),
    Variant("pairs", "best-cfg, one memory per exchange (2 turns, covering both)", config=BEST_CONFIG, units=pairs),
    Variant("sliding-pairs", "best-cfg, each turn written with the next one (overlapping, covering both)",
            config=BEST_CONFIG, units=sliding_pairs),
]


def run_variant(variant: Variant, conversations, embedder) -> dict[str, Any]:
    texts = {c.sample_id: (variant.text or _fmt("speaker"))(c) for c in conversations}
    embedder.warm([x for c in conversations for x in texts[c.sample_id]])
    system = HindsightSystem(embedder, name=variant.name, force=variant.force,
                             config=config(**variant.config) if variant.config else None,
                             source_map=variant.source_map, storage="memory", recall_options=variant.recall_options,
                             units=variant.units, time_aware=variant.time_aware, options=variant.options)
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
