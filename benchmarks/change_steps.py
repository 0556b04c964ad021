"""At which step each labelled change of mind of `knowledge.jsonl` is decided or refused (an error analysis).

    python -m benchmarks.change_steps [--cases N] [--lang en|zh|cross] [--madial DIR]
                                      [--out benchmarks/results/change_steps.json]

Each case is written as `benchmarks/knowledge.py` writes it with supersession on
(`SemanticConfig.detect_conflicts=True`: `TurnLog.offer`, one offer per day). While it is written,
the neighbours each new statement is compared with (`write.judge.changed_by`: cosines on the
statements' texts alone) are recorded, so every labelled pair (an old turn, a new turn) is judged
on exactly what the write rules saw. For each label, the furthest any of its (old, new) pairs got:

* `not stored`: a turn became no memory of its own (the gate dropped it, or it merged into another);
* `not a neighbour`: the old memory was not among the new one's nearest when it was written;
* the first refusing step of `write.rules.change_refused` (`CHANGE_STEPS`: not the user's, the kind,
  an order, another speaker, no change marker, the new one or the old one not asserted, a state of mind,
  held since (a span of holding up to now that began after the old one was said), past habit ("used to" with no
  topic word of the old one), someone else's, the subject
  floor, the same text, no new value), then of `judge.replaced_in_layer`: `not the one chosen` (another
  eligible statement was chosen: an older one sharing a topic word, or a closer one; or none, the change being
  told again) and `stand-out` (`rules.subject_refused`: no shared topic word, and not far enough above the
  background, or too little background to tell);
* `decided`: the change rule would replace it; `conflict`: `write.rules.is_conflict` (a single-valued
  attribute set to another value) replaces it whatever the change rule says.

Beside the steps, the supersessions actually made (`superseded_by` in the store), each classed as
right (it matches a positive label), matching a negative label (by its kind: question, hypothetical,
quote, other-person, agent, restatement), or unlabelled (an old memory no label pairs with the new one),
and by which rule made it (`conflict` or `change`), with both texts for reading.

Real conversations (`--madial`, default `../shared/benchmarks/madial`, MIT, read in place): each
language's dialogues written through `TurnLog.offer` with supersession on (one dialogue a day, the
user's and the assistant's lines), and its dated memories written one by one on their dates: every
supersession made, with both texts, for reading by hand. Real conversations seldom change a value,
so most of these are wrong: the count is the figure to read.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

from benchmarks.harness import write_results  # noqa: E402
from benchmarks.knowledge import CACHE, CaseStore, _decides, case_options, chosen_cases  # noqa: E402
from benchmarks.recipes import E5Vectors, Recipe, tweak  # noqa: E402

from hindsight_core.types import Layer  # noqa: E402
from hindsight_core.write import judge  # noqa: E402
from hindsight_core.write.rules import (CHANGE_STEPS, change_refused, is_conflict, says_change,  # noqa: E402
                                        subject_refused)

#: supersession on, whatever the default (it is off by default)
SUPERSESSION_ON = Recipe("supersession on (SemanticConfig.detect_conflicts=True)",
                         (tweak("semantic", detect_conflicts=True),))
#: the steps in the order a pair gets through them (a later one is further)
ORDER = ("not stored", "not a neighbour") + CHANGE_STEPS + ("decided", "conflict")


class Tracer:
    """Records, for every statement written, the neighbours `changed_by` compared it with."""

    def __init__(self) -> None:
        self.seen: dict[str, list[tuple[float, Any]]] = {}
        self._real = judge.changed_by

    def __enter__(self) -> "Tracer":
        def traced(record, neighbours, cfg):
            self.seen[record.id] = list(neighbours)
            return self._real(record, neighbours, cfg)
        judge.changed_by = traced
        return self

    def __exit__(self, *exc) -> None:
        judge.changed_by = self._real


def judge_pair(new, old, neighbours: list[tuple[float, Any]], cfg) -> tuple[str, float | None]:
    """The furthest step the pair (old -> new) reaches on the neighbours `new` was compared with."""
    found = [(sim, o) for sim, o in neighbours if o.id == old.id]
    if not found:
        return "not a neighbour", None
    sim = found[0][0]
    # the record as it was when compared (an earlier supersession may have set superseded_by on it)
    old_then = found[0][1]
    if is_conflict(new, old_then, sim, cfg):
        return "conflict", sim
    refused = change_refused(new, old_then, sim, cfg)
    if refused:
        return refused, sim
    refused = subject_refused(new.raw_content, old.raw_content, sim, judge.background_of(old, neighbours))
    if refused:
        return refused, sim
    chosen = judge.replaced_in_layer(new, neighbours, cfg, old_then.layer)
    return ("decided" if chosen == old.id else "not the one chosen"), sim


def analyse(case, store: CaseStore, seen: dict[str, list]) -> tuple[list[dict], list[dict]]:
    cfg = store.memory.config.semantic
    records = store.records
    memory_of: dict[str, str] = {}
    for memory_id, turns in store.written.items():
        for turn in turns:
            memory_of.setdefault(turn, memory_id)
    texts = {t.id: t.text for t in case.turns}
    supersessions = store.supersessions()
    labels = []
    for label in case.changes:
        best, detail = "not stored", {}
        for o in label["old"]:
            for n in label["new"]:
                old_id, new_id = memory_of.get(o), memory_of.get(n)
                if not old_id or not new_id or old_id == new_id or new_id not in seen:
                    step, sim = "not stored", None
                else:
                    step, sim = judge_pair(records[new_id], records[old_id], seen[new_id], cfg)
                if not detail or ORDER.index(step) > ORDER.index(best):
                    best = step
                    detail = {"old": texts[o], "new": texts[n], "cosine": None if sim is None else round(sim, 3),
                              "change_marker": says_change(texts[n])}
        decided = any(_decides(pair, label) for pair in supersessions)
        labels.append({"case": case.id, "lang": case.lang, "positive": label["positive"], "why": label.get("why"),
                       "note": label.get("note"), "step": best, "superseded": bool(decided), **detail})
    made = []
    for record in records.values():
        if not record.superseded_by or record.superseded_by not in records:
            continue
        new = records[record.superseded_by]
        old_turns, new_turns = store.turns_of(record.id), store.turns_of(new.id)
        matching = [c for c in case.changes if _decides((old_turns, new_turns), c)]
        neighbour = next(((s, o) for s, o in seen.get(new.id, []) if o.id == record.id), None)
        rule = "conflict" if neighbour and is_conflict(new, neighbour[1], neighbour[0], cfg) else "change"
        kind = ("right" if any(c["positive"] for c in matching)
                else f"negative: {matching[0].get('why')}" if matching else "unlabelled")
        made.append({"case": case.id, "lang": case.lang, "kind": kind, "rule": rule,
                     "cosine": None if neighbour is None else round(neighbour[0], 3),
                     "old": record.raw_content, "new": new.raw_content,
                     "old_layer": record.layer.value if isinstance(record.layer, Layer) else str(record.layer)})
    return labels, made


def summarise(labels: list[dict], made: list[dict]) -> dict[str, Any]:
    def tally(rows: list[dict]) -> dict[str, int]:
        counted = Counter(r["step"] for r in rows)
        return {s: counted[s] for s in ORDER if counted[s]}

    positives = [r for r in labels if r["positive"]]
    negatives = [r for r in labels if not r["positive"]]
    right = sum(1 for m in made if m["kind"] == "right")
    out: dict[str, Any] = {
        "made": len(made), "made_right": right,
        "precision": round(100 * right / len(made), 1) if made else None,
        "recall": round(100 * sum(r["superseded"] for r in positives) / len(positives), 1) if positives else None,
        "positives_by_step": tally(positives),
        "negatives_by_step": tally(negatives),
        "negatives_violated_by_kind": dict(Counter(r["why"] for r in negatives if r["superseded"])),
        "made_by_kind_and_rule": dict(Counter(f"{m['kind']} / {m['rule']}" for m in made)),
        "by_lang": {},
    }
    for lang in ("en", "zh", "cross"):
        pos = [r for r in positives if r["lang"] == lang]
        mine = [m for m in made if m["lang"] == lang]
        ok = sum(1 for m in mine if m["kind"] == "right")
        out["by_lang"][lang] = {"made": len(mine), "right": ok,
                                "precision": round(100 * ok / len(mine), 1) if mine else None,
                                "recall": round(100 * sum(r["superseded"] for r in pos) / len(pos), 1) if pos else None,
                                "positives_by_step": tally(pos)}
    return out


def real_madial(folder: Path, vectors: E5Vectors) -> dict[str, Any]:
    """Every supersession made on madial's dialogues and memories, per language, with supersession on."""
    from datetime import datetime, timedelta, timezone

    from hindsight_core.session.turns import Turn, TurnLog
    from hindsight_core.testing import FrozenClock
    from hindsight_core.types import Source
    from benchmarks.madial import load_memories, speaker_and_text

    out: dict[str, Any] = {}
    for lang in ("zh", "en"):
        dialogues = [json.loads(line) for line in (folder / f"{lang}-dialogue.json").read_text("utf-8").splitlines()
                     if line.strip()]
        start = datetime(2026, 1, 1, 9, tzinfo=timezone.utc)
        clock = FrozenClock(start)
        memory = SUPERSESSION_ON.build(vectors, clock)
        log, offered = TurnLog(SUPERSESSION_ON.writer(memory)), 0
        for day, dialogue in enumerate(dialogues):
            turns = []
            for n, raw in enumerate(dialogue["dialogue"]):
                if raw.strip() in ("<BOD>", "<EOD>"):
                    continue
                who, text = speaker_and_text(raw)
                if text:
                    source = Source.AGENT if who == "Assistant" else Source.USER
                    turns.append(Turn(text, source, start + timedelta(days=day, minutes=2 * n)))
            clock.set(start + timedelta(days=day, hours=2))
            offered += len(log.offer(turns, user_id="u", session_id=f"d{day}"))
        dialogue_rows = _superseded(memory)
        memory.close()
        memories = sorted(load_memories(folder / f"{lang}-memory.json").values(), key=lambda m: m.date)
        clock = FrozenClock(memories[0].date)
        memory = SUPERSESSION_ON.build(vectors, clock)
        for m in memories:
            clock.set(m.date)
            memory.write(m.text, user_id="u")
        memory_rows = _superseded(memory)
        memory.close()
        out[lang] = {"dialogue_turns_offered": offered, "dialogue_supersessions": dialogue_rows,
                     "memories": len(memories), "memory_supersessions": memory_rows}
    vectors.save()
    return out


def _superseded(memory) -> list[dict[str, str]]:
    records = {r.id: r for r in memory.memories(user_id="u", include_inactive=True)}
    return [{"old": r.raw_content, "new": records[r.superseded_by].raw_content} for r in records.values()
            if r.superseded_by in records]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = case_options(__doc__)
    parser.add_argument("--madial", type=Path, default=HERE.parent.parent / "shared" / "benchmarks" / "madial")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "change_steps.json")
    return parser.parse_args(argv)


def run(args: argparse.Namespace, vectors: E5Vectors | None = None) -> dict:
    vectors = vectors or E5Vectors(CACHE)
    cases = chosen_cases(args, vectors)
    labels: list[dict] = []
    made: list[dict] = []
    for case in cases:
        with Tracer() as tracer:
            store = CaseStore(SUPERSESSION_ON, vectors, case)
        try:
            found, decided = analyse(case, store, tracer.seen)
            labels += found
            made += decided
        finally:
            store.close()
    vectors.save()
    report = {"summary": summarise(labels, made), "labels": labels, "made": made}
    if args.madial.exists():
        report["madial"] = real_madial(args.madial, vectors)
        report["summary"]["madial_supersessions"] = {
            lang: {"dialogue_turns": r["dialogue_turns_offered"], "dialogue": len(r["dialogue_supersessions"]),
                   "memories": r["memories"], "memory": len(r["memory_supersessions"])}
            for lang, r in report["madial"].items()}
    return write_results(args.out, report, __file__)


def main() -> None:
    print(json.dumps(run(parse_args())["summary"], indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
