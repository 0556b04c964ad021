"""Small talk and requests for one occasion never lead or join a group (`write.small_talk`,
`write.rules.for_one_occasion`, `consolidate.groups.joinable`), and a standing statement or request can.

Written for these tests; no sentence here is on a list in the code, and none is from a data set.
"""

from __future__ import annotations

import pytest

from hindsight_core.types import MemoryRecord, Source
from hindsight_core.consolidate.groups import joinable
from hindsight_core.write.small_talk import addresses, said_to_listener, small_talk

from ..conftest import START


def _records(texts: list[str]) -> list[MemoryRecord]:
    return [MemoryRecord(id=f"r{n}", user_id="u", summary=t, raw_content=t, timestamp=START, event_type="dialogue",
                         source=Source.USER) for n, t in enumerate(texts)]


@pytest.mark.parametrize("text", [
    "Your encouragement really keeps me going.", "Take good care of yourself.", "I'll tell you all about it soon!",
    "Thank you, that's kind of you.", "谢谢你的鼓励！", "辛苦您了！", "Haha, okay!",
    # English needs a subject: a short sentence that names no one is said to the listener
    "Stay warm out there!", "Great chatting. Talk soon.", "No worries, happy to see the interest.",
    # the speaker as an object ("me", "us") is not the subject: the listener is
    "Let me hear how the trip went. Have fun!", "Join us!",
    # a transcript's note in square brackets records what was attached, not words said
    "Thanks, your kindness means a lot. [shared a photo: a row of potted herbs on a sunny windowsill]"])
def test_words_said_to_the_listener_are_small_talk(text):
    assert said_to_listener(text)
    assert not joinable(_records([text]))[0]


@pytest.mark.parametrize("text", [
    "I'm lactose intolerant.", "Landscape for the sales deck, please.", "我周末一般不加班",
    # Chinese drops its subjects, and a negated rule stands however short
    "不吃辣", "No dairy, ever.",
    # a request speaks to the assistant too, and names what it wants
    "Any recipe you suggest to me should be dairy-free.", "你回复我的时候，代码示例都用 Go 写。",
    # a thank-you beside a standing statement: the statement keeps it a candidate
    "Thanks! By the way, I'm allergic to shellfish.",
    # a request with the speaker as its object names what it wants
    "Call me Bea, not Beatrice.", "Send me the minutes as a PDF."])
def test_a_standing_statement_or_request_is_not_small_talk(text):
    assert not said_to_listener(text)
    assert joinable(_records([text]))[0]


def test_a_statement_said_to_another_speaker_by_name_is_small_talk_in_that_conversation():
    said = ["Priya: Cheers, Tomasz! I'm so glad it worked out for you.", "Tomasz: Bye Priya, chat tomorrow!",
            "Priya: I went sailing with Tomasz and his brother.", "Tomasz: Appreciate the ride, Pri!"]
    # the first and the last are said to the other speaker (by a short form of the name too); a name inside a
    # clause is what the sentence is about
    assert joinable(_records(said)).tolist() == [False, False, True, False]
    assert addresses(said[3], ["Priya"]) and not addresses(said[2], ["Tomasz"])


def test_a_name_is_an_address_only_for_the_conversation_that_has_that_speaker():
    text = "Thanks a lot, Marguerite! I've been volunteering at the shelter on Saturdays."
    assert not small_talk(text)  # no one of that name speaks here: a statement with its thanks
    assert small_talk(text, others={"Marguerite"})


def test_small_talk_said_on_three_days_forms_no_group_but_a_standing_wish_does():
    """The same conversation, consolidated: three thank-yous on three days stay episodes; three wordings of one
    standing wish become one knowledge memory (the real engine and the shipped model)."""

    from hindsight_core import Hindsight
    from hindsight_core.testing import FrozenClock

    clock = FrozenClock(START)
    said = [("Thanks so much, your support means a lot!", "I want every chart you make for me as a bar chart."),
            ("Really appreciate your support, thanks!", "Bar charts for my figures, please, not pie charts."),
            ("Thanks again, your support means the world!", "Make my charts bar charts, always.")]
    with Hindsight(location=":memory:", clock=clock) as memory:
        for thanks, wish in said:
            memory.write(thanks, user_id="u")
            memory.write(wish, user_id="u")
            clock.advance(days=2)
        report = memory.consolidate(user_id="u")
    assert len(report.created) == 1
    assert "bar chart" in report.created[0].summary.lower()


@pytest.mark.parametrize("text, one_occasion", [
    ("Remind me to renew the parking permit on Friday.", True), ("Please book the squash court for tomorrow.", True),
    ("帮我把今天的采购清单发给我。", True), ("请帮我订下周三去青岛的车票。", True), ("看一下明天厦门的潮汐时间。", True),
    # a habit or a standing condition makes a request that names a day a standing one
    ("Every Friday, send me the timesheet as a PDF, please.", False), ("每周五请把考勤表发给我。", False),
    ("帮我订票的时候，都选靠窗的座位。", False), ("翻译一下这段话。", False),
    # a time counted from an event names no day; a request naming no time is a standing one
    ("Please remind me two days before any deadline.", False), ("Print my boarding passes in colour, please.", False)])
def test_a_request_for_one_occasion_does_not_join_a_group(text, one_occasion):
    assert bool(joinable(_records([text]))[0]) is not one_occasion
