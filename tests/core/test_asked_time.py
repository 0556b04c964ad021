"""What a question asks about in time, and how recall weighs a superseded memory for it."""

from datetime import datetime, timezone

import pytest

from hindsight_core.config import RecallConfig
from hindsight_core.language.asked_time import asked_time
from hindsight_core.recall.plan import time_priors, weights_for

NOW = datetime(2026, 3, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize("query, expected", [
    ("What do I drink?", "present"), ("我现在用什么数据库？", "present"), ("我对什么过敏？", "present"),
    ("When did Caroline go to the support group?", "past"), ("Where was she born?", "past"),
    ("What phone did I use to have?", "past"), ("你以前住在哪里？", "past"), ("你吃饭了吗？", "past"),
    ("What did Melanie paint last year?", "date"), ("我上个月买了什么？", "date"),
    ("Tom: Hi!\nTom: What did I do in May 2023?", "date"),
    ("Tom: What did I do in May 2023?\nTom: and what do I use now?", "present"),  # the last line is asked
])
def test_a_question_is_classed_by_its_grammar_and_the_dates_it_names(query, expected):
    assert asked_time(query, NOW) == expected


@pytest.mark.parametrize("query, weight", [
    ("Which database do we use?", 0.3), ("我们用什么数据库？", 0.3),
    ("Which database did we use?", 1.0), ("我们以前用什么数据库？", 1.0), ("What did we use in May 2025?", 1.0),
])
def test_only_a_question_about_the_present_lets_a_superseded_memory_step_back(query, weight):
    recall = RecallConfig(superseded_weight=0.3)
    assert weights_for(query, recall, time_priors(query, NOW)).superseded_weight == weight
    off = RecallConfig(superseded_weight=0.3, supersede_in_present_only=False)
    assert weights_for(query, off, time_priors(query, NOW)).superseded_weight == 0.3
