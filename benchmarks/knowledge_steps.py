"""At which step each labelled group of `knowledge.jsonl` fails to become knowledge (an error analysis).

    python -m benchmarks.knowledge_steps [--cases N] [--lang en|zh|cross] [--madial DIR | --no-madial]
                                         [--stands-out LEVEL] [--room N] [--out benchmarks/results/knowledge_steps.json]

Each case is written as `benchmarks/knowledge.py` writes it (defaults: `TurnLog.offer`, one
offer per day, no consolidation), then the episodes are read back and the steps of
`consolidate.plan.draft` and `consolidate.groups` are run one at a time. For a positive group
(turns that must become one knowledge memory) the first step that leaves fewer than
`min_episodes` of its occurrences (or fewer than its own turns' worth, whichever is smaller)
is where it fails:

1. `stored`: the turns became episodes (a turn the gate dropped, or merged into another);
2. `candidate`: `write.rules.consolidation_candidates` keeps them (the user's, asserted);
3. `floor`: cosine to the best leader among them >= `group_similarity` (text-alone vectors);
4. `stands_out`: `GROUP_STANDS_OUT` standard deviations above the leader's other statements on
   `groups.Likeness` (cosine plus rarity-weighted shared words; across scripts the cosine alone);
5. `topic`: a topic word shared with the leader (`groups._topic_tokens`);
6. `mutual`: the leader among each member's nearest (`groups._mutual`);
7. `same_way`: same speaker, no negation, no clashing value (`groups._group`);
8. `count_days`: `min_episodes` occurrences on `min_days` different days over `min_span_days` (`groups.qualifies`).

For a negative group (turns that must not become knowledge) it reports how many of its turns
pass `candidate` (a negative whose turns are not candidates can never be violated).

Views are reported as configured and with groups of three, four and five (`min_episodes`;
most labelled groups have three or four turns). Each positive row also says whether the case's pool was large
enough for the stand-out test to apply (`background`: at least `2 * min_episodes` other
candidates).

A second source of real conversation (`--madial`, default `../shared/benchmarks/madial`, MIT,
read in place): madial's dialogues in each language as one user's conversation, one dialogue
a day (76 days, a child's everyday talk with an assistant), written the same way, then
`consolidate()`: every group that forms there is counted (`madial` in the JSON: groups
formed and their sizes; none of their words is written out). Few or none should form from
chit-chat. `--stands-out` and `--room` run everything with another `groups.GROUP_STANDS_OUT`
or `groups.GROUP_ROOM`, to see what each level costs on both sets.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

import sys  # noqa: E402
from datetime import datetime, timedelta, timezone  # noqa: E402

from benchmarks.embedcache import CACHE_DIR  # noqa: E402
from benchmarks.harness import SHARED, write_results  # noqa: E402
from benchmarks.knowledge import CACHE, Case, CaseStore, CaseTurn, case_options, chosen_cases, prepare  # noqa: E402
from benchmarks.recipes import E5Vectors, Recipe  # noqa: E402

from hindsight_core.consolidate import groups as grouping  # noqa: E402
from hindsight_core.consolidate.plan import _EPISODES  # noqa: E402
from hindsight_core.write.decisions import decision_vectors  # noqa: E402
from hindsight_core.consolidate.groups import times_said  # noqa: E402
from hindsight_core.write.rules import consolidation_candidates, excluded_because  # noqa: E402

STEPS = ("stored", "candidate", "floor", "stands_out", "topic", "mutual", "same_way", "count_days", "formed")


def _steps_for(member_idx: list[int], records, vectors, cfg) -> tuple[str, dict]:
    """The first step that breaks the group among candidate indices `member_idx`, trying each as leader."""
    best_step, best_detail = -1, {}
    need = cfg.min_episodes
    likeness = grouping.Likeness(records, vectors)
    for leader in member_idx:
        row = vectors @ vectors[leader]
        same = likeness.same_script(leader)
        members = set(member_idx)
        floor = {j for j in members if row[j] >= (cfg.group_similarity if same[j] else cfg.correction_similarity)}
        if len(row) - 1 >= 2 * cfg.min_episodes:
            (mean, spread), (cos_mean, cos_spread) = (grouping.background(likeness.row(leader), leader, cfg),
                                                      grouping.background(row, leader, cfg))
            z = np.where(same, (likeness.row(leader) - mean) / spread, (row - cos_mean) / cos_spread)
            stand = {j for j in floor if z[j] >= (grouping.GROUP_STANDS_OUT if same[j] else grouping.CROSS_STANDS_OUT)}
        else:
            z = np.zeros_like(row)
            stand = set(floor)
        topic_l = likeness.words[leader]
        topic = {j for j in stand if not same[j] or topic_l & likeness.words[j]}
        near = grouping._near(leader, likeness, records, cfg)
        mutual = set(int(j) for j in near) & topic
        grp = grouping._group(np.asarray(sorted(mutual, key=lambda j: (j != leader, j))), records) if mutual \
            else grouping.Group((), 0, 0.0, None)
        same_way = set(grp.members) & mutual
        occ = lambda s: sum(times_said(records[j]) for j in s)  # noqa: E731
        chain = [("floor", floor), ("stands_out", stand), ("topic", topic), ("mutual", mutual),
                 ("same_way", same_way)]
        step = len(chain)
        for k, (name, kept) in enumerate(chain):
            if occ(kept) < min(need, occ(members)):
                step = k
                break
        detail = {"leader": records[leader].raw_content[:80],
                  "cos": {records[j].raw_content[:50]: round(float(row[j]), 3) for j in member_idx if j != leader},
                  "z": {records[j].raw_content[:50]: round(float(z[j]), 2) for j in member_idx if j != leader}}
        if step == len(chain):
            detail["occurrences"], detail["span_days"], detail["topic_word"] = grp.occurrences, grp.span_days, grp.topic
            name = "formed" if grouping.qualifies(grp, cfg) else "count_days"
        else:
            name = chain[step][0]
        if STEPS.index(name) > best_step:
            best_step, best_detail = STEPS.index(name), detail
    return STEPS[best_step], best_detail


def analyse(case, store: CaseStore, min_episodes: int | None = None) -> list[dict]:
    memory = store.memory
    cfg = memory.config.semantic
    if min_episodes:
        cfg = dataclasses.replace(cfg, min_episodes=min_episodes)
    pool = sorted(memory.store.scan(case.user, _EPISODES, with_vectors=True), key=lambda h: (h.record.timestamp, h.seq))
    records_all = [h.record for h in pool]
    keep = consolidation_candidates(records_all)
    records = [records_all[i] for i in keep]
    vectors = decision_vectors(records, [pool[i].vector for i in keep], memory._embed_alone) if keep else None
    turn_of = {}
    for position, record in enumerate(records_all):
        for turn in store.written.get(record.id, ()):
            turn_of.setdefault(turn, position)
    out = []
    texts = {t.id: t.text for t in case.turns}
    for label in case.groups:
        turns = label["turns"]
        stored = sorted({turn_of[t] for t in turns if t in turn_of})
        row = {"case": case.id, "lang": case.lang, "positive": label["positive"], "why": label.get("why"),
               "note": label.get("note"), "turns": [texts[t] for t in turns],
               "excluded": {records_all[p].raw_content[:60]: f"{records_all[p].event_type}: "
                            f"{excluded_because(records_all[p])}" for p in stored if p not in keep},
               "not_stored": [texts[t][:60] for t in turns if t not in turn_of]}
        cand = [keep.index(p) for p in stored if p in keep]
        row["candidates"] = len(cand)
        if not label["positive"]:
            out.append(row)
            continue
        need = min(cfg.min_episodes, len(turns))
        row["background"] = len(keep) - 1 >= 2 * cfg.min_episodes
        if sum(times_said(records_all[p]) for p in stored) < need:
            row["step"] = "stored"
        elif sum(times_said(records[j]) for j in cand) < need:
            row["step"] = "candidate"
        else:
            row["step"], row["detail"] = _steps_for(cand, records, vectors, cfg)
        out.append(row)
    return out


#: the views reported: as configured, and with other group sizes (`min_episodes`)
VIEWS = {"as configured": None, "min_episodes 3": 3, "min_episodes 4": 4, "min_episodes 5": 5}


def summarise(rows: list[dict]) -> dict:
    positives = [r for r in rows if r["positive"]]
    tally = Counter(r["step"] for r in positives)
    negatives = [r for r in rows if not r["positive"]]
    return {"positives_failing_at": {s: tally.get(s, 0) for s in STEPS},
            "positives_with_background": sum(1 for r in positives if r["background"]),
            "formed_where_the_stand_out_test_applied": sum(1 for r in positives
                                                           if r["step"] == "formed" and r["background"]),
            "by_lang": {lang: dict(Counter(r["step"] for r in positives if r["lang"] == lang))
                        for lang in ("en", "zh", "cross")},
            "negatives_with_two_candidates": {
                why: sum(1 for r in negatives if r["why"] == why and r["candidates"] >= 2)
                for why in sorted({r["why"] for r in negatives})}}


MADIAL_CACHE = CACHE_DIR / "madial-dialogues-multilingual-e5-small.npy"


def madial_conversation(folder: Path, lang: str) -> Case:
    """madial's dialogues in `lang` as one user's conversation: one dialogue a day, its turns two minutes apart."""
    from benchmarks.knowledge_calibration import _madial_dialogues

    start = datetime(2026, 1, 1, 18, tzinfo=timezone.utc)
    turns = [CaseTurn(f"d{day}-{n}", start + timedelta(days=day, minutes=2 * n),
                      "agent" if who == "Assistant" else "user", text)
             for day, dialogue in enumerate(_madial_dialogues(folder, lang)) for n, (who, text) in enumerate(dialogue)]
    return Case(f"madial-{lang}", lang, f"madial-{lang}", tuple(turns), (), (), ())


def madial_groups(folder: Path, vectors: E5Vectors) -> dict:
    """The groups `consolidate()` forms in madial's dialogues, per language (every one is chit-chat or a real
    repeated liking; the texts are shown while running, never written)."""
    out = {}
    for lang in ("en", "zh"):
        case = madial_conversation(folder, lang)
        prepare([case], vectors)
        store = CaseStore(Recipe(), vectors, case)
        try:
            report = store.memory.consolidate(user_id=case.user)
            episodes = [r for r in store.records.values() if r.layer.value == "episodic"]
            out[lang] = {"days": len(case.days()), "episodes": len(episodes), "groups": len(report.created),
                         "group_sizes": sorted(len(k.derived_from) for k in report.created)}
            for knowledge in report.created:
                print(f"  madial-{lang} group: {knowledge.summary[:100]}", file=sys.stderr)
        finally:
            store.close()
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = case_options(__doc__)
    parser.add_argument("--madial", type=Path, default=SHARED / "madial")
    parser.add_argument("--no-madial", action="store_true", help="skip the madial dialogues")
    parser.add_argument("--stands-out", type=float, default=None, metavar="LEVEL",
                        help="run with groups.GROUP_STANDS_OUT at LEVEL (default: as configured)")
    parser.add_argument("--room", type=int, default=None, metavar="N",
                        help="run with groups.GROUP_ROOM at N (default: as configured)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "knowledge_steps.json")
    return parser.parse_args(argv)


def run(args: argparse.Namespace, vectors: E5Vectors | None = None) -> dict:
    """Every view, with the stand-out level and the background's room as asked (put back afterwards)."""
    saved = grouping.GROUP_STANDS_OUT, grouping.GROUP_ROOM
    if args.stands_out is not None:
        grouping.GROUP_STANDS_OUT = args.stands_out
    if args.room is not None:
        grouping.GROUP_ROOM = args.room
    try:
        return _run(args, vectors)
    finally:
        grouping.GROUP_STANDS_OUT, grouping.GROUP_ROOM = saved


def _run(args: argparse.Namespace, vectors: E5Vectors | None = None) -> dict:
    vectors = vectors or E5Vectors(CACHE)
    cases = chosen_cases(args, vectors)
    rows: dict[str, list[dict]] = {view: [] for view in VIEWS}
    for case in cases:
        store = CaseStore(Recipe(), vectors, case)
        try:
            for view, min_episodes in VIEWS.items():
                rows[view] += analyse(case, store, min_episodes)
        finally:
            store.close()
    report = {"stands_out": grouping.GROUP_STANDS_OUT, "room": grouping.GROUP_ROOM,
              "views": {view: summarise(found) for view, found in rows.items()}, "rows": rows["as configured"]}
    if not args.no_madial and (args.madial / "zh-dialogue.json").exists():
        report["madial"] = madial_groups(args.madial, E5Vectors(MADIAL_CACHE))
    return write_results(args.out, report, __file__)


def main() -> None:
    result = run(parse_args())
    print(json.dumps({"views": result["views"], "madial": result.get("madial")}, indent=1))


if __name__ == "__main__":
    main()
