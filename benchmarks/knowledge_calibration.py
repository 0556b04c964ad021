"""Where the knowledge rules' similarity thresholds fall on real conversations, per data set and language.

    python -m benchmarks.knowledge_calibration [--locomo PATH] [--limit N] [--madial DIR]
                                               [--multilingual PATH] [--out benchmarks/results/knowledge_calibration.json]

Consolidation and supersession compare a user's statements with the same
user's other statements, with multilingual-e5-small (the default embedder) on
the scale `config.scaled_for_embedder` puts the thresholds on. This reads, for
every statement that may become knowledge (`write.rules.consolidation_candidates`
after the default write gate), its nearest other candidate of the same person
(LoCoMo: a speaker of a conversation; madial: a user, zh and en apart;
multilingual.jsonl: a user), and reports per data set and script:

- the distribution of that nearest cosine (p50, p90, p99): how close unrelated
  statements of one person sit (real conversations rarely repeat a statement
  five times, so most nearest neighbours are unrelated);
- the share of candidates with a neighbour at or above `group_similarity` and at
  or above `conflict_similarity`, and the share with four such neighbours that also
  count them among their nearest (`groups._mutual`): the candidates a group of five
  could form around;
- the same cosines for paraphrases written for this script (the same statement
  said differently, in English, in Chinese and across the two) and for changes of
  mind (an old statement and its replacement): the share at or above each threshold;
- the rank test both rules use (`write.rules.stands_out`, `STANDS_OUT` standard
  deviations above a statement's cosines to the person's other statements), at
  2.5, 3 and 3.5: how many real statements would lead a group of five (four
  neighbours at the floor that stand out), and how many of the sets of five
  paraphrases in `PLANTED`, planted in each person's statements, would.

- the same two tests as the library runs them on real turns (`with_contexts`):
  each statement carries a context, the turn it answers (LoCoMo: the turn before
  it; madial dialogues: the assistant's turn before the user's; madial memories and
  multilingual.jsonl: an assistant turn of madial's dialogues in the same script,
  drawn by a seeded generator), is judged by the default write gate, stored with
  the vector of `write.preparing.embedding_text` and compared on
  `write.decisions.decision_vectors` (its text alone). Planted repeats (`PLANTED`)
  and changes of mind (`CHANGES`) carry contexts drawn the same way. For groups,
  the rank test at each level; for changes, `write.rules.is_change_of` and the
  stand-out test of `judge.changed_by` (the closest eligible earlier statement,
  against the new statement's other nearest memories) at each level: how many
  planted changes it finds, and how many real change-worded statements of the
  data would replace something (an upper bound on false changes: real
  conversations seldom correct an earlier statement). Each test also runs on the
  stored (context-bearing) vectors, to show what the text-alone vectors change.

Data are read in place and nothing of them is written out except counts and
cosine percentiles.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import re
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Sequence

import numpy as np

from benchmarks.embedcache import CACHE_DIR, CachedEmbedder, ensure_cache_dir
from benchmarks.harness import DATA, LOCOMO, RESULTS, SHARED, write_results

from hindsight_core import HindsightConfig
from hindsight_core.config import scaled_for_embedder
from hindsight_core.consolidate.groups import GROUP_STANDS_OUT
from hindsight_core.consolidate.groups import Likeness, _mutual
from hindsight_core.embed.multilingual import E5Embedder
from hindsight_core.types import MemoryRecord, Source
from hindsight_core.write.decisions import decision_vectors
from hindsight_core.write.gate import RuleBasedGate
from hindsight_core.write.preparing import embedding_text
from hindsight_core.write.rules import asserted, consolidation_candidates, says_change, text_script
from hindsight_core.write.rules import NEIGHBOURS

#: the same statement said differently (written for this script)
PARAPHRASES = [
    ("I never take the lift, I always use the stairs.", "Stairs for me, I don't use lifts."),
    ("I work from home on Fridays.", "Fridays I'm always working from home."),
    ("Our invoices go out on the first of the month.", "We send the invoices on the 1st of every month."),
    ("I'm lactose intolerant.", "I can't have milk, I'm lactose intolerant."),
    ("I keep my notes in Obsidian.", "My notes all live in Obsidian."),
    ("我周末一般不加班", "周末我基本不加班"),
    ("我们用飞书开会", "开会我们都用飞书"),
    ("我对猫毛过敏", "我一碰猫毛就过敏"),
    ("我每天骑车上班", "上班我都是骑自行车去"),
    ("我习惯用深色主题", "我一直用深色模式"),
    ("I'm allergic to cat hair.", "我对猫毛过敏"),
    ("I cycle to work every day.", "我每天骑车上班"),
    ("We hold meetings on Feishu.", "我们用飞书开会"),
]
#: an old statement and the change that replaces it (written for this script)
CHANGES = [
    ("Our CI runs on Jenkins.", "We migrated CI from Jenkins to GitHub Actions."),
    ("I drive to the office.", "I switched to taking the train to the office."),
    ("The design review is on Wednesdays.", "The design review moved to Tuesdays now."),
    ("I'm on the Android team.", "I'm on the payments team now."),
    ("我们用禅道管理需求", "我们现在改用Jira管理需求了"),
    ("我住在南京", "我搬到广州了"),
    ("周会在周一上午", "周会改到周三下午了"),
    ("我用安卓手机", "I switched to an iPhone last week."),
    ("We chat on Slack.", "我们团队改用企业微信了"),
    ("My dentist is Dr. Alvarez.", "I changed dentists, I see Dr. Kim now."),
    ("I take the 7:40 bus to work.", "I take the 8:10 bus now, the 7:40 was cancelled."),
    ("Our backups go to a NAS in the office.", "We moved the backups from the NAS to S3."),
    ("I run on Tuesday evenings.", "I switched my runs to Saturday mornings."),
    ("我用网易云音乐听歌", "我现在改用QQ音乐听歌了"),
    ("我每天早上喝咖啡", "我不再喝咖啡了，现在早上喝茶"),
    ("我们的周报用Word写", "周报改成在飞书文档里写了"),
    ("我在朝阳区上班", "我换工作了，现在在海淀区上班"),
]


#: sets of five ways to say one thing, planted into each person's statements (written for this script)
PLANTED = [
    ["I don't drink cold water, only warm.", "No cold water for me, I only drink it warm.",
     "I only drink warm water, never cold.", "I stick to warm water; cold water is not for me.",
     "Warm water only for me, I don't drink it cold."],
    ["Print the sales report in landscape, please.", "Landscape orientation again for this invoice printout.",
     "Please print the quarterly summary in landscape.", "Print the budget in landscape, thanks.",
     "Landscape for the team report printout, please."],
    ["I'm vegetarian.", "I don't eat meat at all.", "Being vegetarian, I skip the meat dishes.",
     "No meat for me, I'm a vegetarian.", "I follow a vegetarian diet."],
    ["我不喝冰水，只喝温水", "冰水我不喝的，我只喝温水", "我只喝温水，从来不喝冰水", "我一般只喝温水，冰水不喝", "温水就好，我不喝冰水"],
    ["我不吃香菜", "香菜我是不吃的", "我从来不吃香菜", "别给我放香菜，我不吃", "我不吃香菜的"],
    ["I always book an aisle seat on flights.", "Aisle seat for me when I fly, please.",
     "Please get me an aisle seat on the flight again.", "On planes I want the aisle, not the window.",
     "Book the aisle seat for my flight, as usual."],
    ["开会纪要请发到我的工作邮箱", "会议纪要发我工作邮箱就好", "纪要还是发到我的工作邮箱吧", "以后开会的纪要都发工作邮箱",
     "请把这次的会议纪要发到我工作邮箱"],
]
LEVELS = (2.5, 3.0, 3.5)
#: levels tried for the groups' stand-out test on `groups.Likeness` (`groups.GROUP_STANDS_OUT`), and the group sizes
GROUP_LEVELS = (3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0)
GROUP_SIZES = (3, 4, 5)
#: levels tried for the change-of-mind stand-out test (`write.rules.STANDS_OUT`)
CHANGE_LEVELS = (2.0, 2.5, 3.0, 3.5, 4.0)


def _leads_five(row: np.ndarray, leader: int, members, floor: float, level: float) -> bool:
    others = np.delete(row, leader)
    spread = max(float(others.std()), 1e-6)
    return sum(bool(row[j] >= floor and row[j] - others.mean() >= level * spread)
               for j in members if j != leader) >= 4


def rank_test(people: dict[str, list[str]], embedder, cfg, gate) -> dict:
    out = {str(level): {"real_leaders": 0, "real_statements": 0, "planted_found": 0, "planted": 0} for level in LEVELS}
    planted_vectors = [np.asarray(embedder.embed(group), dtype=np.float32) for group in PLANTED]
    for texts in people.values():
        kept = _candidates(texts, gate)
        if len(kept) < 10:
            continue
        vectors = np.asarray(embedder.embed(kept), dtype=np.float32)
        sims = vectors @ vectors.T
        for level in LEVELS:
            entry = out[str(level)]
            entry["real_statements"] += len(kept)
            entry["real_leaders"] += sum(bool(_leads_five(sims[i], i, range(len(kept)), cfg.group_similarity, level)
                                              ) for i in range(len(kept)))
            for group in planted_vectors:
                both = np.vstack([vectors, group])
                n = len(vectors)
                entry["planted"] += 1
                entry["planted_found"] += int(any(_leads_five(both @ both[i], i, range(n, n + 5), cfg.group_similarity,
                                                          level) for i in range(n, n + 5)))
    return out


def _candidates(texts: list[str], gate: RuleBasedGate) -> list[str]:
    """What the default gate stores of `texts` and `consolidation_candidates` keeps, as the user's."""
    records = _records([(text, None) for text in texts], gate, "t", hours=1.0)
    return [records[i].raw_content for i in consolidation_candidates(records)]


def _people_locomo(path: Path, limit: int | None) -> dict[str, list[str]]:
    from benchmarks.locomo import load_locomo, turn_text

    people: dict[str, list[str]] = {}
    for conversation in load_locomo(path, limit=limit):
        for turn in conversation.turns:
            people.setdefault(f"{conversation.sample_id}:{turn.speaker}", []).append(turn_text(turn, "plain"))
    return people


def _people_madial(folder: Path, lang: str) -> dict[str, list[str]]:
    people: dict[str, list[str]] = {}
    for line in (folder / f"{lang}-memory.json").read_text(encoding="utf-8").splitlines():
        if line.strip():
            for value in json.loads(line).values():
                people.setdefault(str(value.get("user-id")), []).append(str(value["event"]).strip())
    return people


def _people_multilingual(path: Path) -> dict[str, list[str]]:
    people: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            user = json.loads(line)
            people[user["user"]] = [m["text"] for m in user["memories"]]
    return people


# -- the library's own tests, on statements that carry the turn they answer -------------------------

#: (a statement, the turn it answers or None)
Said = tuple[str, "str | None"]
_UTTERANCE = re.compile(r'^<([^>]+)>:\s*"?(.*?)"?\s*$', re.S)
_START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _madial_dialogues(folder: Path, lang: str) -> list[list[tuple[str, str]]]:
    """madial's dialogues as (speaker, text) lists."""
    out = []
    for line in (folder / f"{lang}-dialogue.json").read_text(encoding="utf-8").splitlines():
        if line.strip():
            turns = []
            for raw in json.loads(line)["dialogue"]:
                match = _UTTERANCE.match(raw.strip())
                if match and match.group(2).strip():
                    turns.append((match.group(1), match.group(2).strip()))
            out.append(turns)
    return out


def _said_madial_dialogues(folder: Path, lang: str) -> dict[str, list[Said]]:
    """The user's turns of madial's dialogues (one user), each with the assistant's turn before it."""
    said: list[Said] = []
    for turns in _madial_dialogues(folder, lang):
        for (who_before, before), (who, text) in zip([("", "")] + turns, turns):
            if who != "Assistant":
                said.append((text, before if who_before == "Assistant" else None))
    return {f"madial-dialogue-{lang}": said}


def _assistant_pool(folder: Path) -> dict[str, list[str]]:
    """Assistant turns by script, to draw the turn a statement answers from."""
    return {script: [text for turns in _madial_dialogues(folder, lang) for who, text in turns if who == "Assistant"]
            for script, lang in (("cjk", "zh"), ("latin", "en"))}


def _drawn_context(text: str, pool: dict[str, list[str]], rng: random.Random) -> str:
    return rng.choice(pool[text_script(text)])


def _with_drawn_contexts(people: dict[str, list[str]], pool: dict[str, list[str]]) -> dict[str, list[Said]]:
    return {person: [(text, _drawn_context(text, pool, random.Random(f"{person}:{n}"))) for n, text in enumerate(texts)]
            for person, texts in people.items()}


def _said_locomo(path: Path, limit: int | None) -> dict[str, list[Said]]:
    """LoCoMo's turns by speaker, each with the turn before it in its session."""
    from benchmarks.locomo import load_locomo, turn_text

    people: dict[str, list[Said]] = {}
    for conversation in load_locomo(path, limit=limit):
        before = None
        for turn in conversation.turns:
            context = turn_text(before, "plain") if before is not None and before.session == turn.session else None
            people.setdefault(f"{conversation.sample_id}:{turn.speaker}", []).append((turn_text(turn, "plain"),
                                                                                       context))
            before = turn
    return people


def _records(said: Sequence[Said], gate: RuleBasedGate, prefix: str, hours: float) -> list[MemoryRecord]:
    """What the default write gate keeps of `said`, as the user's records `hours` apart."""
    out = []
    for n, (text, context) in enumerate(said):
        decision = gate(text)
        if decision.store:
            out.append(MemoryRecord(id=f"{prefix}{n}", user_id="calibration", summary=text[:80], raw_content=text,
                                    timestamp=_START + timedelta(hours=hours * n), event_type=decision.event_type,
                                    confidence=decision.confidence, source=Source.USER, context=context))
    return out


class _Vectors:
    """A record's vector as stored (with its context) and as the rules compare it (`decision_vectors`)."""

    def __init__(self, embedder) -> None:
        self.embedder = embedder

    def __call__(self, records: Sequence[MemoryRecord], kind: str) -> np.ndarray:
        if not records:
            return np.zeros((0, self.embedder.dimension), dtype=np.float32)
        stored = np.asarray(self.embedder.embed([embedding_text(r) for r in records]), dtype=np.float32)
        return stored if kind == "stored" else decision_vectors(records, stored, self.embedder.embed)


KINDS = ("text alone", "stored")


def _groups_found(records: list[MemoryRecord], vectors: np.ndarray, cfg, level: float) -> list[set[str]]:
    from hindsight_core.consolidate import groups as grouping

    keep = consolidation_candidates(records)
    saved, grouping.GROUP_STANDS_OUT = grouping.GROUP_STANDS_OUT, level
    try:
        found = grouping.find_groups([records[i] for i in keep], vectors[keep], cfg)
    finally:
        grouping.GROUP_STANDS_OUT = saved
    return [{records[keep[m]].id for m in g.members} for g in found]


def group_test(people: dict[str, list[Said]], pool: dict[str, list[str]], vectors: _Vectors, cfg,
               gate: RuleBasedGate) -> dict:
    """`find_groups` as the library runs it (text-alone vectors), at each level of `GROUP_STANDS_OUT` and each
    group size (`min_episodes`): real groups (no planted member: real conversations seldom repeat one standing
    statement three times over days, so this is an upper bound on false groups) and planted sets found (a group of
    at least three of the five, mostly planted), with every statement carrying a context."""
    out = {f"min_episodes {size}": {str(level): {"real_groups": 0, "planted_found": 0, "planted": 0}
                                    for level in GROUP_LEVELS} for size in GROUP_SIZES}
    out["people"] = out["statements"] = out["candidates"] = 0
    out["examples"] = []
    for person, said in people.items():
        records = _records(said, gate, "r", hours=6.0)
        candidates = len(consolidation_candidates(records))
        if candidates < 10:
            continue
        out["people"] += 1
        out["statements"] += len(records)
        out["candidates"] += candidates
        base = vectors(records, "text alone")
        plants = []
        for number, texts in enumerate(PLANTED):
            rng = random.Random(f"{person}:planted:{number}")
            planted = _records([(t, _drawn_context(t, pool, rng)) for t in texts], gate, f"p{number}-", 0)
            spread = max(1, len(records) // 5)
            planted = [p.evolve(timestamp=records[min(len(records) - 1, k * spread)].timestamp
                                + timedelta(minutes=1)) for k, p in enumerate(planted)]
            plants.append((planted, vectors(planted, "text alone")))
        for size in GROUP_SIZES:
            sized = dataclasses.replace(cfg, min_episodes=size)
            for level in GROUP_LEVELS:
                entry = out[f"min_episodes {size}"][str(level)]
                real = _groups_found(records, base, sized, level)
                entry["real_groups"] += len(real)
                if size == min(GROUP_SIZES) and level == GROUP_STANDS_OUT and len(out["examples"]) < 6:
                    text = {r.id: r.raw_content for r in records}
                    out["examples"] += [[len(g), sorted(text[i][:40] for i in g)[:2]] for g in real][:2]
                for planted, planted_vectors in plants:
                    both, ids = records + planted, {p.id for p in planted}
                    together = np.vstack([base, planted_vectors]) if planted else base
                    entry["planted"] += 1
                    entry["planted_found"] += int(any(len(g & ids) >= 3 and 2 * len(g & ids) >= len(g)
                                                      for g in _groups_found(both, together, sized, level)))
    for size, words in out.pop("examples"):  # shown while running, never written (LoCoMo is read in place)
        print(f"  a real group of {size}: {words}", file=sys.stderr)
    return out


def _replaced(new: MemoryRecord, new_vector: np.ndarray, earlier: list[MemoryRecord], vectors: np.ndarray, cfg,
              level: float) -> set[str]:
    """What `judge.changed_by` replaces for `new` among its nearest earlier records, at stand-out `level`."""
    from hindsight_core.write import judge, rules

    if not earlier:
        return set()
    sims = vectors @ new_vector
    order = np.argsort(-sims, kind="stable")[:NEIGHBOURS]
    neighbours = [(float(sims[i]), earlier[i]) for i in order]
    saved, rules.STANDS_OUT = rules.STANDS_OUT, level
    try:
        return judge.changed_by(new, neighbours, cfg)
    finally:
        rules.STANDS_OUT = saved


def change_test(people: dict[str, list[Said]], pool: dict[str, list[str]], vectors: _Vectors, cfg,
                gate: RuleBasedGate) -> dict:
    """Changes of mind as the library decides them (`is_change_of`, then the stand-out test), at each level:
    `CHANGES` planted in each person's statements (the old one mid-way, the new one last) found, and real
    change-worded statements that would replace an earlier one."""
    out = {kind: {str(level): {"real_replacing": 0, "planted_found": 0, "planted": 0} for level in CHANGE_LEVELS}
           for kind in KINDS}
    out["people"] = out["change_worded"] = 0
    for person, said in people.items():
        records = _records(said, gate, "r", hours=6.0)
        if len(records) < 10:
            continue
        out["people"] += 1
        worded = [k for k, r in enumerate(records) if says_change(r.raw_content) and asserted(r.raw_content)]
        out["change_worded"] += len(worded)
        for kind in KINDS:
            base = vectors(records, kind)
            for k in worded:
                for level in CHANGE_LEVELS:
                    out[kind][str(level)]["real_replacing"] += int(bool(
                        _replaced(records[k], base[k], records[:k], base[:k], cfg, level)))
            for number, (old_text, new_text) in enumerate(CHANGES):
                rng = random.Random(f"{person}:change:{number}")
                pair = _records([(old_text, _drawn_context(old_text, pool, rng)),
                                 (new_text, _drawn_context(new_text, pool, rng))], gate, f"c{number}-", 0)
                if len(pair) < 2:
                    for level in CHANGE_LEVELS:
                        out[kind][str(level)]["planted"] += 1
                    continue
                middle = records[len(records) // 2].timestamp
                old = pair[0].evolve(timestamp=middle + timedelta(minutes=1))
                new = pair[1].evolve(timestamp=records[-1].timestamp + timedelta(hours=1))
                planted = vectors([old, new], kind)
                store, store_vectors = records + [old], np.vstack([base, planted[:1]])
                for level in CHANGE_LEVELS:
                    entry = out[kind][str(level)]
                    entry["planted"] += 1
                    entry["planted_found"] += int(old.id in _replaced(new, planted[1], store, store_vectors, cfg,
                                                                       level))
    return out


def measure(people: dict[str, list[str]], embedder, cfg, gate) -> dict:
    nearest: dict[str, list[float]] = {"latin": [], "cjk": []}
    above = {"group": 0, "conflict": 0, "group_of_five": 0}
    statements = candidates = 0
    for texts in people.values():
        statements += len(texts)
        kept = _candidates(texts, gate)
        candidates += len(kept)
        if len(kept) < 2:
            continue
        vectors = np.asarray(embedder.embed(kept), dtype=np.float32)
        sims = vectors @ vectors.T
        np.fill_diagonal(sims, -1.0)
        for i, text in enumerate(kept):
            best = float(sims[i].max())
            nearest[text_script(text)].append(best)
            above["group"] += int(best >= cfg.group_similarity)
            above["conflict"] += int(best >= cfg.conflict_similarity)
            near = np.flatnonzero(sims[i] >= cfg.group_similarity)
            if len(near) >= 4:
                members = _mutual(i, np.concatenate([[i], near]).astype(np.int64), Likeness(
                    [MemoryRecord(id=str(k), user_id="c", summary=t, raw_content=t, timestamp=_START) for k, t in
                     enumerate(kept)], vectors))
                above["group_of_five"] += int(len(members) >= 5)
    out = {"statements": statements, "candidates": candidates}
    for script, values in nearest.items():
        if values:
            out[f"nearest_{script}"] = {"n": len(values), **{f"p{q}": round(float(np.percentile(values, q)), 3)
                                                              for q in (50, 90, 99)}}
    total = max(1, sum(len(v) for v in nearest.values()))
    out.update({f"share_nearest_at_{k}": round(v / total, 4) for k, v in above.items()})
    return out


def pairs(rows: list[tuple[str, str]], embedder, cfg) -> dict:
    out: dict[str, dict] = {}
    for a, b in rows:
        kind = "same script" if text_script(a) == text_script(b) else "across scripts"
        va, vb = np.asarray(embedder.embed([a, b]), dtype=np.float32)
        cos = float(va @ vb)
        entry = out.setdefault(kind, {"n": 0, "cosines": [], "at_group": 0, "at_conflict": 0, "at_correction": 0})
        entry["n"] += 1
        entry["cosines"].append(round(cos, 3))
        entry["at_group"] += cos >= cfg.group_similarity
        entry["at_conflict"] += cos >= cfg.conflict_similarity
        entry["at_correction"] += cos >= cfg.correction_similarity
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--limit", type=int, default=None, help="LoCoMo conversations (default: all)")
    parser.add_argument("--madial", type=Path, default=SHARED / "madial")
    parser.add_argument("--multilingual", type=Path, default=DATA / "multilingual.jsonl")
    parser.add_argument("--out", type=Path, default=RESULTS / "knowledge_calibration.json")
    parser.add_argument("--parts", nargs="*", default=["groups", "changes"], choices=["groups", "changes"],
                        help="which tests with contexts to run (a part left out keeps its figures from --out)")
    args = parser.parse_args()
    previous = json.loads(args.out.read_text(encoding="utf-8")) if args.out.exists() else {}
    embedder = CachedEmbedder(E5Embedder(), ensure_cache_dir(CACHE_DIR) / "knowledge-calibration-e5.npy")
    cfg = scaled_for_embedder(HindsightConfig(), embedder.similarity_baseline).semantic
    gate = RuleBasedGate()
    result = {"benchmark": "knowledge_calibration", "embedder": embedder.name,
              "thresholds": {"group_similarity": cfg.group_similarity, "conflict_similarity": cfg.conflict_similarity,
                             "correction_similarity": cfg.correction_similarity},
              "sets": {}}
    if args.locomo.exists():
        result["sets"]["locomo"] = measure(_people_locomo(args.locomo, args.limit), embedder, cfg, gate)
    for lang in ("zh", "en"):
        if (args.madial / f"{lang}-memory.json").exists():
            result["sets"][f"madial-{lang}"] = measure(_people_madial(args.madial, lang), embedder, cfg, gate)
    if args.multilingual.exists():
        result["sets"]["multilingual"] = measure(_people_multilingual(args.multilingual), embedder, cfg, gate)
    every: dict[str, list[str]] = {}
    if args.locomo.exists():
        every.update(_people_locomo(args.locomo, args.limit))
    if args.multilingual.exists():
        every.update({f"multilingual:{k}": v for k, v in _people_multilingual(args.multilingual).items()})
    result["rank_test"] = rank_test(every, embedder, cfg, gate)
    if (args.madial / "zh-dialogue.json").exists():
        pool = _assistant_pool(args.madial)
        said: dict[str, dict[str, list[Said]]] = {}
        if args.locomo.exists():
            said["locomo"] = _said_locomo(args.locomo, args.limit)
        for lang in ("zh", "en"):
            said[f"madial-dialogue-{lang}"] = _said_madial_dialogues(args.madial, lang)
            said[f"madial-memory-{lang}"] = _with_drawn_contexts(_people_madial(args.madial, lang), pool)
        if args.multilingual.exists():
            said["multilingual"] = _with_drawn_contexts(_people_multilingual(args.multilingual), pool)
        vectors = _Vectors(embedder)
        result["with_contexts"] = {}
        for name, people in said.items():
            print(f"with contexts: {name} ...", file=sys.stderr, flush=True)
            kept = previous.get("with_contexts", {}).get(name, {})
            result["with_contexts"][name] = {
                "groups": group_test(people, pool, vectors, cfg, gate) if "groups" in args.parts
                else kept.get("groups"),
                "changes": change_test(people, pool, vectors, cfg, gate) if "changes" in args.parts
                else kept.get("changes")}
            embedder.save()
    result["paraphrases"] = pairs(PARAPHRASES, embedder, cfg)
    result["changes"] = pairs(CHANGES, embedder, cfg)
    embedder.save()
    result = write_results(args.out, result, __file__)
    print(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
