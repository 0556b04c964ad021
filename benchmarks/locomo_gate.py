"""Does the write gate cost recall? LoCoMo through the gate beside every turn stored (force=True).

    python -m benchmarks.locomo_gate [PATH] [--limit N] [--max-questions N]
                                     [--out benchmarks/results/locomo_gate.json]

Both runs use hindsight's own write and recall paths (`systems.HindsightSystem`,
one user per conversation, the session date as each turn's timestamp) with
decay off (every rate 0, so retention is the gate's confidence): the current
defaults hide months-old memories, which would blur what the gate alone does.
Besides recall@5/@10 per category, the report says what the gate drops: the
share of turns, and of evidence turns (turns some question's answer cites),
with every dropped evidence turn listed.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

from benchmarks.embedcache import CACHE_DIR, CachedEmbedder  # noqa: E402
from benchmarks.harness import write_results  # noqa: E402
from benchmarks.locomo import load_locomo, turn_text  # noqa: E402
from benchmarks.locomo_bench import DEFAULT_DATA, evaluate, machine, set_torch_threads  # noqa: E402
from benchmarks.systems import HindsightSystem  # noqa: E402

from hindsight_core import HindsightConfig, RuleBasedGate, Source  # noqa: E402
from hindsight_core.config import DecayConfig  # noqa: E402

#: decay off: retention is the confidence the gate gave, so neither run hides old memories
NO_DECAY = HindsightConfig(decay=DecayConfig(rates={}, default_rate=0.0))


def gate_drops(conversations, texts: dict[str, list[str]], gate=None) -> dict[str, Any]:
    """What `gate` declines: counts and shares of all turns and of evidence turns, and why."""
    gate = gate or RuleBasedGate()
    evidence = {(c.sample_id, d) for c in conversations for q in c.questions for d in q.evidence}
    turns = dropped = evidence_turns = evidence_dropped = 0
    reasons: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    dropped_evidence = []
    for conv in conversations:
        for turn, text in zip(conv.turns, texts[conv.sample_id]):
            decision = gate(text, Source.USER)
            cited = (conv.sample_id, turn.dia_id) in evidence
            turns += 1
            evidence_turns += cited
            kinds[decision.event_type if decision.store else "skipped"] += 1
            if not decision.store:
                dropped += 1
                evidence_dropped += cited
                reasons[decision.reasons[0]] += 1
                if cited:
                    dropped_evidence.append({"sample_id": conv.sample_id, "dia_id": turn.dia_id, "text": text})
    return {"turns": turns, "dropped": dropped, "dropped_share": round(dropped / max(turns, 1), 4),
            "evidence_turns": evidence_turns, "evidence_dropped": evidence_dropped,
            "evidence_dropped_share": round(evidence_dropped / max(evidence_turns, 1), 4),
            "reasons": dict(reasons), "kinds": dict(kinds), "dropped_evidence": dropped_evidence}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path, nargs="?", default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--max-questions", type=int, default=None, help="only the first N questions of each")
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--cache", type=Path, default=CACHE_DIR / "locomo-vectors.npy")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "locomo_gate.json")
    return parser.parse_args(argv)


def run(args, embedder=None) -> dict[str, Any]:
    from hindsight_core import SentenceTransformerEmbedder

    set_torch_threads(args.torch_threads)
    conversations = load_locomo(args.path, args.limit)
    texts = {c.sample_id: [turn_text(t, "speaker", caption=True) for t in c.turns] for c in conversations}
    inner = embedder or SentenceTransformerEmbedder()
    cached = CachedEmbedder(inner, args.cache)
    questions = [q.question for c in conversations for q in c.questions[:args.max_questions]]
    cached.warm([x for c in conversations for x in texts[c.sample_id]] + questions)
    cached.save()
    report: dict[str, Any] = {
        "machine": machine(), "embedder": inner.name,
        "command": "python -m benchmarks.locomo_gate " + " ".join(sys.argv[1:]) if embedder is None else "(test)",
        "setup": "decay off (all rates 0; retention = the gate's confidence); other settings default; "
                 "recall(k=10, reinforce=False); queries served from the vector cache",
        "gate": gate_drops(conversations, texts), "systems": {},
    }
    for system in (HindsightSystem(cached, name="gate on", config=NO_DECAY, storage="memory"),
                   HindsightSystem(cached, name="every turn (force=True)", force=True, config=NO_DECAY,
                                   storage="memory")):
        print(f"running {system.name} ...", file=sys.stderr, flush=True)
        result = evaluate(system, conversations, texts, cached, max_questions=args.max_questions,
                          live_queries=False)
        report["systems"][system.name] = {"summary": result["summary"], "stored": result["stored"],
                                          "offered": result["offered"]}
    gate = report["gate"]
    print(f"gate drops {gate['dropped']}/{gate['turns']} turns ({100 * gate['dropped_share']:.1f}%), "
          f"{gate['evidence_dropped']}/{gate['evidence_turns']} evidence turns "
          f"({100 * gate['evidence_dropped_share']:.1f}%)")
    for name, r in report["systems"].items():
        o = r["summary"]["overall"]
        print(f"{name:<28} R@5 {o['recall@5']:5.1f}  R@10 {o['recall@10']:5.1f}  stored {r['stored']}/{r['offered']}")
    if args.out:
        report = write_results(args.out, report, __file__)
        print(f"wrote {args.out}")
    return report


if __name__ == "__main__":
    run(parse_args())
