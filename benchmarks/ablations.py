"""Does each mechanism earn its place? hindsight with one mechanism off at a time, on every set, beside the baselines.

    python -m benchmarks.ablations [--sets locomo madial-zh madial-en multilingual knowledge] [--variants NAME ...]
                                   [--locomo-limit 2] [--max-questions N] [--list]
                                   [--out benchmarks/results/ablations.json]

Variants are data: `VARIANTS` maps a name to a `recipes.Recipe` (a config change
through `tweak(part, field=value)`, write options, or the embedder's side), so a
mechanism is added or removed by editing one entry. A variant whose setting the
core does not have (a renamed field) is reported as unavailable with the
reason, and the run goes on.

Sets, each through the same harness as its own benchmark:
* `locomo`: the first `--locomo-limit` conversations, written through the
  conversation policy (`locomo_adapters.py`); hindsight's hits are credited like
  the exchange baselines' (both dialog ids).
* `madial-zh`, `madial-en`: the year of dated events in each language
  (`madial.py`), each asked with the last user message (`last`) and with the
  dialogue so far (`dialogue`).
* `multilingual`: `data/multilingual.jsonl`: one store per user, each memory
  written on a clock set to its own time, questions asked on the user's
  `asked` date; a question's recall@5 is the share of its gold memories in the
  top 5 (a knowledge item counts for its episodes).
* `knowledge`: our own dated conversations with repetitions and changes of mind
  (`knowledge.py`, `data/knowledge/knowledge.jsonl`, English, Chinese and both),
  one store per case written through the conversation policy, its questions
  asked a day after the last turn (consolidated first when consolidation is on).

A run of some variants (`--variants`) keeps the other variants' rows of an
earlier run over the same sets and questions (the same columns) in `--out`.
Figures, in percent: recall@5 for every variant and baseline; for hindsight on
LoCoMo and the archive also the evidence whole in the top-5 prompt block
(`evidence_in_block@5`) and the block's mean cl100k tokens; and recall@5 by what
each question asks about in time (`query_classes.py`: names a date, the past,
the present), pooled over the sets, to show where a ranking prior helps and where
it hurts. The plain baselines (`plain.py`) run once per set over the same units;
for LoCoMo over single turns and over exchanges.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent

from benchmarks.harness import write_results  # noqa: E402
from benchmarks import locomo_adapters  # noqa: E402
from benchmarks import knowledge  # noqa: E402
from benchmarks import madial  # noqa: E402
from benchmarks.embedcache import CACHE_DIR  # noqa: E402
from benchmarks.multilingual import load as load_multilingual  # noqa: E402
from benchmarks.plain import BASELINES, PlainIndex, Unit  # noqa: E402
from benchmarks.query_classes import CLASSES, query_class  # noqa: E402
from benchmarks.recipes import E5Vectors, Recipe, RecipeUnavailable, tweak  # noqa: E402

from hindsight_core import Source  # noqa: E402
from hindsight_core.testing import FrozenClock  # noqa: E402

MULTILINGUAL = HERE / "data" / "multilingual.jsonl"
SETS = ("locomo", "madial-zh", "madial-en", "multilingual", "knowledge")

#: name -> the hindsight it runs; "defaults" is what users get
VARIANTS: dict[str, Recipe] = {
    "defaults": Recipe("defaults, through the write gate"),
    "no-gate": Recipe("write gate off (force=True)", force=True),
    "decay-prior-on": Recipe("retention as a ranking prior, off by default (RecallConfig.retention_influence=0.1, "
                             "the earlier default)", (tweak("recall", retention_influence=0.1),)),
    "decay-prior-0.3": Recipe("retention as a strong ranking prior (RecallConfig.retention_influence=0.3)",
                              (tweak("recall", retention_influence=0.3),)),
    "no-context-in-block": Recipe("the block shows no turn a memory answers (format_for_prompt(context_chars=0))",
                                  context_chars=0),
    "consolidation-on": Recipe("consolidation after each write on, off by default (SemanticConfig.auto_consolidate"
                               "=True)", (tweak("semantic", auto_consolidate=True),)),
    "supersession-on": Recipe("supersession on, off by default (SemanticConfig.detect_conflicts=True)",
                              (tweak("semantic", detect_conflicts=True),)),
    "supersession-any-tense": Recipe("supersession on, and a superseded memory steps back for every question, past "
                                     "tense and named dates too (RecallConfig.supersede_in_present_only=False)",
                                     (tweak("semantic", detect_conflicts=True),
                                      tweak("recall", supersede_in_present_only=False))),
    "no-timeline": Recipe("what is current decided when recalling off: statements on one subject keep the fused "
                          "order (RecallConfig.timeline_depth=0)", (tweak("recall", timeline_depth=0),)),
    "no-time-prior": Recipe("time prior off (RecallConfig.time_prior_weight=0)",
                            (tweak("recall", time_prior_weight=0.0),)),
    "no-exchanges": Recipe("exchanges off (the policy's context= dropped: each turn stored alone)", pairing=False),
    "no-duplicate-merging": Recipe("duplicate merging off (SemanticConfig.merge_duplicates=False)",
                                   (tweak("semantic", merge_duplicates=False),)),
    "e5-symmetric": Recipe("queries embedded as passages (E5Embedder(symmetric=True))", symmetric=True),
    "e5-query-side": Recipe("queries on e5's query side (E5Embedder(symmetric=False))", symmetric=False),
    "all-off": Recipe("gate, consolidation, supersession, timeline, time prior and duplicate merging off: hindsight "
                      "as a plain hybrid search over the same exchanges",
                      (tweak("recall", retention_influence=0.0, time_prior_weight=0.0, timeline_depth=0),
                       tweak("semantic", auto_consolidate=False, detect_conflicts=False, merge_duplicates=False)),
                      force=True),
}


@dataclass
class Bench:
    """One set: how to run hindsight with a recipe (to per-question rows per column), and the baselines (to
    {column: recall@5}). A row: {"r5": 0..1, "class": a `query_classes` class, and where the set has a block,
    "block": 0..1, "tokens": n}."""

    name: str
    questions: dict[str, int]
    hindsight: Callable[[Recipe], dict[str, list[dict[str, Any]]]]
    baselines: Callable[[], dict[str, dict[str, float]]]


def locomo_bench(vectors: E5Vectors, limit: int, max_questions: int | None,
                 path: Path = locomo_adapters.DEFAULT_DATA) -> Bench:
    conversations, texts, _ = locomo_adapters.prepare(path, limit,
                                                      max_questions=max_questions, vectors=vectors)
    column = f"locomo ({len(conversations)} conv)"
    classes = [query_class(q.question, c.last_time + timedelta(hours=locomo_adapters.QUESTION_DELAY_HOURS))
               for c in conversations for q in c.questions[:max_questions]]

    def hindsight(recipe: Recipe) -> dict[str, list[dict[str, Any]]]:
        result = locomo_adapters.run_hindsight(recipe, conversations, texts, vectors, max_questions=max_questions,
                                               keep_rows=True)
        return {column: [{"r5": r["recall@5"], "block": r["evidence_in_block@5"], "tokens": r["tokens"],
                          "class": cls} for r, cls in zip(result["rows"], classes)]}

    def baselines() -> dict[str, dict[str, float]]:
        result = locomo_adapters.run_baselines(conversations, texts, vectors, max_questions=max_questions)
        return {name: {column: r["summary"]["overall"]["recall@5"]} for name, r in result.items()}

    return Bench("locomo", {column: sum(len(c.questions[:max_questions]) for c in conversations)},
                 hindsight, baselines)


def madial_bench(vectors: E5Vectors, language: str, max_questions: int | None,
                 path: Path = madial.DEFAULT_DATA) -> Bench:
    memories, questions = madial.load(path, [language])
    asked = questions[language][:max_questions]
    vectors.warm_queries([t for q in asked for t in (q.last, q.so_far)])
    columns = {mode: f"madial {language} ({mode})" for mode in madial.MODES}
    now = max(m.date for m in memories[language].values()) + timedelta(days=1)

    def rates(result: dict[str, Any], system: str) -> dict[str, float]:
        return {columns[mode]: result["modes"][mode][system]["recall@5"] for mode in madial.MODES}

    def hindsight(recipe: Recipe) -> dict[str, list[dict[str, Any]]]:
        result = madial.run_arm(f"{language}-{language}", asked, memories[language], vectors, recipe=recipe,
                                systems=(madial.HINDSIGHT,), keep_rows=True)
        return {columns[mode]: [{"r5": r["r5"], "block": r["block"], "tokens": r["tokens"],
                                 "class": query_class(r["query"], now)}
                                for r in result["rows"][mode][madial.HINDSIGHT]] for mode in madial.MODES}

    def baselines() -> dict[str, dict[str, float]]:
        result = madial.run_arm(f"{language}-{language}", asked, memories[language], vectors, systems=BASELINES)
        return {system: rates(result, system) for system in BASELINES}

    return Bench(f"madial-{language}", {c: len(asked) for c in columns.values()}, hindsight, baselines)


def multilingual_bench(vectors: E5Vectors, max_questions: int | None, path: Path = MULTILINGUAL) -> Bench:
    users = load_multilingual(path)
    vectors.warm(m.text for u in users for m in u.memories)
    vectors.warm_queries(q.query for u in users for q in u.questions[:max_questions])
    column = "multilingual"

    def share(found: list[set[str]], gold: tuple[str, ...]) -> float:
        top = set().union(*found[:5]) if found else set()
        return len(top & set(gold)) / len(set(gold))

    def hindsight(recipe: Recipe) -> dict[str, list[dict[str, Any]]]:
        rows = []
        for user in users:
            clock = FrozenClock(user.memories[0].at)
            memory = recipe.build(vectors, clock)
            writer = recipe.writer(memory)
            covers: dict[str, set[str]] = {}
            try:
                for m in user.memories:
                    clock.set(m.at)
                    result = writer.write_many([m.text], user_id=user.name, timestamps=[m.at],
                                               sources=[Source.USER])[0]
                    if result.record is not None:
                        covers.setdefault(result.record.id, set()).add(m.id)
                clock.set(user.asked)
                for q in user.questions[:max_questions]:
                    results = memory.recall(q.query, user_id=user.name, k=5, reinforce=False)
                    found = []
                    for r in results:
                        ids = set(covers.get(r.memory.id, ()))
                        for source in r.memory.derived_from or ():
                            ids |= covers.get(source, set())
                        found.append(ids)
                    rows.append({"r5": share(found, q.gold), "class": query_class(q.query, user.asked)})
            finally:
                memory.close()
        return {column: rows}

    def baselines() -> dict[str, dict[str, float]]:
        scores: dict[str, list[float]] = {}
        for user in users:
            index = PlainIndex([Unit(m.text, (m.id,), m.at) for m in user.memories],
                               passage_side=vectors.passage_side, query_side=vectors.query_side)
            for system in BASELINES:
                for q in user.questions[:max_questions]:
                    found = [set(u.ids) for u in index.rank(system, q.query, 5)]
                    scores.setdefault(system, []).append(share(found, q.gold))
        return {system: {column: round(100 * statistics.fmean(s), 1)} for system, s in scores.items()}

    return Bench("multilingual", {column: sum(len(u.questions[:max_questions]) for u in users)},
                 hindsight, baselines)


def knowledge_bench(vectors: E5Vectors, max_questions: int | None, path: Path = knowledge.DEFAULT_DATA) -> Bench:
    cases = knowledge.load(path)
    if max_questions is not None:
        cases = [dataclasses.replace(c, questions=c.questions[:max_questions]) for c in cases]
    knowledge.prepare(cases, vectors)
    column = "knowledge (own set)"

    def hindsight(recipe: Recipe) -> dict[str, list[dict[str, Any]]]:
        result = knowledge.run_hindsight(recipe, cases, vectors, keep_rows=True)
        return {column: [{"r5": r["recall@5"], "block": r["evidence_in_block@5"], "tokens": r["tokens"],
                          "class": query_class(r["question"], r["asked"])} for r in result["rows"]]}

    def baselines() -> dict[str, dict[str, float]]:
        result = knowledge.run_baselines(cases, vectors)
        return {name: {column: r["questions"]["overall"]["recall@5"]} for name, r in result.items()}

    return Bench("knowledge", {column: sum(len(c.questions) for c in cases)}, hindsight, baselines)


def percent(values: list[float]) -> float:
    return round(100 * statistics.fmean(values), 1) if values else float("nan")


def variant_figures(rows_by_column: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """A variant's figures from its rows: per column recall@5, evidence in the block and tokens; per class,
    recall@5 pooled over every column (with how many questions)."""
    out: dict[str, dict[str, Any]] = {"recall@5": {}, "evidence_in_block@5": {}, "tokens": {}, "by_class": {}}
    pooled: dict[str, list[float]] = {c: [] for c in CLASSES}
    for column, rows in rows_by_column.items():
        out["recall@5"][column] = percent([r["r5"] for r in rows])
        if rows and "block" in rows[0]:
            out["evidence_in_block@5"][column] = percent([r["block"] for r in rows])
            out["tokens"][column] = round(statistics.fmean(r["tokens"] for r in rows), 1)
        for r in rows:
            pooled[r["class"]].append(r["r5"])
    out["by_class"] = {c: {"questions": len(v), "recall@5": percent(v)} for c, v in pooled.items()}
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    parser.add_argument("--variants", nargs="+", default=None, help="names from --list (default: all)")
    parser.add_argument("--locomo-limit", type=int, default=2, help="LoCoMo conversations (default 2)")
    parser.add_argument("--max-questions", type=int, default=None,
                        help="only the first N questions of each conversation, madial language, or user")
    parser.add_argument("--locomo-data", type=Path, default=locomo_adapters.DEFAULT_DATA)
    parser.add_argument("--madial-data", type=Path, default=madial.DEFAULT_DATA)
    parser.add_argument("--multilingual-data", type=Path, default=MULTILINGUAL)
    parser.add_argument("--knowledge-data", type=Path, default=knowledge.DEFAULT_DATA)
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--list", action="store_true", help="print the variants and stop")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "ablations.json")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None, vectors: E5Vectors | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    if args.list:
        for name, recipe in VARIANTS.items():
            print(f"{name:<22} {recipe.what}")
        return {}
    unknown = set(args.variants or ()) - set(VARIANTS)
    if unknown:
        raise SystemExit(f"unknown variants {sorted(unknown)}; see --list")
    chosen = args.variants or list(VARIANTS)
    vectors = vectors or E5Vectors(None if args.no_cache else CACHE_DIR / "ablations-multilingual-e5-small.npy")
    benches = []
    for name in args.sets:
        if name == "locomo":
            benches.append(locomo_bench(vectors, args.locomo_limit, args.max_questions, args.locomo_data))
        elif name == "knowledge":
            benches.append(knowledge_bench(vectors, args.max_questions, args.knowledge_data))
        elif name.startswith("madial-"):
            benches.append(madial_bench(vectors, name.split("-", 1)[1], args.max_questions, args.madial_data))
        else:
            benches.append(multilingual_bench(vectors, args.max_questions, args.multilingual_data))
        vectors.save()
    columns = {c: n for b in benches for c, n in b.questions.items()}
    report: dict[str, Any] = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(["python -m benchmarks.ablations", *(sys.argv[1:] if argv is None else argv)]),
        "metric": "recall@5 (percent)", "embedder": vectors.name, "columns": columns,
        "baselines": {}, "variants": {},
    }
    if args.out.exists() and set(chosen) != set(VARIANTS):  # a run of some variants keeps the others' rows
        previous = json.loads(args.out.read_text())
        if previous.get("columns") == columns:
            report["variants"] = {k: v for k, v in previous.get("variants", {}).items() if k in VARIANTS}
            report["earlier_runs"] = [*previous.get("earlier_runs", []), previous.get("command")]
    for bench in benches:
        for system, figures in bench.baselines().items():
            report["baselines"].setdefault(system, {}).update(figures)
    for name in chosen:
        recipe = VARIANTS[name]
        entry: dict[str, Any] = {**recipe.describe(), "recall@5": {}}
        start = time.perf_counter()
        try:
            rows: dict[str, list[dict[str, Any]]] = {}
            for bench in benches:
                rows.update(bench.hindsight(recipe))
            entry.update(variant_figures(rows))
            entry["status"] = "ok"
        except RecipeUnavailable as exc:
            entry.update(status="unavailable", reason=str(exc))
        entry["seconds"] = round(time.perf_counter() - start, 1)
        report["variants"][name] = entry
        vectors.save()
        print(f"  {name}: {entry.get('recall@5') if entry['status'] == 'ok' else entry['reason']}",
              file=sys.stderr, flush=True)
        write_results(args.out, report, __file__, argv)  # each variant as it finishes
    report = write_results(args.out, report, __file__, argv)
    print_table(report)
    return report


def print_table(report: dict[str, Any]) -> None:
    columns = list(report["columns"])
    print(f"\n{'recall@5':<44} " + " ".join(f"{c[:20]:>20}" for c in columns))
    for name, entry in report["variants"].items():
        if entry["status"] != "ok":
            print(f"{'hindsight ' + name:<44} unavailable: {entry['reason']}")
            continue
        print(f"{'hindsight ' + name:<44} " + " ".join(f"{entry['recall@5'].get(c, float('nan')):>20.1f}"
                                                       for c in columns))
        if entry.get("evidence_in_block@5"):
            print(f"{'  evidence whole in the block':<44} " + " ".join(
                f"{entry['evidence_in_block@5'].get(c, float('nan')):>20.1f}" for c in columns))
            print(f"{'  block tokens':<44} " + " ".join(f"{entry['tokens'].get(c, float('nan')):>20.0f}"
                                                       for c in columns))
        if entry.get("by_class"):
            print("  recall@5 by what the question asks: " + ", ".join(
                f"{c} {v['recall@5']:.1f} ({v['questions']} q)" for c, v in entry["by_class"].items()))
    for name, figures in report["baselines"].items():
        print(f"{name:<44} " + " ".join(f"{figures.get(c, float('nan')):>20.1f}" for c in columns))


if __name__ == "__main__":
    main()
