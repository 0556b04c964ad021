"""The knowledge set: its data is well formed and built from its case files, and the runner works on a slice."""

from __future__ import annotations

import json

from benchmarks import knowledge
import pytest

from benchmarks.data.knowledge import build  # noqa: E402


#: the main set and the held-out slices (written later, apart, to measure rules tuned on the main set)
DATA_SETS = pytest.mark.parametrize("data", [knowledge.DEFAULT_DATA, *(out for _, out in build.HELD_OUT.values())],
                                    ids=["main", *build.HELD_OUT])


def test_the_jsonl_is_what_the_case_files_give():
    assert build.main(["--check"]) == 0


@pytest.mark.parametrize("name", list(build.HELD_OUT))
def test_a_held_out_slice_is_what_its_case_files_give_and_shares_no_case_with_another_set(tmp_path, name):
    folder, jsonl = build.HELD_OUT[name]
    assert build.main(["--cases-dir", str(folder), "--out", str(jsonl), "--check"]) == 0
    held_out = knowledge.load(jsonl)
    assert {c.lang for c in held_out} == set(knowledge.LANGS)
    others = [c for other in [knowledge.DEFAULT_DATA, *(out for n, (_, out) in build.HELD_OUT.items() if n != name)]
              for c in knowledge.load(other)]
    assert not {c.id for c in held_out} & {c.id for c in others}

    def sentences(cases):  # longer than a greeting ("Good morning!", "早上好！" may well recur)
        return {t.text for c in cases for t in c.turns if len(t.text) > 24}
    assert not sentences(held_out) & sentences(others)  # its own writing, no turn copied over
    # --out writes elsewhere and leaves the default set alone
    out = tmp_path / jsonl.name
    assert build.main(["--cases-dir", str(folder), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == jsonl.read_text(encoding="utf-8")
    with pytest.raises(build.CaseError, match="no case files"):
        build.build(tmp_path)


@DATA_SETS
def test_every_case_names_only_its_own_turns_and_is_dated(data):
    cases = knowledge.load(data)
    assert {c.lang for c in cases} <= set(knowledge.LANGS)
    for case in cases:
        ids = {t.id for t in case.turns}
        assert len({t.at.date() for t in case.turns}) >= 2, case.id  # over days, not one sitting
        assert all(set(g["turns"]) <= ids for g in case.groups)
        assert all(set(c["old"]) <= ids and set(c["new"]) <= ids for c in case.changes)
        assert all(set(q["evidence"]) <= ids and set(q["stale"]) <= ids for q in case.questions)


def test_a_malformed_case_is_refused_with_its_line():
    with pytest.raises(build.CaseError, match="x.txt: c1: labels name unknown turns"):
        build.parse("=== c1 en 2026-01-01\n-- day 0 09:00\nu1 U: I keep bees.\nQ fact u9 :: bees?\n", "x.txt")


@pytest.mark.model
def test_a_slice_end_to_end(tmp_path, real_embedder):
    from benchmarks.recipes import E5Vectors

    out = tmp_path / "knowledge.json"
    consolidation = next(name for name in knowledge.VARIANTS if "consolidation" in name)
    args = knowledge.parse_args(["--cases", "2", "--no-cache", "--out", str(out), "--baselines", "bm25",
                                 "e5 dense (query side)", "--variants", consolidation])
    report = knowledge.run(args, vectors=E5Vectors(None, inner=real_embedder))
    assert json.loads(out.read_text()) == report
    assert report["data"]["overall"]["cases"] == 2 and {"date", "command"} <= set(report)
    # the variant turns consolidation the other way from the default: with it off, no knowledge forms
    off = consolidation if knowledge.SemanticConfig().auto_consolidate else knowledge.HINDSIGHT
    assert report["systems"][off]["groups"]["overall"]["formed"] == 0
    ours = report["systems"][knowledge.HINDSIGHT]
    assert 0 < ours["offered"] <= report["data"]["overall"]["turns"] and ours["memories"] > 0
    for kind, made in (("groups", "formed"), ("changes", "made")):
        overall = ours[kind]["overall"]
        assert 0 <= overall[f"{made}_right"] <= overall[made]
        assert 0 <= overall["positives_found"] <= overall["positives"]
        assert 0 <= overall["negatives_violated"] <= overall["negatives"]
        kinds = ours[kind]["negatives_by_kind"]
        assert sum(t["negatives"] for t in kinds.values()) == overall["negatives"]
        assert sum(t["violated"] for t in kinds.values()) == overall["negatives_violated"]
    assert set(report["systems"]) == {knowledge.HINDSIGHT, consolidation, "bm25 over turns", "bm25 over exchanges",
                                      "e5 dense (query side) over turns", "e5 dense (query side) over exchanges"}
    for name, system in report["systems"].items():
        overall = system["questions"]["overall"]
        assert overall["questions"] == report["data"]["overall"]["questions"], name
        assert 0 <= overall["recall@5"] <= overall["recall@10"] <= 100, name
        assert 0 <= overall["evidence_in_block@5"] <= 100 and 0 <= overall["current_first@5"] <= 100, name


@pytest.mark.model
def test_the_ablations_ask_the_set_through_the_same_runner(tmp_path, real_embedder):
    from benchmarks import ablations
    from benchmarks.recipes import E5Vectors, Recipe

    data = tmp_path / "two.jsonl"
    data.write_text("".join(knowledge.DEFAULT_DATA.read_text(encoding="utf-8").splitlines(keepends=True)[:2]))
    bench = ablations.knowledge_bench(E5Vectors(None, inner=real_embedder), 2, data)
    (column, asked), = bench.questions.items()
    rows = bench.hindsight(Recipe())[column]
    assert len(rows) == asked > 0
    assert all(0 <= r["r5"] <= 1 and 0 <= r["block"] <= 1 and r["tokens"] >= 0 for r in rows)
    assert {r["class"] for r in rows} <= {"date", "past", "present"}
    assert {column} == {c for figures in bench.baselines().values() for c in figures}


@pytest.mark.model
def test_the_steps_a_group_fails_at_are_tallied_on_a_slice(tmp_path, real_embedder):
    from benchmarks import knowledge_steps
    from benchmarks.recipes import E5Vectors

    out = tmp_path / "steps.json"
    report = knowledge_steps.run(knowledge_steps.parse_args(["--cases", "2", "--no-madial", "--out", str(out)]),
                                 vectors=E5Vectors(None, inner=real_embedder))
    assert json.loads(out.read_text()) == report and set(report["views"]) == set(knowledge_steps.VIEWS)
    assert "madial" not in report and report["stands_out"] == knowledge_steps.grouping.GROUP_STANDS_OUT
    positives = sum(1 for c in knowledge.load(cases=2) for g in c.groups if g["positive"])
    for view in report["views"].values():
        assert sum(view["positives_failing_at"].values()) == positives
        assert set(view["positives_failing_at"]) == set(knowledge_steps.STEPS)
    # every positive row names the step it failed at
    assert all(r["step"] in knowledge_steps.STEPS for r in report["rows"] if r["positive"])
    # another stand-out level and room for one run, put back afterwards
    configured = knowledge_steps.grouping.GROUP_STANDS_OUT, knowledge_steps.grouping.GROUP_ROOM
    other = knowledge_steps.run(knowledge_steps.parse_args(["--cases", "1", "--no-madial", "--stands-out", "3.5",
                                                            "--room", "2", "--out", str(out)]),
                                vectors=E5Vectors(None, inner=real_embedder))
    assert (other["stands_out"], other["room"]) == (3.5, 2)
    assert (knowledge_steps.grouping.GROUP_STANDS_OUT, knowledge_steps.grouping.GROUP_ROOM) == configured


def test_scoring_rules():
    assert knowledge.matches_group({"a", "b", "c"}, ["a", "b", "c", "d"])
    assert not knowledge.matches_group({"a", "x", "y"}, ["a", "b", "c"])  # mostly other turns
    assert not knowledge.matches_group({"a"}, ["a", "b"])  # one turn is no group
    assert knowledge.answers_first([("new",), ("old",)], ["new"], ["old"]) == 1.0
    assert knowledge.answers_first([("old",), ("new",)], ["new"], ["old"]) == 0.0
    assert knowledge.answers_first([("x",)] * 5 + [("new",)], ["new"], ["old"]) == 0.0
    assert knowledge.answers_first([("new", "old")], ["new"], ["old"]) == 0.0  # one memory holding both


def test_a_question_about_the_past_has_the_newer_value_as_its_stale_turns():
    case = next(c for c in knowledge.load() if any(q["kind"] == "past" for q in c.questions))
    past = next(q for q in case.questions if q["kind"] == "past")
    newer = {t for c in case.changes if c["positive"] and set(past["evidence"]) & set(c["old"]) for t in c["new"]}
    assert knowledge.stale_for(case, past) == sorted(newer - set(past["evidence"])) and newer
    current = next(q for q in case.questions if q["kind"] == "current")
    assert knowledge.stale_for(case, current) == current["stale"]


def test_filler_adds_unlabelled_exchanges_in_the_cases_language_before_its_turns():
    pool = json.loads(knowledge.FILLER.read_text(encoding="utf-8"))
    case = next(c for c in knowledge.load() if c.lang == "zh")
    padded = knowledge.with_filler(case, 6, pool)
    added = [t for t in padded.turns if t.id.startswith("filler-")]
    assert len(added) == 12 and {t.speaker for t in added} == {"user", "agent"}
    assert all(build.language(t.text) == "zh" for t in added)
    assert [t.at for t in padded.turns] == sorted(t.at for t in padded.turns)
    assert padded.questions == case.questions and padded.groups == case.groups
    assert knowledge.with_filler(case, 6, pool) == padded  # the same draw every run


@DATA_SETS
def test_every_negative_says_why_and_a_positive_does_not(data):
    for case in knowledge.load(data):
        for label in case.groups + case.changes:
            assert ("why" in label) != label["positive"], (case.id, label)
            assert label.get("why", "question") in build.NEGATIVE_KINDS
    with pytest.raises(build.CaseError, match="names why"):
        build.parse("=== c1 en 2026-01-01\n-- day 0 09:00\nu1 U: Hi.\n-- day 1 09:00\nu2 U: Hi.\n"
                    "group- u1 u2 :: greetings\n", "x.txt")
