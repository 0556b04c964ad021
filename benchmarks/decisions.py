"""Every supersession and consolidation decision hindsight makes, on real conversations and on update cases.

    python -m benchmarks.decisions [PATH] [--limit N] [--as-shipped] [--out benchmarks/results/decisions.json]

Two sources of decisions, both written through the conversation policy
(`TurnLog.offer`, one offer per session, as the adapters write) with the default
embedder and configuration, supersession and consolidation after each write turned on
(`config.knowledge_on`):

- **LoCoMo** (`../shared/benchmarks/locomo10.json` by default, read in place):
  both speakers are people, so both are written as the user. Every
  supersession (old turn -> the turn that replaced it) and every consolidation
  (the episodes a knowledge item was drawn from) is listed by the dialog ids of
  its turns, for labelling by hand: the texts go to `--texts` (beside the vector
  cache, which git ignores; LoCoMo is CC BY-NC and stays out of the repository),
  the labels to `data/locomo_decision_labels.json` ({key: true|false}).
  Real conversations rarely change a single-valued attribute, so a precise
  system makes few decisions here: the count is the first figure to read, and
  the labelled share that is right the second.
- **Update cases** (`UPDATE_CASES` below, English and Chinese, written for this
  benchmark): short histories with what must and must not be superseded and
  what must and must not be grouped. They are labelled by construction:
  precision and recall of the decisions are computed.

Both are off by default (`SemanticConfig.detect_conflicts`, `auto_consolidate`), and this run turns
them on: their decisions on real conversations are what decided those defaults; `--as-shipped` runs
the defaults.

The JSON lists the LoCoMo decisions (with `label: null` until a person labels
them) and the update-case scores.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchmarks.embedcache import CACHE_DIR, CachedEmbedder, ensure_cache_dir  # noqa: E402
from benchmarks.harness import write_results  # noqa: E402
from benchmarks.locomo import load_locomo, turn_text  # noqa: E402

from hindsight_core import Hindsight, HindsightConfig, Layer, Source  # noqa: E402
from hindsight_core.config import knowledge_on  # noqa: E402
from hindsight_core.embed.multilingual import E5Embedder  # noqa: E402
from hindsight_core.session.turns import Turn, TurnLog  # noqa: E402
from hindsight_core.testing import FrozenClock  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "benchmarks" / "locomo10.json"
START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
#: hand labels of LoCoMo decisions, {key: true|false}; a key names dialog ids only, no text
LABELS = Path(__file__).resolve().parent / "data" / "locomo_decision_labels.json"


@dataclass(frozen=True)
class UpdateCase:
    """Statements said one a day, by the user; `supersedes`: (new, old) pairs that must be decided, by position;
    `groups`: positions that must become one knowledge item (others must not group)."""

    name: str
    said: tuple[str, ...]
    supersedes: frozenset[tuple[int, int]] = frozenset()
    groups: tuple[frozenset[int], ...] = ()


UPDATE_CASES = (
    UpdateCase("colour changed", ("My favourite colour is blue.", "I walked the dog in the park.",
                                  "My favourite colour is green now."), frozenset({(2, 0)})),
    UpdateCase("colour zh", ("我最喜欢的颜色是蓝色", "今天去公园散步了", "我现在最喜欢的颜色是绿色"), frozenset({(2, 0)})),
    UpdateCase("moved", ("I live in Lisbon, Rua Augusta 12.", "The weather was lovely today.",
                         "I moved to Porto, Rua das Flores 3."), frozenset({(2, 0)})),
    UpdateCase("moved zh", ("我住在上海浦东", "周末去看了电影", "我搬到北京海淀了"), frozenset({(2, 0)})),
    UpdateCase("phone", ("My phone number is 0612 345 678.", "My new phone number is 0699 111 222."),
               frozenset({(1, 0)})),
    UpdateCase("orientation across languages", ("以后所有报表都用A4纸横向打印", "Actually, print everything in portrait from now on."),
               frozenset({(1, 0)})),
    UpdateCase("slide colour", ("I prefer red for the slide theme.", "Actually, I prefer blue for the slide theme now."),
               frozenset({(1, 0)})),
    UpdateCase("employer", ("I work at Acme as a data engineer.", "I work for Globex now, same role."),
               frozenset({(1, 0)})),
    # none of these may supersede anything
    UpdateCase("task after a standing rule", ("Use the staging cluster eu-west-2 for all test runs, confirmed.",
                                               "Run the integration tests now.")),
    UpdateCase("two events", ("I played basketball with friends on Saturday.",
                              "Which movie are you going to watch tonight?", "I went to Paris last spring.")),
    UpdateCase("two pets", ("My dog is called Rex.", "My cat is called Tom.")),
    UpdateCase("agreement", ("I prefer window seats on long flights.", "Window seat again, please, as usual.")),
    UpdateCase("two likes", ("I like hiking in the mountains.", "I like reading science fiction.")),
    UpdateCase("question back", ("My favourite colour is blue.", "What is your favourite colour?")),
    # groups: five repeats of one request become one item; chit-chat never groups
    UpdateCase("print requests", ("Print the sales report in landscape, please.",
                                  "Landscape orientation again for this invoice printout.",
                                  "Please print the quarterly summary in landscape.",
                                  "Print the sales report in landscape, please.",
                                  "Landscape orientation again for this invoice printout."),
               groups=(frozenset(range(5)),)),
    UpdateCase("thanks", ("Thanks so much for the help with the report!", "Thank you, that was really helpful!",
                          "Thanks again for your help today!", "Thank you so much for helping me!",
                          "Thanks for the help, really appreciated!")),
    UpdateCase("plans questions", ("Any plans for the day ahead?", "Any plans for the weekend ahead?",
                                   "Any plans for today?", "Any plans for the day?", "Any plans for tonight?")),
    UpdateCase("zh requests", ("请把销售报告横向打印", "这张发票还是横向打印", "季度总结也横向打印，谢谢", "请把销售报告横向打印",
                               "这张发票还是横向打印"), groups=(frozenset(range(5)),)),
)


def run_case(case: UpdateCase, embedder, config: HindsightConfig | None = None) -> dict:
    clock = FrozenClock(START)
    with Hindsight(location=":memory:", embedder=embedder, clock=clock, config=config) as memory:
        ids = []
        for text in case.said:
            result = memory.write(text, user_id="u")
            ids.append(result.record.id if result.record is not None else None)
            clock.advance(days=1)
        records = {r.id: r for r in memory.memories(user_id="u")}
    # a repeat merged into an earlier memory shares its id: a memory stands for every position it holds
    positions: dict[str, list[int]] = {}
    for i, memory_id in enumerate(ids):
        if memory_id:
            positions.setdefault(memory_id, []).append(i)
    decided = {(positions[r.superseded_by][0], positions[r.id][0]) for r in records.values()
               if r.superseded_by in positions and r.id in positions}
    groups = [frozenset(i for e in r.derived_from for i in positions.get(e, ()))
              for r in records.values() if r.layer is Layer.SEMANTIC]
    return {"case": case.name, "expected": sorted(case.supersedes), "decided": sorted(decided),
            "expected_groups": [sorted(g) for g in case.groups], "groups": [sorted(g) for g in groups]}


def score_cases(rows: list[dict]) -> dict:
    def pr(decided: int, right: int, expected: int) -> dict:
        return {"decided": decided, "right": right, "expected": expected,
                "precision": round(right / decided, 3) if decided else None,
                "recall": round(right / expected, 3) if expected else None}

    sup_decided = sum(len(r["decided"]) for r in rows)
    sup_right = sum(len(set(map(tuple, r["decided"])) & set(map(tuple, r["expected"]))) for r in rows)
    sup_expected = sum(len(r["expected"]) for r in rows)
    grp_decided = sum(len(r["groups"]) for r in rows)
    grp_right = sum(sum(1 for g in r["groups"] if g in r["expected_groups"]) for r in rows)
    grp_expected = sum(len(r["expected_groups"]) for r in rows)
    return {"supersession": pr(sup_decided, sup_right, sup_expected),
            "consolidation": pr(grp_decided, grp_right, grp_expected)}


def locomo_decisions(path: Path, limit: int | None, embedder, config: HindsightConfig | None = None
                     ) -> tuple[dict, dict[str, dict]]:
    """(the decisions, keyed by dialog ids, with no LoCoMo text; the texts of each decision, for labelling)."""
    supersessions, consolidations, texts, turns_written = [], [], {}, 0
    for conversation in load_locomo(path, limit=limit):
        clock = FrozenClock(conversation.turns[0].timestamp)
        with Hindsight(location=":memory:", embedder=embedder, clock=clock, config=config) as memory:
            policy = TurnLog(memory)
            sessions: dict[int, list] = {}
            for turn in conversation.turns:
                sessions.setdefault(turn.session, []).append(turn)
            for session, turns in sorted(sessions.items()):
                clock.set(max(t.timestamp for t in turns) + timedelta(minutes=5))
                policy.offer([Turn(turn_text(t), Source.USER, t.timestamp) for t in turns],
                             user_id=conversation.sample_id, session_id=f"session-{session}")
                turns_written += len(turns)
            records = {r.id: r for r in memory.memories(user_id=conversation.sample_id)}
        dialog_ids: dict[str, list[str]] = {}
        for turn in conversation.turns:
            dialog_ids.setdefault(turn_text(turn), []).append(turn.dia_id)

        def named(record) -> str:
            """The dialog ids a memory was written from (its text may be said more than once)."""
            return "+".join(dialog_ids.get(record.raw_content, ["?"]))

        for r in records.values():
            if r.superseded_by and r.superseded_by in records:
                new = records[r.superseded_by]
                key = f"{conversation.sample_id}:{named(r)}->{named(new)}"
                supersessions.append({"conversation": conversation.sample_id, "key": key, "label": None})
                texts[key] = {"old": r.raw_content, "new": new.raw_content}
            if r.layer is Layer.SEMANTIC:
                episodes = [records[e] for e in r.derived_from if e in records]
                key = f"{conversation.sample_id}:group:" + ",".join(sorted(named(e) for e in episodes))
                consolidations.append({"conversation": conversation.sample_id, "key": key,
                                       "episodes": len(episodes), "label": None})
                texts[key] = {"knowledge": r.raw_content, "episodes": [e.raw_content for e in episodes]}
    return {"turns": turns_written, "supersessions": supersessions, "consolidations": consolidations}, texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=None, help="LoCoMo conversations (default: all)")
    parser.add_argument("--labels", type=Path, default=LABELS, help="a JSON {key: true|false} of hand labels")
    parser.add_argument("--texts", type=Path, default=CACHE_DIR / "decisions-locomo-texts.json",
                        help="where the decisions' LoCoMo texts go for labelling (kept out of git)")
    parser.add_argument("--as-shipped", action="store_true",
                        help="the default configuration (supersession and consolidation after each write off); "
                             "without it both are on (knowledge_on()), the mechanisms this measures")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "decisions.json")
    args = parser.parse_args()
    # the LoCoMo run's vector cache: the same turns and exchanges, embedded once
    embedder = CachedEmbedder(E5Embedder(), ensure_cache_dir(CACHE_DIR) / "locomo-adapters-multilingual-e5-small.npy")
    config = HindsightConfig() if args.as_shipped else knowledge_on()
    cases = [run_case(case, embedder, config) for case in UPDATE_CASES]
    result = {"benchmark": "decisions", "embedder": embedder.name, "knowledge_on": not args.as_shipped,
              "update_cases": {"cases": cases, "scores": score_cases(cases)}}
    if args.path.exists():
        result["locomo"], texts = locomo_decisions(args.path, args.limit, embedder, config)
        # LoCoMo's text stays out of the repository (CC BY-NC): beside the vector cache, which git ignores
        args.texts.write_text(json.dumps(texts, ensure_ascii=False, indent=1))
        print(f"the decisions' texts, for labelling: {args.texts}")
        labels = json.loads(args.labels.read_text()) if args.labels and args.labels.exists() else {}
        for kind in ("supersessions", "consolidations"):
            rows = result["locomo"][kind]
            for row in rows:
                row["label"] = labels.get(row["key"], row["label"])
            labelled = [row["label"] for row in rows if row["label"] is not None]
            result["locomo"][f"{kind}_labelled"] = {"decisions": len(rows), "labelled": len(labelled),
                                                    "correct": sum(labelled)}
    embedder.save()
    result = write_results(args.out, result, __file__)
    print(json.dumps(result["update_cases"]["scores"], indent=1))
    if "locomo" in result:
        print({k: v for k, v in result["locomo"].items() if k.endswith("labelled") or k == "turns"})
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
