"""What judging statements on their texts alone costs a write: LoCoMo turns written with and without it.

    python -m benchmarks.write_cost [PATH] [--limit N] [--sessions N] [--out benchmarks/results/write_cost.json]

The knowledge rules compare statements on their texts alone (`write.decisions.decision_vectors`):
a user's asserted statement written with the turn it answers is embedded a second time,
alone, and each neighbour a rule reads is too (once per process: `facade.base._embed_alone`
caches them). This writes LoCoMo conversations (`../shared/benchmarks/locomo10.json`, read
in place) through the conversation policy (`TurnLog.offer`, one offer per session, both
speakers as the user, as `decisions.py` does) into fresh embedded stores with the real
default embedder (multilingual-e5-small, no vector cache), once as shipped and once with
the rules reading the stored, context-bearing vectors instead (`_embed_alone = None`).
The two alternate conversation by conversation, first one then the other, so a busy
machine slows both alike; the figure is the ratio of their total seconds in one run,
with the texts each embedded.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.harness import LOCOMO, RESULTS, write_results  # noqa: E402
from benchmarks.locomo import load_locomo, turn_text  # noqa: E402
from benchmarks.locomo_adapters import make_turn  # noqa: E402

from hindsight_core import Hindsight, Source  # noqa: E402
from hindsight_core.embed.multilingual import E5Embedder  # noqa: E402
from hindsight_core.session.turns import TurnLog  # noqa: E402
from hindsight_core.testing import FrozenClock  # noqa: E402


class CountingEmbedder:
    """The real embedder, counting the texts it embeds."""

    def __init__(self, inner) -> None:
        self.inner, self.texts = inner, 0

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def embed(self, texts):
        self.texts += len(texts)
        return self.inner.embed(texts)


class OnStoredVectors(Hindsight):
    """hindsight whose knowledge rules read the stored, context-bearing vectors (no text embedded alone)."""

    _embed_alone = None  # type: ignore[assignment]


def write_conversation(cls, embedder: CountingEmbedder, conversation, sessions_cap: int | None
                       ) -> tuple[float, int, int]:
    """Seconds to write one conversation (its first `sessions_cap` sessions) through `TurnLog.offer`, the texts
    embedded and the turns offered."""
    clock = FrozenClock(conversation.turns[0].timestamp)
    before = embedder.texts
    with tempfile.TemporaryDirectory(prefix="hindsight-write-cost-") as folder:
        with cls(path=folder, embedder=embedder, clock=clock) as memory:
            log = TurnLog(memory)
            sessions: dict[int, list] = {}
            for turn in conversation.turns:
                sessions.setdefault(turn.session, []).append(turn)
            chosen = sorted(sessions.items())[:sessions_cap]
            start = time.perf_counter()
            for number, turns in chosen:
                clock.set(turns[-1].timestamp)
                log.offer([make_turn(turn_text(t, "plain"), Source.USER, t.timestamp) for t in turns],
                          user_id=conversation.sample_id, session_id=f"session-{number}")
            return time.perf_counter() - start, embedder.texts - before, sum(len(t) for _, t in chosen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", nargs="?", type=Path, default=LOCOMO)
    parser.add_argument("--limit", type=int, default=2, help="LoCoMo conversations (default 2)")
    parser.add_argument("--sessions", type=int, default=None, help="only each conversation's first N sessions")
    parser.add_argument("--out", type=Path, default=RESULTS / "write_cost.json")
    args = parser.parse_args()
    embedder = CountingEmbedder(E5Embedder())
    systems = {"text alone (shipped)": Hindsight, "stored vectors": OnStoredVectors}
    totals = {name: {"seconds": 0.0, "texts_embedded": 0} for name in systems}
    turns = 0
    for n, conversation in enumerate(load_locomo(args.path, limit=args.limit)):
        order = list(systems) if n % 2 == 0 else list(reversed(systems))
        for name in order:
            seconds, texts, offered = write_conversation(systems[name], embedder, conversation, args.sessions)
            totals[name]["seconds"] += seconds
            totals[name]["texts_embedded"] += texts
            print(f"{conversation.sample_id} {name}: {seconds:.1f} s, {texts} texts", file=sys.stderr, flush=True)
        turns += offered
    shipped, plain = totals["text alone (shipped)"], totals["stored vectors"]
    report = {"conversations": args.limit, "sessions_per_conversation": args.sessions, "turns": turns,
              "embedder": embedder.name,
              "systems": {k: {**v, "seconds": round(v["seconds"], 1)} for k, v in totals.items()},
              "seconds_ratio": round(shipped["seconds"] / plain["seconds"], 3),
              "texts_embedded_ratio": round(shipped["texts_embedded"] / max(1, plain["texts_embedded"]), 3)}
    report = write_results(args.out, report, __file__)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
