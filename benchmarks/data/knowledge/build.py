"""Builds knowledge.jsonl (one case a line) from the hand-written case files in cases/*.txt.

    python benchmarks/data/knowledge/build.py          # rewrites knowledge.jsonl
    python benchmarks/data/knowledge/build.py --check  # exits 1 if knowledge.jsonl is not what the files give

Another folder of case files builds another set, e.g. the fresh held-out slice:

    python benchmarks/data/knowledge/build.py --cases-dir benchmarks/data/knowledge/fresh \
        --out benchmarks/data/knowledge/fresh.jsonl [--check]

The case files are the source (easy to write and review); the JSONL is what
benchmarks/knowledge.py reads. The format of a case file is in README.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "knowledge.jsonl"
CASES = HERE / "cases"
#: the fresh held-out slice: its case files and the JSONL they build
FRESH_CASES = HERE / "fresh"
FRESH_OUT = HERE / "fresh.jsonl"
#: the held-out slices, each (its case files, its JSONL): written apart from the rules and from each other
HELD_OUT = {"fresh": (FRESH_CASES, FRESH_OUT), "fresh2": (HERE / "fresh2", HERE / "fresh2.jsonl"),
            "fresh3": (HERE / "fresh3", HERE / "fresh3.jsonl"), "fresh4": (HERE / "fresh4", HERE / "fresh4.jsonl"),
            "fresh5": (HERE / "fresh5", HERE / "fresh5.jsonl")}
SPEAKERS = {"U": "user", "A": "agent", "T": "tool"}
KINDS = ("current", "past", "repeated", "recommended", "fact")
LANGS = ("en", "zh", "cross")
#: why a negative label must not become knowledge / must not supersede (`@kind` in a case file)
NEGATIVE_KINDS = ("question", "greeting", "agent", "tool", "hypothetical", "other-person", "story", "quote",
                  "one-off", "restatement")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_TURN = re.compile(r"^(?P<id>[A-Za-z]\w*)\s+(?P<who>[UAT]):\s*(?P<text>.+)$")
_DAY = re.compile(r"^--\s*day\s+(?P<day>\d+)\s+(?P<hh>\d\d):(?P<mm>\d\d)\s*$")


class CaseError(ValueError):
    """A case file that does not follow the format (the message names the file and line)."""


def language(text: str) -> str:
    return "zh" if _CJK.search(text) else "en"


def _ids(part: str) -> list[str]:
    return part.split()


def parse(text: str, origin: str) -> list[dict]:
    cases: list[dict] = []
    case: dict | None = None
    clock: datetime | None = None

    def fail(n: int, message: str) -> CaseError:
        return CaseError(f"{origin}:{n}: {message}")

    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("==="):
            parts = line[3:].split()
            if len(parts) != 3 or parts[1] not in LANGS:
                raise fail(n, "a case starts with '=== <id> <en|zh|cross> <YYYY-MM-DD>'")
            start = datetime.fromisoformat(parts[2]).replace(tzinfo=timezone.utc)
            case = {"id": parts[0], "lang": parts[1], "user": f"user-{parts[0]}", "start": start,
                    "turns": [], "groups": [], "changes": [], "questions": []}
            cases.append(case)
            clock = None
            continue
        if case is None:
            raise fail(n, "text before the first '===' line")
        if m := _DAY.match(line):
            clock = case["start"] + timedelta(days=int(m["day"]), hours=int(m["hh"]), minutes=int(m["mm"]))
            continue
        if m := _TURN.match(line):
            if clock is None:
                raise fail(n, "a turn before the first '-- day N HH:MM' line")
            case["turns"].append({"id": m["id"], "at": clock.isoformat(), "speaker": SPEAKERS[m["who"]],
                                  "text": m["text"].strip()})
            clock += timedelta(minutes=2)
            continue
        head, _, note = line.partition("::")
        words = head.split()
        if not words:
            raise fail(n, f"cannot read {line!r}")
        label = words[0]
        if label in ("group+", "group-", "change+", "change-"):
            kinds = [w[1:] for w in words[1:] if w.startswith("@")]
            words = [w for w in words if not w.startswith("@")]
            positive = label.endswith("+")
            if positive and kinds:
                raise fail(n, "only a negative label names why (@kind)")
            if not positive and (len(kinds) != 1 or kinds[0] not in NEGATIVE_KINDS):
                raise fail(n, f"a negative label names why, one of @{', @'.join(NEGATIVE_KINDS)}")
            why = {} if positive else {"why": kinds[0]}
        if label in ("group+", "group-"):
            case["groups"].append({"turns": words[1:], "positive": positive, **why, "note": note.strip()})
        elif label in ("change+", "change-"):
            old, sep, new = " ".join(words[1:]).partition(">")
            if not sep:
                raise fail(n, "a change is 'change± OLD... > NEW... :: note'")
            case["changes"].append({"old": _ids(old), "new": _ids(new), "positive": positive, **why,
                                    "note": note.strip()})
        elif label == "Q":
            if len(words) < 3 or words[1] not in KINDS:
                raise fail(n, f"a question is 'Q <{'|'.join(KINDS)}> EVIDENCE... [!STALE...] :: question'")
            evidence = [w for w in words[2:] if not w.startswith("!")]
            stale = [w[1:] for w in words[2:] if w.startswith("!")]
            question = note.strip()
            case["questions"].append({"question": question, "kind": words[1], "lang": language(question),
                                      "evidence": evidence, "stale": stale})
        else:
            raise fail(n, f"cannot read {line!r}")
    for c in cases:
        check(c, origin)
        c.pop("start")
    return cases


def check(case: dict, origin: str) -> None:
    known = [t["id"] for t in case["turns"]]
    if len(set(known)) != len(known):
        raise CaseError(f"{origin}: {case['id']}: turn ids repeat")
    named = [i for g in case["groups"] for i in g["turns"]]
    named += [i for c in case["changes"] for i in c["old"] + c["new"]]
    named += [i for q in case["questions"] for i in q["evidence"] + q["stale"]]
    unknown = sorted(set(named) - set(known))
    if unknown:
        raise CaseError(f"{origin}: {case['id']}: labels name unknown turns {unknown}")
    for group in case["groups"]:
        if len(group["turns"]) < 2:
            raise CaseError(f"{origin}: {case['id']}: a group needs at least two turns")
    for change in case["changes"]:
        if not change["old"] or not change["new"]:
            raise CaseError(f"{origin}: {case['id']}: a change needs old and new turns")
    for question in case["questions"]:
        if not question["evidence"] or not question["question"]:
            raise CaseError(f"{origin}: {case['id']}: a question needs its text and evidence")


def build(cases_dir: Path = CASES) -> str:
    paths = sorted(cases_dir.glob("*.txt"))
    if not paths:
        raise CaseError(f"no case files (*.txt) in {cases_dir}")
    cases: list[dict] = []
    for path in paths:
        cases += parse(path.read_text(encoding="utf-8"), path.name)
    ids = [c["id"] for c in cases]
    if len(set(ids)) != len(ids):
        raise CaseError("case ids repeat across files")
    return "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 if --out is not what the case files give")
    parser.add_argument("--cases-dir", type=Path, default=CASES, help="the folder of case files (*.txt)")
    parser.add_argument("--out", type=Path, default=OUT, help="the JSONL to write or check")
    args = parser.parse_args(argv)
    text = build(args.cases_dir)
    out = args.out
    if args.check:
        same = out.exists() and out.read_text(encoding="utf-8") == text
        print(f"{out.name} is up to date" if same
              else f"{out.name} differs from {args.cases_dir.name}/: run build.py")
        return 0 if same else 1
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out} ({text.count(chr(10))} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
