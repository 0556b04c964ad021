"""LoCoMo loading, evidence cleaning, turn texts and the recall metrics, against hand-worked values."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from benchmarks.locomo import LocomoFormatError, load_locomo, normalise_evidence, parse_session_date, turn_text
from benchmarks.metrics import any_hit_at_k, recall_at_k, summarise


def test_session_dates_parse_to_utc():
    assert parse_session_date("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    assert parse_session_date("12:09 am on 13 September, 2023") == datetime(2023, 9, 13, 0, 9, tzinfo=timezone.utc)
    assert parse_session_date("12:30 pm on 1 January, 2024").hour == 12
    with pytest.raises(LocomoFormatError, match="not like"):
        parse_session_date("yesterday")


def test_malformed_evidence_is_cleaned_where_unambiguous():
    known = {"D8:6", "D9:17", "D11:26", "D30:5", "D4:4"}
    assert normalise_evidence(["D8:6; D9:17"], known) == (("D8:6", "D9:17"), ())
    assert normalise_evidence(["D:11:26", "D30:05", "D4:4 D8:6"], known) == (("D11:26", "D30:5", "D4:4", "D8:6"), ())
    assert normalise_evidence(["D", "D10:19", "D8:6", "D8:6"], known) == (("D8:6",), ("D", "D10:19"))
    assert normalise_evidence([], known) == ((), ())


def test_tiny_file_loads_with_sessions_captions_and_clean_evidence(tiny_locomo):
    conversations = load_locomo(tiny_locomo)
    assert [c.sample_id for c in conversations] == ["conv-a", "conv-b"]
    first = conversations[0]
    assert len(first.turns) == 8 and first.turns[5].session == 2
    assert first.turns[3].caption == "a photo of a lemon meringue pie on a table"
    assert first.last_time == datetime(2024, 3, 10, 19, 40, tzinfo=timezone.utc)
    evidence = [q.evidence for q in first.questions]
    assert evidence == [("D1:2",), ("D1:3", "D2:1"), ("D1:4",), ("D2:3",), ()]
    assert first.questions[3].dropped_evidence == ("D",)
    assert len(load_locomo(tiny_locomo, limit=1)) == 1


def test_turn_text_formats(tiny_locomo):
    pie = load_locomo(tiny_locomo)[0].turns[3]
    assert turn_text(pie, "plain") == "Look what I baked for the neighbours. [shared a photo: a photo of a lemon " \
                                      "meringue pie on a table]"
    assert turn_text(pie, "speaker", caption=False) == "Ben: Look what I baked for the neighbours."
    assert turn_text(pie, "speaker_date").startswith("[3 March 2024] Ben: Look what")
    with pytest.raises(ValueError, match="text format"):
        turn_text(pie, "html")


@pytest.mark.parametrize("content, message", [
    ({"not": "a list"}, "expected a list"),
    ([{"sample_id": "x", "qa": []}], "missing 'conversation'"),
    ([{"sample_id": "x", "conversation": {"speaker_a": "A", "speaker_b": "B",
                                          "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}}],
     "missing 'session_1_date_time'"),
])
def test_files_outside_the_schema_get_a_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(content))
    with pytest.raises(LocomoFormatError, match=message):
        load_locomo(path)


def test_missing_file_names_where_the_data_lives(tmp_path):
    with pytest.raises(LocomoFormatError, match="locomo10.json"):
        load_locomo(tmp_path / "nope.json")


def test_recall_and_any_hit_by_hand():
    ranked = [("D1:1",), ("D2:2", "D2:3"), ("D9:9",)]
    assert recall_at_k(ranked, ("D2:3", "D5:5"), 5) == 0.5
    assert recall_at_k(ranked, ("D2:3", "D5:5"), 1) == 0.0
    assert recall_at_k(ranked, ("D1:1", "D2:2", "D2:3"), 2) == 1.0
    assert recall_at_k(ranked, (), 5) == 1.0  # no evidence counts as found, as in the paper
    assert any_hit_at_k(ranked, ("D9:9", "D7:7"), 3) == 1.0
    assert any_hit_at_k(ranked, ("D9:9", "D7:7"), 2) == 0.0


def test_summary_groups_by_category_name():
    rows = [{"category": 4, "recall@5": 1.0, "recall@10": 1.0, "hit@5": 1.0, "tokens": 100, "latency_ms": 2.0},
            {"category": 4, "recall@5": 0.0, "recall@10": 0.5, "hit@5": 0.0, "tokens": 300, "latency_ms": 4.0},
            {"category": 2, "recall@5": 0.5, "recall@10": 1.0, "hit@5": 1.0, "tokens": 200, "latency_ms": None}]
    summary = summarise(rows)
    assert summary["single-hop"]["recall@5"] == 50.0 and summary["single-hop"]["tokens"] == 200.0
    assert summary["temporal"]["questions"] == 1 and "latency" not in summary["temporal"]
    assert summary["overall"]["recall@5"] == 50.0 and summary["overall"]["recall@10"] == pytest.approx(83.3)
    assert summary["overall"]["latency"]["p50_ms"] == 3.0
