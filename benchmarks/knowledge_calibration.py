"""Where the knowledge rules' similarity thresholds fall on real conversations, per data set and language.

    python benchmarks/knowledge_calibration.py [--locomo PATH] [--limit N] [--madial DIR]
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

Data are read in place and nothing of them is written out except counts and
cosine percentiles.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from embedcache import CACHE_DIR, CachedEmbedder, ensure_cache_dir  # noqa: E402

from hindsight_core import HindsightConfig  # noqa: E402
from hindsight_core.config import scaled_for_embedder  # noqa: E402
from hindsight_core.consolidate.groups import _mutual  # noqa: E402
from hindsight_core.embed.multilingual import E5Embedder  # noqa: E402
from hindsight_core.types import EventType  # noqa: E402
from hindsight_core.write.gate import RuleBasedGate  # noqa: E402
from hindsight_core.write.rules import STANDING_TYPES, _script, asserted  # noqa: E402

ROOT = HERE.parent.parent
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
]
LEVELS = (2.5, 3.0, 3.5)


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
    out = []
    for text in texts:
        decision = gate(text)
        if decision.store and decision.event_type in STANDING_TYPES and asserted(text):
            out.append(text)
    return out


def _people_locomo(path: Path, limit: int | None) -> dict[str, list[str]]:
    from locomo import load_locomo, turn_text

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
            nearest[_script(text)].append(best)
            above["group"] += int(best >= cfg.group_similarity)
            above["conflict"] += int(best >= cfg.conflict_similarity)
            near = np.flatnonzero(sims[i] >= cfg.group_similarity)
            if len(near) >= 4:
                members = _mutual(i, np.concatenate([[i], near]).astype(np.int64), vectors)
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
        kind = "same script" if _script(a) == _script(b) else "across scripts"
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
    parser.add_argument("--locomo", type=Path, default=ROOT / "shared" / "benchmarks" / "locomo10.json")
    parser.add_argument("--limit", type=int, default=None, help="LoCoMo conversations (default: all)")
    parser.add_argument("--madial", type=Path, default=ROOT / "shared" / "benchmarks" / "madial")
    parser.add_argument("--multilingual", type=Path, default=HERE / "data" / "multilingual.jsonl")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "knowledge_calibration.json")
    args = parser.parse_args()
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
    result["paraphrases"] = pairs(PARAPHRASES, embedder, cfg)
    result["changes"] = pairs(CHANGES, embedder, cfg)
    embedder.save()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
