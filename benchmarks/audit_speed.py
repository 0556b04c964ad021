"""How long the write audit takes: on ordinary chat turns, on long assistant answers, and on large hostile texts.

    python -m benchmarks.audit_speed [--turns 1000] [--repeats 3] [--out benchmarks/results/audit_speed.json]

- **ordinary turns**: LoCoMo turns of at most 300 characters, audited as an agent's and as the user's words, with
  the rest of a write's preparation beside them (the rule gate, entity extraction): p50 and p95 per text.
- **answers**: one assistant answer made of consecutive LoCoMo turns, cut to 250, 1k, 2k, 4k and 8k characters,
  as plain prose and as markdown (a heading, bullets, bold words: markdown is peeled and read as a layer of its
  own); the audit's time per text and per 1,000 characters. Linear means the per-character cost stays flat.
- **hostile texts**: texts near the 32 KB write limit built to make a careless pattern slow (long runs of one
  word, invisible characters, base64-like runs); the same text at half and full length.
- **prompt block**: what the prompt gate costs when a block is built with 2-8 memories from an agent (each
  audited again and read, and every pair and triple read together), cold and with one new memory.

Times are the CPU time of this thread (`time.thread_time`), so other processes on a busy machine do not add to
them; compare within one run. LoCoMo is read in place from ../shared/benchmarks (CC BY-NC, never copied).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Callable

from hindsight_core.language.entities import extract_entities  # noqa: E402
from hindsight_core.safety.audit import WriteAudit, audit  # noqa: E402
from hindsight_core.types import Source  # noqa: E402
from hindsight_core.write.gate import RuleBasedGate  # noqa: E402
from benchmarks.harness import LOCOMO, write_results  # noqa: E402

HOSTILE = {
    "repeated word": lambda n: ("ignore " * (n // 7)) + "</memories>",
    "invisible characters": lambda n: "a\u200b" * (n // 4) + "</memories>",
    "base64-like run": lambda n: "QUJD" * (n // 4) + " </memories>",
    "CJK run": lambda n: "忽略之前的" * (n // 15) + "</memories>",
    "address-like run": lambda n: "a@b." * (n // 4) + "</memories>",
}
LENGTHS = (250, 1_000, 2_000, 4_000, 8_000)


def cpu_ms(call: Callable[[], object]) -> float:
    start = time.thread_time()
    call()
    return (time.thread_time() - start) * 1000


def fastest_ms(call: Callable[[], object], repeats: int) -> float:
    """The least CPU time of `repeats` runs, in ms (noise only adds time)."""
    return min(cpu_ms(call) for _ in range(repeats))


def spread(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50_ms": round(statistics.median(ordered), 4),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 4)}


def locomo_turns() -> list[str]:
    data = json.loads(LOCOMO.read_text(encoding="utf-8"))
    return [turn["text"].strip() for sample in data for key, turns in sample["conversation"].items()
            if key.startswith("session_") and isinstance(turns, list) for turn in turns if turn.get("text")]


def as_markdown(turns: list[str]) -> str:
    """An assistant-style answer: a heading, bullets, a bold lead word in each."""
    lines = ["## Summary of what we discussed", ""]
    for turn in turns:
        first, _, rest = turn.partition(" ")
        lines.append(f"- **{first}** {rest}")
    return "\n".join(lines)


def ordinary(turns: list[str], n: int) -> dict:
    """Each arm reads texts it has not read before: the caches a process keeps of sentences it read
    (`language.text_cache`) are emptied before it, and it is warmed on other turns."""
    from hindsight_core.language.text_cache import forget_cached_texts

    every = [t for t in turns if len(t) <= 300]
    short, others = every[:n], every[n:n + 20]
    write_audit, gate = WriteAudit(), RuleBasedGate()
    out = {"texts": len(short), "mean_chars": round(statistics.mean(map(len, short)), 1)}
    for name, call in (("audit_agent", lambda t: write_audit(t, Source.AGENT)),
                       ("audit_user", lambda t: write_audit(t, Source.USER)),
                       ("gate", lambda t: gate(t, Source.AGENT)), ("entities", extract_entities),
                       ("audit_gate_entities", lambda t: (write_audit(t, Source.AGENT), gate(t, Source.AGENT),
                                                          extract_entities(t)))):
        for t in others:  # warm what a process keeps whatever it reads (compiled patterns, literal indexes)
            call(t)
        forget_cached_texts()
        out[name] = spread([cpu_ms(lambda t=t: call(t)) for t in short])
    return out


def answers(turns: list[str], repeats: int) -> list[dict]:
    prose = " ".join(turns[:400])
    markdown = as_markdown(turns[:400])
    write_audit, rows = WriteAudit(), []
    for style, text in (("prose", prose), ("markdown", markdown)):
        for n in LENGTHS:
            piece = text[:n]
            ms = fastest_ms(lambda: write_audit(piece, Source.AGENT), repeats)
            rows.append({"style": style, "chars": len(piece), "ms": round(ms, 3),
                         "ms_per_1k_chars": round(ms / len(piece) * 1000, 3)})
    return rows


def hostile(repeats: int) -> list[dict]:
    rows = []
    for name, make in HOSTILE.items():
        half, full = make(16_000), make(32_000)
        t_half = fastest_ms(lambda: audit(half, Source.TOOL), repeats)
        t_full = fastest_ms(lambda: audit(full, Source.TOOL), repeats)
        rows.append({"case": name, "bytes": len(full.encode()), "ms": round(t_full, 2),
                     "ms_per_kb": round(t_full / (len(full.encode()) / 1024), 3),
                     "full_over_half": round(t_full / t_half, 2) if t_half else None})
    return rows


def _scored(text: str, source: Source, day: int):
    from datetime import datetime, timezone

    from hindsight_core.types import Explanation, Layer, MemoryRecord, ScoredMemory

    record = MemoryRecord(id=f"m-{day}-{source.value}", user_id="u", summary=text[:40], raw_content=text,
                          timestamp=datetime(2026, 3, day, tzinfo=timezone.utc), layer=Layer.EPISODIC, source=source)
    return ScoredMemory(record, 0.02, 0.8, Explanation(1, 0.9, None, 0.0, 0.03, 0.8, "episodic", 0.02))


def prompt_block(turns: list[str], blocks: int) -> list[dict]:
    """What the prompt gate (`recall.formatting.admitted`) costs when a block is built: `n` memories written by an
    agent or a tool (LoCoMo turns) among as many of the user's, each third-party memory audited again and read, and
    every pair and triple of them read together. Cold: nothing decided before; warm: the block before this one
    shared all but one of its third-party memories (as in a conversation, where one new answer joins the block)."""
    from hindsight_core.language.text_cache import forget_cached_texts
    from hindsight_core.recall.formatting import admitted
    from hindsight_core.safety import prompt_gate

    short = [t for t in turns if len(t) <= 300]
    rows = []
    for n in (2, 4, 6, 8):
        cold, warm = [], []
        for b in range(blocks):
            pick = short[b * (n + 1) % len(short):][:n + 1]
            others = [_scored(t, Source.AGENT, 1 + i) for i, t in enumerate(pick)]
            mine = [_scored(t, Source.USER, 1 + i) for i, t in enumerate(short[-n:])]
            prompt_gate._cache.clear()
            forget_cached_texts()  # nor any sentence read before
            cold.append(cpu_ms(lambda: admitted(mine + others[:n])))
            warm.append(cpu_ms(lambda: admitted(mine + others[1:])))  # one new memory, the rest seen before
        rows.append({"third_party_memories": n, "cold": spread(cold), "one_new": spread(warm)})
    prompt_gate._cache.clear()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--blocks", type=int, default=30, help="prompt blocks built per size")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "audit_speed.json")
    args = parser.parse_args()
    turns = locomo_turns()
    report = {"benchmark": "audit_speed", "timing": "CPU time of the measuring thread (time.thread_time)",
              "ordinary_turns": ordinary(turns, args.turns), "answers": answers(turns, args.repeats),
              "hostile": hostile(args.repeats), "prompt_block": prompt_block(turns, args.blocks)}
    for key in ("ordinary_turns", "answers", "hostile", "prompt_block"):
        print(key, json.dumps(report[key], indent=1), flush=True)
    write_results(args.out, report, __file__)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
