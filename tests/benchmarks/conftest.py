"""Fixtures for the benchmark smoke tests: a tiny LoCoMo-shaped file (the scripts are the `benchmarks` package's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def tiny_sample(sample_id: str, a: str, b: str) -> dict:
    """Two sessions a week apart, one shared photo, one question per category (made up, not LoCoMo's text)."""
    conversation = {
        "speaker_a": a, "speaker_b": b,
        "session_1_date_time": "10:05 am on 3 March, 2024",
        "session_1": [
            {"speaker": a, "dia_id": "D1:1", "text": f"Hi {b}! How was your week?"},
            {"speaker": b, "dia_id": "D1:2", "text": "Busy! I adopted a grey parrot called Zorblax from the shelter."},
            {"speaker": a, "dia_id": "D1:3", "text": "I started pottery classes at the community studio downtown."},
            {"speaker": b, "dia_id": "D1:4", "text": "Look what I baked for the neighbours.",
             "blip_caption": "a photo of a lemon meringue pie on a table", "img_url": ["x"], "query": "pie"},
            {"speaker": a, "dia_id": "D1:5", "text": "Ok, thanks!"},
        ],
        "session_2_date_time": "7:40 pm on 10 March, 2024",
        "session_2": [
            {"speaker": a, "dia_id": "D2:1", "text": "My pottery teacher says my bowls are getting better."},
            {"speaker": b, "dia_id": "D2:2", "text": "Zorblax learned to whistle the theme from an old cartoon."},
            {"speaker": a, "dia_id": "D2:3", "text": "I am planning a trip to Lisbon in May with my sister."},
        ],
    }
    qa = [
        {"question": f"What is the name of the parrot {b} adopted from the shelter?", "answer": "a grey parrot", "evidence": ["D1:2"],
         "category": 4},
        {"question": f"When did {a} start pottery classes?", "answer": "March 2024", "evidence": ["D1:3; D2:1"],
         "category": 2},
        {"question": f"What did {b} bake?", "answer": "a lemon meringue pie", "evidence": ["D:1:4"], "category": 1},
        {"question": f"Where is {a} travelling in May?", "answer": "Lisbon", "evidence": ["D2:03", "D"],
         "category": 5, "adversarial_answer": "Paris"},
        {"question": f"Would {a} enjoy a ceramics museum?", "answer": "probably", "evidence": [], "category": 3},
    ]
    return {"sample_id": sample_id, "conversation": conversation, "qa": qa}


@pytest.fixture
def tiny_locomo(tmp_path) -> Path:
    path = tmp_path / "tiny_locomo.json"
    path.write_text(json.dumps([tiny_sample("conv-a", "Ana", "Ben"), tiny_sample("conv-b", "Chloe", "Dev")]))
    return path
