"""Knowledge decisions and questions on our own dated conversations with repetitions and changes of mind.

    python -m benchmarks.knowledge [--cases N] [--lang en|zh|cross] [--data PATH] [--filler N]
                                   [--variants NAME ...] [--out benchmarks/results/knowledge.json] [--no-cache]

Data: `benchmarks/data/knowledge/knowledge.jsonl` (written for this benchmark, English,
Chinese and both; see its README.md). Each case is one user's conversation over days or
weeks with labels:

* group decisions: turns that must become ONE knowledge memory (positive), or repeated
  turns that must NOT become the user's knowledge (negative: questions, greetings, agent
  and tool text, hypotheticals, other people's facts, quotes, one-off requests);
* change decisions: (old turns > new turns) where the old must be superseded by the new
  (positive), or must not be (negative: a hypothetical, a quoted joke, someone else's
  change, a question, an agent's claim);
* questions with evidence turns (current state after a change, past state, repeated
  preferences, what the assistant recommended, plain facts); a current-state question
  names the stale turns that must not answer first.

`--filler N` adds N unrelated exchanges to each case (a user's one-off question and the
assistant's answer: trivia, definitions, conversions, from `data/knowledge/filler.json`,
in the case's language, both for a cross case), spread over its days before its own turns
and chosen by a generator seeded with the case id: more memories to search and to keep
out of knowledge, with no labels of their own.

hindsight: one fresh embedded store (Qdrant Edge, on disk in a temporary folder) per case,
the default embedder and configuration; each day of the case offered once, in order, to
`hindsight_core.session.turns.TurnLog.offer` (as the adapters write), the memory's
`FrozenClock` set to each turn's time; then, when consolidation is on
(`SemanticConfig.auto_consolidate`), `consolidate()` one day after the last turn,
when the questions are asked (`recall(k=10, reinforce=False)`; the prompt block is
`session.context.memory_block(k=5, reinforce=False)`, as the adapters build it).

Variants (`--variants`, all by default): the same protocol with supersession
(`SemanticConfig.detect_conflicts`) or consolidation (`SemanticConfig.auto_consolidate`,
and the explicit `consolidate()` with it) the other way from the default, in the same
run, so each mechanism's default is judged by what it does here.

A memory covers the turns it was written from (a near-duplicate merged into it adds its
turn); a knowledge memory covers its `derived_from` episodes' turns. For questions a
memory also covers the turn it answers when the policy stored one (`record.context`), as
`locomo_adapters.py` credits it.

Scores:

* groups: a knowledge memory MATCHES a positive group when at least half of the turns it
  covers, and at least max(2, half the group) of the group's turns, are the group's;
  precision = knowledge memories matching a positive group / knowledge memories formed;
  recall = positive groups matched / positive groups; a negative group is VIOLATED when a
  knowledge memory covers two or more of its turns.
* changes: a supersession is an (old memory -> memory that superseded it) pair;
  precision = supersessions matching a positive label (an old turn covered by the old
  memory, a new turn by the new one) / supersessions made; recall = positive labels
  decided / positive labels; a negative label is VIOLATED when a supersession matches it.
* questions: recall@5, recall@10, hit@5 (`metrics.py`), the share of evidence turns whose
  words reach the top-5 prompt block whole (`evidence_in_block@5`), and who answers first:
  for a current-state question `current_first@5`, an evidence turn (the new value) in the
  top 5 above every stale turn (the old value); for a question about the past
  `past_first@5`, the same with the old value as evidence and the newer value stale (the
  question's own `stale` turns, or else the new turns of the positive changes whose old
  turns are its evidence). Beside plain baselines over the same turns and over exchanges
  (`plain.py`: e5 dense on both sides, BM25, their fusion, and e5 dense's top 5 sorted
  newest first), scored the same way.

The library measured is the one Python imports (PYTHONPATH first, then the installed
package), so `PYTHONPATH=/another/checkout python -m benchmarks.knowledge`
scores another checkout's code on this data; its folder is `setup.library` in the JSON.

Per language: decisions by the case's language (en, zh, cross); questions by the
language asked when it is the case's, else "cross".
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Iterable, Sequence

os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = Path(__file__).resolve().parent

import hindsight_core  # noqa: E402
from hindsight_core import Layer, Source, count_tokens  # noqa: E402
from hindsight_core.session.context import memory_block  # noqa: E402
from hindsight_core.session.turns import TurnLog  # noqa: E402
from hindsight_core.testing import FrozenClock  # noqa: E402

from benchmarks.embedcache import CACHE_DIR  # noqa: E402
from benchmarks.harness import write_results  # noqa: E402
from benchmarks.locomo_adapters import evidence_in_block, make_turn, squash  # noqa: E402
from benchmarks.metrics import any_hit_at_k, recall_at_k  # noqa: E402
from benchmarks.plain import BASELINES, NEWEST, PlainIndex, Unit, block  # noqa: E402
from benchmarks.recipes import E5Vectors, Recipe, tweak  # noqa: E402
from hindsight_core.config import SemanticConfig  # noqa: E402

DEFAULT_DATA = HERE / "data" / "knowledge" / "knowledge.jsonl"
FILLER = HERE / "data" / "knowledge" / "filler.json"
DEFAULT_OUT = HERE / "results" / "knowledge.json"
CACHE = CACHE_DIR / "knowledge-multilingual-e5-small.npy"
HINDSIGHT = "hindsight (adapters' protocol)"


def _toggled(name: str, field_name: str) -> tuple[str, Recipe]:
    """hindsight with one knowledge mechanism the other way from its default (off if on by default, or on)."""
    default = getattr(SemanticConfig(), field_name)
    state = "off" if default else "on"
    return (f"hindsight, {name} {state}",
            Recipe(f"{name} {state} (SemanticConfig.{field_name}={not default})",
                   (tweak("semantic", **{field_name: not default}),)))


#: the same protocol with each knowledge mechanism the other way (`--variants`); consolidation off also skips the
#: explicit consolidate() call, consolidation on makes it
VARIANTS = dict([_toggled("supersession", "detect_conflicts"), _toggled("consolidation", "auto_consolidate")])
SOURCES = {"user": Source.USER, "agent": Source.AGENT, "tool": Source.TOOL}
LANGS = ("en", "zh", "cross")
QUESTION_METRICS = ("recall@5", "recall@10", "hit@5", "evidence_in_block@5")
#: who answers first, and the question kind it is asked of
FIRST = {"current": "current_first@5", "past": "past_first@5"}
#: the plain baselines this benchmark runs: the shared ones, and e5's top 5 newest first
KNOWLEDGE_BASELINES = (*BASELINES, NEWEST)


# -- the data ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class CaseTurn:
    id: str
    at: datetime
    speaker: str
    text: str


@dataclass(frozen=True)
class Case:
    id: str
    lang: str
    user: str
    turns: tuple[CaseTurn, ...]
    groups: tuple[dict, ...]
    changes: tuple[dict, ...]
    questions: tuple[dict, ...]

    @property
    def asked(self) -> datetime:
        """When the questions are asked and consolidation runs: a day after the last turn."""
        return max(t.at for t in self.turns) + timedelta(days=1)

    def days(self) -> list[list[CaseTurn]]:
        """The turns by calendar day, in order: one session each."""
        out: dict[str, list[CaseTurn]] = {}
        for turn in sorted(self.turns, key=lambda t: t.at):
            out.setdefault(turn.at.date().isoformat(), []).append(turn)
        return list(out.values())


def load(path: Path = DEFAULT_DATA, *, cases: int | None = None, lang: str | None = None) -> list[Case]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        if lang and raw["lang"] != lang:
            continue
        turns = tuple(CaseTurn(t["id"], datetime.fromisoformat(t["at"]), t["speaker"], t["text"])
                      for t in raw["turns"])
        out.append(Case(raw["id"], raw["lang"], raw["user"], turns, tuple(raw["groups"]),
                        tuple(raw["changes"]), tuple(raw["questions"])))
    return out[:cases] if cases else out


def with_filler(case: Case, exchanges: int, pool: dict[str, list[list[str]]]) -> Case:
    """The case with `exchanges` unrelated exchanges from `pool` before its own turns, round-robin over its days."""
    if exchanges <= 0:
        return case
    candidates = [pair for lang in (("en", "zh") if case.lang == "cross" else (case.lang,)) for pair in pool[lang]]
    chosen = random.Random(case.id).sample(candidates, min(exchanges, len(candidates)))
    firsts = [day[0].at for day in case.days()]
    extra: list[CaseTurn] = []
    for i, (asked, answer) in enumerate(chosen):
        day, slot = i % len(firsts), i // len(firsts)
        when = firsts[day] - timedelta(hours=3) + timedelta(minutes=10 * slot)
        extra += [CaseTurn(f"filler-{i}-user", when, "user", asked),
                  CaseTurn(f"filler-{i}-agent", when + timedelta(minutes=1), "agent", answer)]
    return dataclasses.replace(case, turns=tuple(sorted(extra + list(case.turns), key=lambda t: t.at)))


def question_language(case: Case, question: dict) -> str:
    return question["lang"] if case.lang == question["lang"] else "cross"


# -- hindsight, written as the adapters write -----------------------------------------------------

class CaseStore:
    """One case written through the conversation policy into a fresh embedded store, then consolidated."""

    def __init__(self, recipe: Recipe, vectors: E5Vectors, case: Case) -> None:
        config = recipe.config()
        self.case = case
        self.clock = FrozenClock(case.turns[0].at)
        self.folder = tempfile.mkdtemp(prefix="hindsight-knowledge-")
        self.memory = recipe.build(vectors, self.clock, self.folder)
        log = TurnLog(recipe.writer(self.memory))
        #: memory id -> the turns it was written from; and the turn each answers (for questions only)
        self.written: dict[str, set[str]] = {}
        self.answers: dict[str, set[str]] = {}
        self.offered = self.stored = 0
        by_text: dict[str, set[str]] = {}
        for number, day in enumerate(case.days()):
            turns = [make_turn(t.text, SOURCES[t.speaker], t.at) for t in day]
            by_digest: dict[str, set[str]] = {}
            for source, turn in zip(day, turns):
                by_digest.setdefault(turn.digest, set()).add(source.id)
                by_text.setdefault(source.text, set()).add(source.id)
            self.clock.set(day[-1].at)
            for offered in log.offer(turns, user_id=case.user, session_id=f"day-{number}"):
                self.offered += 1
                result = offered.result
                if result is None or result.record is None:
                    continue
                self.stored += 1
                self.written.setdefault(result.record.id, set()).update(by_digest.get(offered.turn.digest, ()))
                context = getattr(result.record, "context", None)
                if context and not result.merged:
                    self.answers.setdefault(result.record.id, set()).update(by_text.get(context, ()))
        self.clock.set(case.asked)
        start = time.perf_counter()
        # the explicit consolidate() of the protocol, unless a variant turned consolidation off
        consolidating = (config.semantic if config is not None else SemanticConfig()).auto_consolidate
        self.report = self.memory.consolidate(user_id=case.user) if consolidating else None
        self.consolidate_seconds = time.perf_counter() - start
        self.records = {r.id: r for r in self.memory.memories(user_id=case.user, include_inactive=True)}

    def turns_of(self, memory_id: str, *, answered: bool = False) -> set[str]:
        """The turns a memory covers: its own, its episodes' (knowledge), and with `answered` the turns they answer."""
        ids = {memory_id, *(getattr(self.records.get(memory_id), "derived_from", None) or ())}
        out: set[str] = set()
        for i in ids:
            out |= self.written.get(i, set())
            if answered:
                out |= self.answers.get(i, set())
        return out

    def knowledge(self) -> list[set[str]]:
        """The turns each knowledge memory was drawn from."""
        return [self.turns_of(r.id) for r in self.records.values() if r.layer is Layer.SEMANTIC]

    def supersessions(self) -> list[tuple[set[str], set[str]]]:
        """(turns of the superseded memory, turns of the memory that superseded it) for every supersession."""
        return [(self.turns_of(r.id), self.turns_of(r.superseded_by)) for r in self.records.values()
                if r.superseded_by]

    def ask(self, question: str) -> tuple[list[tuple[str, ...]], str]:
        """(turns covered per result, top 10) and the prompt block the adapters would add."""
        results = self.memory.recall(question, user_id=self.case.user, k=10, reinforce=False)
        ranked = [tuple(sorted(self.turns_of(r.memory.id, answered=True))) for r in results]
        text = memory_block(self.memory, question, user_id=self.case.user, k=5, reinforce=False).text
        return ranked, text

    def close(self) -> None:
        self.memory.close()
        shutil.rmtree(self.folder, ignore_errors=True)


# -- scoring -------------------------------------------------------------------------------------

def matches_group(covered: set[str], group: Sequence[str]) -> bool:
    """Most of the knowledge memory's turns are the group's, and it holds at least max(2, half) of the group."""
    shared = len(covered & set(group))
    return shared >= max(2, math.ceil(len(set(group)) / 2)) and shared * 2 >= len(covered)


def score_groups(case: Case, knowledge: Sequence[set[str]]) -> dict[str, int]:
    positives = [g["turns"] for g in case.groups if g["positive"]]
    negatives = [g["turns"] for g in case.groups if not g["positive"]]
    return {"formed": len(knowledge),
            "formed_right": sum(any(matches_group(k, g) for g in positives) for k in knowledge),
            "positives": len(positives),
            "positives_found": sum(any(matches_group(k, g) for k in knowledge) for g in positives),
            "negatives": len(negatives),
            "negatives_violated": sum(any(len(k & set(g)) >= 2 for k in knowledge) for g in negatives),
            "negative_outcomes": [[g.get("why"), any(len(k & set(g["turns"])) >= 2 for k in knowledge)]
                                  for g in case.groups if not g["positive"]]}


def _decides(pair: tuple[set[str], set[str]], label: dict) -> bool:
    old, new = pair
    return bool(old & set(label["old"])) and bool(new & set(label["new"]))


def score_changes(case: Case, supersessions: Sequence[tuple[set[str], set[str]]]) -> dict[str, int]:
    positives = [c for c in case.changes if c["positive"]]
    negatives = [c for c in case.changes if not c["positive"]]
    return {"made": len(supersessions),
            "made_right": sum(any(_decides(p, c) for c in positives) for p in supersessions),
            "positives": len(positives),
            "positives_found": sum(any(_decides(p, c) for p in supersessions) for c in positives),
            "negatives": len(negatives),
            "negatives_violated": sum(any(_decides(p, c) for p in supersessions) for c in negatives),
            "negative_outcomes": [[c.get("why"), any(_decides(p, c) for p in supersessions)] for c in negatives]}


def _ratio(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None


def summarise_decisions(rows: Sequence[dict[str, int]], made: str) -> dict[str, Any]:
    total = {key: sum(r[key] for r in rows) for key in rows[0]} if rows else {}
    if not total:
        return {}
    return {**total,
            "precision": _ratio(total[f"{made}_right"], total[made]),
            "recall": _ratio(total["positives_found"], total["positives"]),
            "negatives_respected": _ratio(total["negatives"] - total["negatives_violated"], total["negatives"])}


def answers_first(ranked: Sequence[Iterable[str]], evidence: Sequence[str], stale: Sequence[str],
                  k: int = 5) -> float:
    """1 if an evidence turn is in the top k and no stale turn ranks above it (or beside it, in one memory)."""
    for ids in list(ranked)[:k]:
        ids = set(ids)
        if ids & set(evidence):
            return 0.0 if ids & set(stale) else 1.0
        if ids & set(stale):
            return 0.0
    return 0.0


def stale_for(case: Case, question: dict) -> list[str]:
    """The turns that must not answer a question first: its own `stale`, or for a question about the past, the new
    turns of the positive changes whose old turns are its evidence (the newer value is wrong then)."""
    if question["stale"] or question["kind"] != "past":
        return list(question["stale"])
    evidence = set(question["evidence"])
    newer = {t for c in case.changes if c["positive"] and evidence & set(c["old"]) for t in c["new"]}
    return sorted(newer - evidence)


def question_row(case: Case, question: dict, ranked: Sequence[Iterable[str]], text_block: str,
                 words: dict[str, str]) -> dict[str, Any]:
    evidence = question["evidence"]
    row = {"case": case.id, "kind": question["kind"], "lang": question_language(case, question),
           "recall@5": recall_at_k(ranked, evidence, 5), "recall@10": recall_at_k(ranked, evidence, 10),
           "hit@5": any_hit_at_k(ranked, evidence, 5),
           "evidence_in_block@5": evidence_in_block(text_block, evidence, words)}
    stale = stale_for(case, question)
    if stale and question["kind"] in FIRST:
        row[FIRST[question["kind"]]] = answers_first(ranked, evidence, stale)
    return row


def summarise_questions(rows: Sequence[dict]) -> dict[str, Any]:
    def one(group: Sequence[dict]) -> dict[str, Any]:
        out: dict[str, Any] = {"questions": len(group)}
        for metric in QUESTION_METRICS:
            out[metric] = round(100 * statistics.fmean(r[metric] for r in group), 1)
        for kind, metric in FIRST.items():
            judged = [r[metric] for r in group if metric in r]
            if judged:
                out[metric] = round(100 * statistics.fmean(judged), 1)
                out[f"{kind}_questions"] = len(judged)
        return out

    out = {"overall": one(rows)} if rows else {}
    for key in ("lang", "kind"):
        for value in sorted({r[key] for r in rows}):
            out[f"{key}={value}"] = one([r for r in rows if r[key] == value])
    return out


# -- the runs ------------------------------------------------------------------------------------

def run_hindsight(recipe: Recipe, cases: Sequence[Case], vectors: E5Vectors, *,
                  keep_rows: bool = False) -> dict[str, Any]:
    """hindsight with `recipe` on every case: decisions scored, questions asked (`keep_rows`: each question's row
    too, with the case's question time, for `ablations.py`)."""
    rows, groups, changes = [], [], []
    offered = stored = memories = 0
    start = time.perf_counter()
    for case in cases:
        store = CaseStore(recipe, vectors, case)
        try:
            offered, stored = offered + store.offered, stored + store.stored
            memories += len(store.records)
            knowledge, supersessions = store.knowledge(), store.supersessions()
            groups.append({"case": case.id, "lang": case.lang, **score_groups(case, knowledge),
                           "knowledge": [sorted(k) for k in knowledge]})
            changes.append({"case": case.id, "lang": case.lang, **score_changes(case, supersessions),
                            "supersessions": [[sorted(old), sorted(new)] for old, new in supersessions]})
            words = {t.id: squash(t.text) for t in case.turns}
            for question in case.questions:
                ranked, text_block = store.ask(question["question"])
                rows.append(question_row(case, question, ranked, text_block, words)
                            | ({"question": question["question"], "asked": case.asked,
                                "tokens": count_tokens(text_block)} if keep_rows else {}))
        finally:
            store.close()
    vectors.save()

    def per_language(found: list[dict], made: str) -> dict[str, Any]:
        plain = [{k: v for k, v in r.items() if isinstance(v, int)} for r in found]
        out = {"overall": summarise_decisions(plain, made)}
        kinds: dict[str, dict[str, int]] = {}
        for row in found:
            for why, violated in row["negative_outcomes"]:
                tally = kinds.setdefault(str(why), {"negatives": 0, "violated": 0})
                tally["negatives"] += 1
                tally["violated"] += int(violated)
        out["negatives_by_kind"] = dict(sorted(kinds.items()))
        for lang in LANGS:
            chosen = [p for p, r in zip(plain, found) if r["lang"] == lang]
            if chosen:
                out[lang] = summarise_decisions(chosen, made)
        return out

    return {"kind": "hindsight", "setup": recipe.describe(), "offered": offered, "stored": stored,
            "memories": memories, "seconds": round(time.perf_counter() - start, 1),
            "groups": per_language(groups, "formed"), "changes": per_language(changes, "made"),
            "questions": summarise_questions(rows),
            "decisions_per_case": {"groups": groups, "changes": changes}} | ({"rows": rows} if keep_rows else {})


def units(case: Case, exchanges: bool) -> list[Unit]:
    """The case's turns (each alone, or with the turn before it on the same day) as baseline units."""
    out, before = [], None
    for day in case.days():
        before = None
        for turn in day:
            if exchanges and before is not None:
                out.append(Unit(f"{before.text}\n{turn.text}", (before.id, turn.id), turn.at))
            else:
                out.append(Unit(turn.text, (turn.id,), turn.at))
            before = turn
    return out


def run_baselines(cases: Sequence[Case], vectors: E5Vectors,
                  systems: Sequence[str] = KNOWLEDGE_BASELINES) -> dict[str, Any]:
    rows: dict[str, list[dict]] = {}
    for case in cases:
        words = {t.id: squash(t.text) for t in case.turns}
        for unit_name in ("turns", "exchanges"):
            index = PlainIndex(units(case, unit_name == "exchanges"), passage_side=vectors.passage_side,
                               query_side=vectors.query_side)
            for system in systems:
                for question in case.questions:
                    hits = index.rank(system, question["question"], 10)
                    rows.setdefault(f"{system} over {unit_name}", []).append(
                        question_row(case, question, [u.ids for u in hits], block(hits[:5]), words))
    vectors.save()
    return {name: {"kind": "baseline", "questions": summarise_questions(group)} for name, group in rows.items()}


def counts(cases: Sequence[Case]) -> dict[str, Any]:
    def tally(chosen: Sequence[Case]) -> dict[str, int]:
        return {"cases": len(chosen), "turns": sum(len(c.turns) for c in chosen),
                "questions": sum(len(c.questions) for c in chosen),
                "group_decisions": sum(len(c.groups) for c in chosen),
                "group_negatives": sum(not g["positive"] for c in chosen for g in c.groups),
                "change_decisions": sum(len(c.changes) for c in chosen),
                "change_negatives": sum(not g["positive"] for c in chosen for g in c.changes)}

    return {"overall": tally(cases), **{lang: tally([c for c in cases if c.lang == lang]) for lang in LANGS}}


def prepare(cases: Sequence[Case], vectors: E5Vectors) -> None:
    """Embed every turn, exchange and question once (cached between runs)."""
    texts = [t.text for c in cases for t in c.turns] + [u.text for c in cases for u in units(c, True)]
    start = time.perf_counter()
    fresh = vectors.warm(texts) + vectors.warm_queries([q["question"] for c in cases for q in c.questions])
    if fresh:
        print(f"embedded {fresh:,} new texts in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    vectors.save()


def case_options(description: str | None) -> argparse.ArgumentParser:
    """A parser with the options that choose the cases (`--data`, `--cases`, `--lang`), for every script that
    writes the knowledge set."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--cases", type=int, default=None, help="only the first N cases (after --lang)")
    parser.add_argument("--lang", choices=LANGS, default=None, help="only the cases in this language")
    return parser


def chosen_cases(args: argparse.Namespace, vectors: E5Vectors) -> list[Case]:
    """The cases `case_options` chose, with their vectors embedded."""
    cases = load(args.data, cases=args.cases, lang=args.lang)
    prepare(cases, vectors)
    return cases


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = case_options(__doc__)
    parser.add_argument("--filler", type=int, default=0, metavar="N",
                        help="add N unrelated exchanges to each case as distractors (see the module doc)")
    parser.add_argument("--baselines", nargs="*", default=list(KNOWLEDGE_BASELINES), choices=KNOWLEDGE_BASELINES)
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS),
                        help="hindsight with one knowledge mechanism the other way from its default (default: all)")
    parser.add_argument("--no-cache", action="store_true", help="keep vectors in memory only")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    return parser.parse_args(argv)


def run(args: argparse.Namespace, vectors: E5Vectors | None = None) -> dict[str, Any]:
    cases = load(args.data, cases=args.cases, lang=args.lang)
    if not cases:
        raise SystemExit(f"no cases in {args.data} for --lang {args.lang}")
    if args.filler:
        pool = json.loads(FILLER.read_text(encoding="utf-8"))
        cases = [with_filler(case, args.filler, pool) for case in cases]
    vectors = vectors or E5Vectors(None if args.no_cache else CACHE)
    prepare(cases, vectors)
    report: dict[str, Any] = {
        "data": {"path": str(args.data.relative_to(HERE.parent) if args.data.is_relative_to(HERE.parent)
                             else args.data), **counts(cases)},
        "setup": {"embedder": vectors.name, "filler_exchanges_per_case": args.filler,
                  "library": str(Path(hindsight_core.__file__).resolve().parent.parent),
                  "store": "embedded (Qdrant Edge), one fresh store per case",
                  "protocol": "TurnLog.offer, one offer per day of the case, in order; consolidate() a day "
                              "after the last turn when consolidation is on; recall(k=10, reinforce=False); "
                              "block: memory_block(k=5)"},
        "systems": {},
    }
    print(f"running {HINDSIGHT} on {len(cases)} cases ...", file=sys.stderr, flush=True)
    report["systems"][HINDSIGHT] = run_hindsight(Recipe(), cases, vectors)
    for name in args.variants:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        report["systems"][name] = run_hindsight(VARIANTS[name], cases, vectors)
    report["systems"].update(run_baselines(cases, vectors, args.baselines))
    report = write_results(args.out, report, __file__)
    print_table(report)
    return report


def print_table(report: dict[str, Any]) -> None:
    data = report["data"]["overall"]
    print(f"\nknowledge set: {data['cases']} cases, {data['turns']} turns, {data['questions']} questions, "
          f"{data['group_decisions']} group and {data['change_decisions']} change decisions")
    for name, ours in report["systems"].items():
        if ours.get("kind") == "hindsight":
            print(f"{name}: groups {ours['groups']['overall']['formed']} formed, changes "
                  f"{ours['changes']['overall']['made']} made")
    ours = report["systems"][HINDSIGHT]
    for kind in ("groups", "changes"):
        violated = {why: t["violated"] for why, t in ours[kind]["negatives_by_kind"].items() if t["violated"]}
        print(f"{kind:<8} negatives violated by kind: {violated or 'none'}")
        for lang, s in ours[kind].items():
            if lang == "negatives_by_kind":
                continue
            print(f"{kind:<8} {lang:<8} precision {s['precision']}  recall {s['recall']}  "
                  f"negatives respected {s['negatives_respected']}")
    langs = [k for k in ours["questions"] if k.startswith("lang=")]
    print(f"{'system':<44} {'R@5':>6} {'R@10':>6} {'block':>6} {'cur1st':>6} {'pst1st':>6}  "
          + " ".join(f"{k[5:]:>6}" for k in langs))
    for name, system in report["systems"].items():
        q = system["questions"]
        o = q["overall"]
        print(f"{name:<44} {o['recall@5']:>6.1f} {o['recall@10']:>6.1f} {o['evidence_in_block@5']:>6.1f} "
              f"{o.get('current_first@5', float('nan')):>6.1f} {o.get('past_first@5', float('nan')):>6.1f}  "
              + " ".join(f"{q.get(k, {}).get('recall@5', float('nan')):>6.1f}" for k in langs))


if __name__ == "__main__":
    run(parse_args())
