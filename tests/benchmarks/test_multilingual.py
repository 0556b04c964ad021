"""The Chinese and mixed-language benchmark: its data holds what it promises, and the runner works on a slice."""

from __future__ import annotations

import json

from benchmarks import multilingual
import pytest

from hindsight_core.testing import FakeEmbedder


def test_the_shipped_data_covers_languages_users_and_the_issues_examples():
    users = multilingual.load(multilingual.DEFAULT_DATA)
    questions = [(u, q) for u in users for q in u.questions]
    assert len(users) >= 4 and len(questions) >= 40
    pairs = {multilingual._pair(q, {m.id: m for m in u.memories}) for u, q in questions}
    assert {"zh->zh", "en->zh", "zh->en", "en->en", "en->mixed", "zh->mixed"} <= pairs
    asked = {q.query: q.gold for _, q in questions}
    memories = {m.id: m.text for u in users for m in u.memories}
    assert memories[asked["我的猫叫什么名字？"][0]].startswith("我家猫叫“团子”")
    assert "PostgreSQL" in memories[asked["which database does my team use?"][0]]
    for user in users:  # memories span several days, and some come after every gold memory (distractors)
        days = {m.at.date() for m in user.memories}
        last_gold = max(m.at for m in user.memories if any(m.id in q.gold for q in user.questions))
        assert len(days) >= 7 and any(m.at > last_gold for m in user.memories)


def test_unknown_gold_ids_are_refused(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"user": "u", "asked": "2026-03-15T10:00:00+00:00",
                                "memories": [{"id": "a", "at": "2026-03-01T09:00:00+00:00", "lang": "en",
                                              "text": "I keep bees on the roof."}],
                                "queries": [{"query": "bees?", "gold": ["b"], "lang": "en"}]}) + "\n")
    with pytest.raises(ValueError, match="unknown memories"):
        multilingual.load(path)


def test_a_slice_end_to_end(tmp_path):
    user = {"user": "u", "asked": "2026-03-15T10:00:00+00:00",
            "memories": [{"id": "bees", "at": "2026-03-01T09:00:00+00:00", "lang": "en",
                          "text": "I keep three beehives on the roof of our building."},
                         {"id": "cat", "at": "2026-03-05T09:00:00+00:00", "lang": "zh", "text": "我家猫叫团子，是一只橘猫。"},
                         {"id": "hi", "at": "2026-03-06T09:00:00+00:00", "lang": "en", "text": "Thanks!"},
                         {"id": "bike", "at": "2026-03-10T09:00:00+00:00", "lang": "en",
                          "text": "Bought a second-hand road bike for commuting."}],
            "queries": [{"query": "How many beehives do I keep?", "gold": ["bees"], "lang": "en"},
                        {"query": "我的猫叫什么？", "gold": ["cat"], "lang": "zh"},
                        {"query": "What did I say hello with?", "gold": ["hi"], "lang": "en"}]}
    data = tmp_path / "slice.jsonl"
    data.write_text(json.dumps(user, ensure_ascii=False) + "\n")
    out = tmp_path / "multilingual.json"
    args = multilingual.parse_args(["--data", str(data), "--decay", "off", "--out", str(out)])
    report = multilingual.run(args, embedders={"fake": FakeEmbedder()})
    assert json.loads(out.read_text()) == report
    result = report["runs"]["fake, decay off"]
    assert result["memories"] == {"offered": 4, "stored": 3}  # the gate skips "Thanks!"
    ranks = {row["query"]: row["rank"] for row in result["questions"]}
    assert ranks["How many beehives do I keep?"] == 1 and ranks["我的猫叫什么？"] == 1
    assert ranks["What did I say hello with?"] is None  # never stored, so never found
    assert result["overall"] == {"questions": 3, "recall@1": 66.7, "recall@5": 66.7}
    assert result["by_pair"]["zh->zh"] == {"questions": 1, "recall@1": 100.0, "recall@5": 100.0}
