"""A year of one person's dated events, and dialogues that need some of them: hindsight beside plain baselines.

    python -m benchmarks.madial [--data ../shared/benchmarks/madial] [--arms zh-zh en-en en-zh zh-en]
                                [--max-questions N] [--out benchmarks/results/madial.json]

Data (`../shared/benchmarks/madial/`, MIT, read in place): `{zh,en}-memory.json`,
one `{id: {time, scene, emotion, event}}` per line (one person's events over
2022-2024, one sentence each); `{zh,en}-dialogue.json`, one dialogue per line
with `test-turn` (indices of the assistant turns that need memories),
`relevant-id` (the labelled memory ids) and `user-id`. The English memories are
translations of the Chinese ones under the same ids and dates (the run checks
it and reports the share), which gives cross-lingual arms: an arm "en-zh" asks
the English dialogues over the Chinese memories, scored on the same ids;
relevant ids missing from the other language's memories are dropped and counted;
a cross-lingual arm is skipped when the ids do not align.

Each test turn is one question, scored against its dialogue's relevant ids.
It is asked two ways: `last` = the last user message before the test turn
(what the LangChain and LlamaIndex adapters send), `dialogue` = the dialogue so
far ("Speaker: text" lines, speaker tags as in the file).

hindsight (defaults): one `Hindsight(location=":memory:")` per user and arm.
`--protocol turns` (the default): the events are told the way the adapters
write a conversation, through `TurnLog`: each day's events one session of user
turns (the `event` sentence, dated at noon UTC, the clock set to that day),
each paired with the event told before it that day; a memory covers its own id
and the id of the turn it answers. `--protocol write_many`: every event in one
`write_many`, each alone, the clock one day after the last event. Either way
through the write gate (how many it dropped is reported, and how many of them
are labelled relevant). The dialogues carry no date, so questions are asked
one day after the last memory's date, with `recall(k=10, reinforce=False)`. A
result covers the ids it was written from (a merged duplicate covers both;
knowledge covers its episodes).

Baselines over the same event sentences (`plain.py`): e5 dense on its query and
its passage side, BM25 (jieba words for Chinese), and their fusion. Reported per
arm, query mode and system: recall@5, recall@10 (mean share of relevant ids
found; as in the LoCoMo paper), the share of relevant events whose sentence
reaches the top-5 prompt block whole (`evidence_in_block@5`: hindsight's
`format_for_prompt(results[:5])`, as a memory or as the turn one answers; the
baselines' same-shaped block; `metrics.evidence_in_block`), the block's cl100k
tokens, and the mean number of results returned when 10 are asked for.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Sequence

os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = Path(__file__).resolve().parent

from benchmarks.embedcache import CACHE_DIR  # noqa: E402
from benchmarks.harness import write_results  # noqa: E402
from benchmarks.metrics import evidence_in_block  # noqa: E402
from benchmarks.plain import BASELINES, PlainIndex, Unit, block  # noqa: E402
from benchmarks.recipes import E5Vectors, Recipe  # noqa: E402

from hindsight_core import Source, count_tokens  # noqa: E402
from hindsight_core.session.turns import Turn, TurnLog  # noqa: E402
from hindsight_core.testing import FrozenClock  # noqa: E402

DEFAULT_DATA = HERE.parent.parent / "shared" / "benchmarks" / "madial"
ARMS = ("zh-zh", "en-en", "en-zh", "zh-en")
MODES = ("last", "dialogue")
HINDSIGHT = "hindsight (defaults)"
_TAG = re.compile(r"^\s*<([^<>]{1,40})>\s*[:：]\s*")


class MadialFormatError(ValueError):
    """A file is not in the expected shape; the message says where."""


@dataclass(frozen=True)
class Memory:
    id: str
    user: str | None
    date: datetime
    text: str


@dataclass(frozen=True)
class Question:
    dialogue: int
    turn: int
    user: str
    last: str
    so_far: str
    relevant: tuple[str, ...]


def _lines(path: Path) -> list[tuple[int, dict]]:
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MadialFormatError(f"no such file: {path}") from None
    out = []
    for number, line in enumerate(raw.splitlines(), 1):
        if line.strip():
            try:
                out.append((number, json.loads(line)))
            except json.JSONDecodeError as exc:
                raise MadialFormatError(f"{path}:{number}: not JSON ({exc})") from None
    return out


def load_memories(path: Path) -> dict[str, Memory]:
    memories: dict[str, Memory] = {}
    for number, line in _lines(path):
        for key, value in line.items():
            try:
                when = datetime.strptime(value["time"], "%Y-%m-%d").replace(hour=12, tzinfo=timezone.utc)
                text = str(value["event"]).strip()
            except (KeyError, TypeError, ValueError) as exc:
                raise MadialFormatError(f"{path}:{number}: memory {key!r} needs time (YYYY-MM-DD) and event: {exc}")
            user = value.get("user-id")
            memories[str(key)] = Memory(str(key), None if user is None else str(user), when, text)
    return memories


def speaker_and_text(line: str) -> tuple[str | None, str]:
    """'<Bart>: "Hi!"\\n' -> ('Bart', 'Hi!'); a line without a tag -> (None, its text)."""
    match = _TAG.match(line)
    text = line[match.end():] if match else line
    return (match.group(1).strip() if match else None), text.strip().strip('"“”').strip()


def load_questions(path: Path, assistant: str = "Assistant") -> list[Question]:
    questions = []
    for index, (number, line) in enumerate(_lines(path)):
        try:
            lines, turns, relevant = line["dialogue"], line["test-turn"], line["relevant-id"]
            user = str(line["user-id"])
        except (KeyError, TypeError) as exc:
            raise MadialFormatError(f"{path}:{number}: needs dialogue, test-turn, relevant-id, user-id ({exc})")
        said = []  # (is the user, "Speaker: text") for each line before <EOD>, after <BOD>
        for position, raw in enumerate(lines):
            if raw.strip() in ("<BOD>", "<EOD>"):
                said.append((False, ""))
                continue
            speaker, text = speaker_and_text(raw)
            is_user = speaker != assistant if speaker else position % 2 == 1  # untagged: users speak on odd lines
            said.append((is_user, f"{speaker or ('User' if is_user else assistant)}: {text}"))
        for turn in turns:
            before = said[:turn]
            last = next((s.split(": ", 1)[1] for is_user, s in reversed(before) if is_user and s), None)
            if last is None:
                continue
            questions.append(Question(index, turn, user, last, "\n".join(s for _, s in before if s),
                                      tuple(str(r) for r in relevant)))
    return questions


def alignment(zh: dict[str, Memory], en: dict[str, Memory]) -> dict[str, Any]:
    """Do the two languages' memories share ids, with the same dates (the same events, translated)?"""
    shared = set(zh) & set(en)
    same_date = sum(zh[i].date == en[i].date for i in shared)
    return {"zh_memories": len(zh), "en_memories": len(en), "shared_ids": len(shared),
            "shared_with_same_date": same_date, "aligned": bool(shared) and same_date == len(shared)}


def recall_at(found: Sequence[set[str]], relevant: Sequence[str], k: int) -> float:
    if not relevant:
        return 1.0
    covered = set().union(*found[:k]) if found[:k] else set()
    return len(covered & set(relevant)) / len(set(relevant))


def _rates(rows: list[dict[str, Any]]) -> dict[str, Any]:
    if not rows:
        return {"questions": 0}
    return {"questions": len(rows),
            "recall@5": round(100 * statistics.fmean(r["r5"] for r in rows), 1),
            "recall@10": round(100 * statistics.fmean(r["r10"] for r in rows), 1),
            "evidence_in_block@5": round(100 * statistics.fmean(r["block"] for r in rows), 1),
            "tokens": round(statistics.fmean(r["tokens"] for r in rows), 1),
            "returned_of_10": round(statistics.fmean(r["returned"] for r in rows), 2)}


PROTOCOLS = ("turns", "write_many")


class HindsightStore:
    """One user's memories written into hindsight through the public API, as described in the module doc.

    `protocol="turns"`: through the conversation policy the adapters use
    (`TurnLog`): each day's events are one session of user turns, offered in
    order on a clock set to their date, each paired with the event told before it
    that day; a memory covers its own id and, when the policy stored one, the id
    of the turn it answers (as `locomo_adapters.py` credits). `"write_many"`:
    every event in one `write_many`, each alone.
    """

    def __init__(self, recipe: Recipe, vectors: E5Vectors, memories: Sequence[Memory], user: str,
                 protocol: str = "turns") -> None:
        self.user, self.recipe = user, recipe
        asked = max(m.date for m in memories) + timedelta(days=1)
        self.clock = FrozenClock(min(m.date for m in memories))
        self.memory = recipe.build(vectors, self.clock)
        writer = recipe.writer(self.memory)
        self.covers: dict[str, set[str]] = {}
        self.dropped: list[str] = []
        if protocol == "turns":
            written = self._through_turns(writer, memories)
        else:
            self.clock.set(asked)
            written = zip(memories, writer.write_many(
                [m.text for m in memories], user_id=user, timestamps=[m.date for m in memories],
                sources=[Source.USER] * len(memories), metadatas=[{"madial_id": m.id} for m in memories]))
        for m, result in written:
            if result is None or result.record is None:
                self.dropped.append(m.id)
            else:
                self.covers.setdefault(result.record.id, set()).add(m.id)
        self.stored = len(memories) - len(self.dropped)
        self.clock.set(asked)

    def _through_turns(self, writer, memories: Sequence[Memory]) -> list[tuple[Memory, Any]]:
        log = TurnLog(writer)
        by_day: dict[datetime, list[Memory]] = {}
        for m in sorted(memories, key=lambda m: m.date):
            by_day.setdefault(m.date, []).append(m)
        written = []
        for day, told in by_day.items():
            self.clock.set(day)
            turns = [Turn(m.text, Source.USER, timestamp=m.date) for m in told]
            offered = {o.turn.digest: o.result for o in log.offer(turns, user_id=self.user,
                                                                   session_id=f"{day:%Y-%m-%d}")}
            ids_of = {m.text: m.id for m in told}
            for m, turn in zip(told, turns):
                result = offered.get(turn.digest)
                written.append((m, result))
                context = getattr(result.record, "context", None) if result and result.record else None
                if context and not result.merged and context in ids_of:
                    self.covers.setdefault(result.record.id, set()).add(ids_of[context])
        return written

    def ids(self, record) -> set[str]:
        out = set(self.covers.get(record.id, ())) | {str(record.metadata.get("madial_id"))} - {"None"}
        for source in getattr(record, "derived_from", None) or ():
            out |= self.covers.get(source, set())
        return out

    def search(self, query: str, k: int) -> tuple[list[set[str]], str]:
        """(ids per result, the top-5 prompt block)."""
        results = self.memory.recall(query, user_id=self.user, k=k, reinforce=False)
        return [self.ids(r.memory) for r in results], self.recipe.block(self.memory, results)

    def close(self) -> None:
        self.memory.close()


def memories_of(user: str, memories: dict[str, Memory]) -> list[Memory]:
    """A user's memories: those labelled with the user, and those labelled with no user (one person a file)."""
    return [m for m in memories.values() if m.user in (None, user)]


def run_arm(arm: str, questions: list[Question], memories: dict[str, Memory], vectors: E5Vectors, *,
            recipe: Recipe = Recipe(), systems: Sequence[str] = (HINDSIGHT, *BASELINES),
            modes: Sequence[str] = MODES, protocol: str = "turns", keep_rows: bool = False) -> dict[str, Any]:
    """Every system over one arm's memories, every question asked in each mode."""
    rows: dict[tuple[str, str], list[dict]] = {}
    gate = {"offered": 0, "stored": 0, "dropped_relevant": 0}
    relevant_dropped = 0
    for user in sorted({q.user for q in questions}):
        mine = memories_of(user, memories)
        asked = [q for q in questions if q.user == user]
        known = {m.id for m in mine}
        relevant_dropped += sum(r not in known for q in asked for r in q.relevant)
        vectors.warm(m.text for m in mine)
        index = PlainIndex([Unit(m.text, (m.id,), m.date) for m in mine], passage_side=vectors.passage_side,
                           query_side=vectors.query_side) if set(systems) - {HINDSIGHT} else None
        store = HindsightStore(recipe, vectors, mine, user, protocol) if HINDSIGHT in systems else None
        words = {m.id: m.text for m in mine}
        if store:
            wanted = {r for q in asked for r in q.relevant}
            gate["offered"] += len(mine)
            gate["stored"] += store.stored
            gate["dropped_relevant"] += len(set(store.dropped) & wanted)
        try:
            for mode in modes:
                for q in asked:
                    query = q.last if mode == "last" else q.so_far
                    relevant = tuple(r for r in q.relevant if r in known)
                    if not relevant:
                        continue
                    for system in systems:
                        if system == HINDSIGHT:
                            found, text_block = store.search(query, 10)
                        else:
                            hits = index.rank(system, query, 10)
                            found, text_block = [set(u.ids) for u in hits], block(hits[:5])
                        rows.setdefault((mode, system), []).append(
                            {"r5": recall_at(found, relevant, 5), "r10": recall_at(found, relevant, 10),
                             "block": evidence_in_block(text_block, relevant, words),
                             "tokens": count_tokens(text_block) if text_block else 0, "returned": len(found),
                             "query": query})
        finally:
            if store:
                store.close()
    out: dict[str, Any] = {"memories": len(memories), "questions": len(questions),
                           "relevant_ids_missing_from_memories": relevant_dropped,
                           "modes": {mode: {system: _rates(rows.get((mode, system), [])) for system in systems}
                                     for mode in modes}}
    if HINDSIGHT in systems:
        out["write_gate"] = gate
    if keep_rows:
        out["rows"] = {mode: {system: rows.get((mode, system), []) for system in systems} for mode in modes}
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--arms", nargs="+", default=list(ARMS), choices=ARMS,
                        help="question language-memory language")
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    parser.add_argument("--max-questions", type=int, default=None, help="only the first N questions of each arm")
    parser.add_argument("--protocol", default="turns", choices=PROTOCOLS,
                        help="how hindsight is written: through the conversation policy (TurnLog), or write_many")
    parser.add_argument("--cache", type=Path, default=CACHE_DIR / "madial-multilingual-e5-small.npy")
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "madial.json")
    return parser.parse_args(argv)


def load(data: Path, languages: Sequence[str]) -> tuple[dict[str, dict[str, Memory]], dict[str, list[Question]]]:
    return ({lang: load_memories(data / f"{lang}-memory.json") for lang in languages},
            {lang: load_questions(data / f"{lang}-dialogue.json") for lang in languages})


def run(args: argparse.Namespace, vectors: E5Vectors | None = None, recipe: Recipe = Recipe()) -> dict[str, Any]:
    languages = sorted({lang for arm in args.arms for lang in arm.split("-")})
    memories, questions = load(args.data, languages)
    vectors = vectors or E5Vectors(None if args.no_cache else args.cache)
    report: dict[str, Any] = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": "python -m benchmarks.madial " + " ".join(sys.argv[1:]),
        "data": {"path": str(args.data), "max_questions": args.max_questions,
                 **({"alignment": alignment(memories["zh"], memories["en"])} if len(languages) == 2 else {})},
        "setup": {"embedder": vectors.name, "hindsight": Recipe().describe(), "k": 10, "protocol": args.protocol,
                  "clock": "one day after the last memory's date (the dialogues carry no date)",
                  "modes": {"last": "the last user message before the test turn",
                            "dialogue": "the dialogue so far"}},
        "arms": {},
    }
    asked = {lang: qs[:args.max_questions] for lang, qs in questions.items()}
    vectors.warm_queries([q.last if m == "last" else q.so_far for qs in asked.values() for q in qs
                          for m in args.modes])
    vectors.save()
    aligned = report["data"].get("alignment", {}).get("aligned", False)
    for arm in args.arms:
        q_lang, m_lang = arm.split("-")
        if q_lang != m_lang and not aligned:
            report["arms"][arm] = {"skipped": "the two languages' memory ids do not name the same events"}
            continue
        print(f"madial {arm} ...", file=sys.stderr, flush=True)
        report["arms"][arm] = run_arm(arm, asked[q_lang], memories[m_lang], vectors, recipe=recipe,
                                      modes=args.modes, protocol=args.protocol)
        vectors.save()
    report = write_results(args.out, report, __file__)
    print_table(report)
    return report


def print_table(report: dict[str, Any]) -> None:
    for arm, result in report["arms"].items():
        if "skipped" in result:
            print(f"\nmadial {arm}: skipped ({result['skipped']})")
            continue
        gate = result.get("write_gate", {})
        print(f"\nmadial {arm}: {result['questions']} questions, {result['memories']} memories"
              + (f", gate stored {gate['stored']}/{gate['offered']}" if gate else ""))
        for mode, systems in result["modes"].items():
            print(f"  query = {mode}")
            for name, r in systems.items():
                if r.get("questions"):
                    print(f"    {name:<28} R@5 {r['recall@5']:>5.1f}  R@10 {r['recall@10']:>5.1f}  "
                          f"block {r['evidence_in_block@5']:>5.1f}  tokens {r['tokens']:>5.0f}  "
                          f"returned {r['returned_of_10']:>5.2f}/10")


if __name__ == "__main__":
    run(parse_args())
