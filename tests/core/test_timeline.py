"""What is true now is decided when recalling (`recall.timeline`): the user's statements on one subject go in the
order of the time the question asks about, and an agent's answer never goes before the user's words it answers."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from hindsight_core import Explanation, MemoryRecord, ScoredMemory, Source
from hindsight_core.config import RecallConfig
from hindsight_core.recall.timeline import DATE, PAST, PRESENT, ordered

DAY0 = datetime(2026, 3, 1, tzinfo=timezone.utc)
RECALL = RecallConfig(same_subject_similarity=0.8)
#: two subjects, as unit vectors: statements on one are at cosine 0.9 or more, across the two at 0
STEAK, PEANUT = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])


def near(axis: np.ndarray, turn: float) -> np.ndarray:
    """A unit vector `turn` radians from `axis`, in the plane of the axis and the third dimension."""
    v = np.cos(turn) * axis + np.sin(turn) * np.array([0.0, 0.0, 1.0])
    return v / np.linalg.norm(v)


def said(text: str, day: int, *, source: Source = Source.USER, context: str | None = None,
         superseded_by: str | None = None) -> ScoredMemory:
    record = MemoryRecord(id=text, user_id="u", summary=text, raw_content=text, timestamp=DAY0 + timedelta(days=day),
                          source=source, context=context, superseded_by=superseded_by)
    return ScoredMemory(record, 0.03, 0.9, Explanation(1, 0.9, None, 0.0, 0.03, 0.9, "episodic", 0.03))


def texts(results: list[ScoredMemory]) -> list[str]:
    return [r.memory.raw_content for r in results]


RIBEYE, VEGETARIAN = "I love a good ribeye steak, medium rare.", "I've gone vegetarian, no more steak."
ALLERGY = "I'm allergic to peanuts."
VECTORS = {RIBEYE: near(STEAK, 0.0), VEGETARIAN: near(STEAK, 0.3), ALLERGY: near(PEANUT, 0.0)}


def test_for_the_present_the_later_statement_on_a_subject_goes_first_in_the_places_the_subject_holds():
    results = [said(RIBEYE, 1), said(ALLERGY, 5), said(VEGETARIAN, 3)]
    out = ordered(results, VECTORS, PRESENT, RECALL, 5)
    assert texts(out) == [VEGETARIAN, ALLERGY, RIBEYE]  # the allergy, another subject, keeps its place
    assert out[2].later == (VEGETARIAN,) and out[0].later == () and out[1].later == ()


def test_for_the_past_the_earlier_statement_goes_first():
    results = [said(VEGETARIAN, 3), said(ALLERGY, 5), said(RIBEYE, 1)]
    assert texts(ordered(results, VECTORS, PAST, RECALL, 5)) == [RIBEYE, ALLERGY, VEGETARIAN]


def test_a_question_naming_a_date_keeps_the_order_the_time_priors_gave():
    results = [said(RIBEYE, 1), said(VEGETARIAN, 3)]
    out = ordered(results, VECTORS, DATE, RECALL, 5)
    assert texts(out) == [RIBEYE, VEGETARIAN] and out[0].later == (VEGETARIAN,)


def test_a_repeat_merged_into_a_statement_counts_from_when_it_was_said_last():
    old = said(RIBEYE, 1)
    again = ScoredMemory(old.memory.evolve(last_confirmed=DAY0 + timedelta(days=9)), 0.03, 0.9, old.explanation)
    assert texts(ordered([said(VEGETARIAN, 3), again], VECTORS, PRESENT, RECALL, 5)) == [RIBEYE, VEGETARIAN]


def test_a_question_or_someone_elses_words_are_on_no_subject():
    question = "Should I go vegetarian and give up steak?"
    agent = "Steak is off the menu, then."
    vectors = {**VECTORS, question: near(STEAK, 0.2), agent: near(STEAK, 0.1)}
    results = [said(RIBEYE, 1), said(question, 4), said(agent, 6, source=Source.AGENT)]
    assert texts(ordered(results, vectors, PRESENT, RECALL, 5)) == [RIBEYE, question, agent]


def test_a_supersession_made_when_writing_joins_two_statements_whatever_their_vectors():
    results = [said(RIBEYE, 1, superseded_by=ALLERGY), said(ALLERGY, 5)]
    assert texts(ordered(results, VECTORS, PRESENT, RECALL, 5)) == [ALLERGY, RIBEYE]


def test_a_new_value_said_twice_is_one_subject_with_the_old_one_through_either_telling():
    """Only the first telling of the new value is close to the old one; the second, close to the first, leads."""
    first, second = "We moved the app to Postgres.", "Postgres has been fast since the move."
    vectors = {RIBEYE: near(STEAK, 0.0), first: near(STEAK, 0.5), second: near(STEAK, 1.0)}
    assert float(vectors[RIBEYE] @ vectors[second]) < RECALL.same_subject_similarity
    results = [said(RIBEYE, 1), said(first, 3), said(second, 4)]
    assert texts(ordered(results, vectors, PRESENT, RECALL, 5)) == [second, first, RIBEYE]
    assert texts(ordered(results[::-1], vectors, PAST, RECALL, 5)) == [RIBEYE, first, second]


@pytest.mark.parametrize("asked", [PRESENT, PAST, DATE])
def test_an_agents_answer_never_stands_above_the_users_words_it_answers_when_both_are_shown(asked):
    ack = said("Understood, vegetarian from now on.", 3, source=Source.AGENT, context=VEGETARIAN)
    vectors = {**VECTORS, ack.memory.raw_content: near(STEAK, 0.25)}
    out = ordered([ack, said(ALLERGY, 5), said(VEGETARIAN, 3)], vectors, asked, RECALL, 3)
    assert texts(out) == [VEGETARIAN, ALLERGY, ack.memory.raw_content]
    # the statement below what is shown, which the answer restates (close vectors): for the present it takes the
    # answer's place; asked about the past or a date, what the assistant said then keeps its place
    below = ordered([ack, said(ALLERGY, 5), said(VEGETARIAN, 3)], vectors, asked, RECALL, 2)
    if asked == PRESENT:
        assert sorted(texts(below)[:2]) == sorted([VEGETARIAN, ALLERGY]) and texts(below)[2] == ack.memory.raw_content
    else:
        assert texts(below)[:2] == [ack.memory.raw_content, ALLERGY]


@pytest.mark.parametrize("source, turn", [(Source.AGENT, 1.2), (Source.TOOL, 0.25)])
def test_an_answer_that_says_something_else_or_a_tools_report_keeps_its_place_over_a_statement_below(source, turn):
    """An agent's advice far from the statement it answers ("Try the market at dawn"), and what a tool reports
    (it holds the fact), stay shown above the statement below them."""
    answer = said("Try the market at dawn.", 3, source=source, context=VEGETARIAN)
    vectors = {**VECTORS, answer.memory.raw_content: near(STEAK, turn)}
    out = ordered([answer, said(ALLERGY, 5), said(VEGETARIAN, 3)], vectors, PRESENT, RECALL, 2)
    assert texts(out) == [answer.memory.raw_content, ALLERGY, VEGETARIAN]


def test_only_the_first_candidates_are_ordered_and_no_statement_is_taken_out():
    results = [said(RIBEYE, 1), said(ALLERGY, 5), said(VEGETARIAN, 3)]
    shallow = RecallConfig(same_subject_similarity=0.8, timeline_depth=2)  # or shown=2: the same
    assert texts(ordered(results, VECTORS, PRESENT, shallow, 5)) == [RIBEYE, ALLERGY, VEGETARIAN]
    assert sorted(texts(ordered(results, VECTORS, PRESENT, RECALL, 5))) == sorted(texts(results))


def test_the_block_shows_the_earlier_statement_as_earlier_with_both_dates():
    from hindsight_core import format_for_prompt
    from hindsight_core.recall.formatting import EARLIER_MARK

    block = format_for_prompt(ordered([said(RIBEYE, 1), said(VEGETARIAN, 3)], VECTORS, PRESENT, RECALL, 5))
    lines = block.splitlines()
    assert any(EARLIER_MARK in line for line in lines)
    [new] = [line for line in lines if VEGETARIAN in line]
    [old] = [line for line in lines if RIBEYE in line]
    assert lines.index(new) < lines.index(old)
    assert new.startswith("- [2026-03-04]") and "earlier" not in new
    assert old.startswith("- [2026-03-02] (earlier)")


def test_an_answer_to_a_statement_stands_on_its_subject_at_its_time():
    """The assistant's acknowledgements carry the statements they answer: for the present, the one answering the
    later statement goes first, whichever the engine ranked higher."""
    noted = said("Noted: ribeye, medium rare.", 1, source=Source.AGENT, context=RIBEYE)
    understood = said("Understood, vegetarian from now on.", 3, source=Source.AGENT, context=VEGETARIAN)
    vectors = {**VECTORS, noted.memory.raw_content: near(STEAK, 0.05), understood.memory.raw_content: near(STEAK, 0.2)}
    results = [noted, understood, said(RIBEYE, 1), said(VEGETARIAN, 3)]
    out = texts(ordered(results, vectors, PRESENT, RECALL, 4))
    assert out.index(understood.memory.raw_content) < out.index(noted.memory.raw_content)
    assert out.index(VEGETARIAN) < out.index(RIBEYE)
