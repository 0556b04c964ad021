"""What may become knowledge, and how alike two statements are for a group (`consolidate.groups.Likeness`).

Written for these tests; no sentence here is on a list in the code.
"""

from __future__ import annotations

import numpy as np
import pytest

from hindsight_core.consolidate.groups import Likeness, _topic_tokens, times_said
from hindsight_core.types import MemoryRecord, Source
from hindsight_core.write.rules import asks, consolidation_candidates, excluded_because

from ..conftest import START


def _record(text: str, kind: str = "dialogue", source: Source = Source.USER, n: int = 0) -> MemoryRecord:
    return MemoryRecord(id=f"r{n}", user_id="u", summary=text, raw_content=text, timestamp=START, event_type=kind,
                        source=source)


@pytest.mark.parametrize("text, kind", [("我不吃香菜", "dialogue"), ("I print everything in landscape.", "fact"),
                                        ("Went to the Louvre with Ana.", "event"), ("周末一般不加班", "dialogue")])
def test_whatever_the_gate_filed_it_as_an_assertion_of_the_user_may_become_knowledge(text, kind):
    assert consolidation_candidates([_record(text, kind)]) == [0]


@pytest.mark.parametrize("text, kind, source, why", [
    ("Do I eat coriander?", "dialogue", Source.USER, "questions"),
    ("我弟弟不吃香菜", "dialogue", Source.USER, "statements about someone else"),
    ("If I lived in Oslo I'd ski.", "dialogue", Source.USER, "conditionals, wishes or plans"),
    ("I don't eat coriander.", "fact", Source.AGENT, "agent text"),
    ("Build finished: 3 tests failed.", "task_result", Source.USER, "task result entries"),
    ("We switched the team chat from Slack to Zulip.", "fact", Source.USER, "news of a change"),
    ("我们的例会改到周三下午了", "event", Source.USER, "news of a change"),
])
def test_what_never_becomes_the_users_knowledge_and_why(text, kind, source, why):
    record = _record(text, kind, source)
    assert consolidation_candidates([record]) == []
    assert excluded_because(record) == why


@pytest.mark.parametrize("text, shaped", [("Please print it in landscape.", True), ("帮我查一下苏州的天气", True),
                                          ("I print in landscape.", False), ("我不吃香菜", False)])
def test_an_ask_is_read_from_its_shape_in_both_languages(text, shaped):
    assert asks(text) is shaped
    assert times_said(_record(text, "fact").evolve(confirmations=3)) == (1 if shaped else 3)


@pytest.mark.parametrize("a, b", [("Thanks! So glad to hear that.", "Thanks, that sounds great!"),
                                  ("谢谢你，好主意！", "好主意，谢谢你！")])
def test_thanks_and_praise_share_no_topic(a, b):
    assert not _topic_tokens(a) & _topic_tokens(b)


def _likeness(texts: list[str]) -> Likeness:
    records = [_record(t, n=n) for n, t in enumerate(texts)]
    return Likeness(records, np.eye(len(texts), dtype=np.float32))  # orthogonal vectors: the words alone


def test_rare_shared_words_make_two_statements_alike_and_common_ones_barely():
    texts = ["I never put coriander in my soup.", "No coriander in anything for me.",
             "My soup recipe uses leeks.", "The soup was cold today.", "I had soup with Ana.", "Soup again at work."]
    shared = _likeness(texts).shared(0)
    assert shared[0] == pytest.approx(1.0)
    assert shared[1] > shared[2] > 0  # "coriander" is rare among them; "soup" is said everywhere
    assert shared[1] > 2 * max(shared[2:])


def test_chinese_shares_words_through_bigrams_and_scripts_share_none():
    texts = ["我不吃香菜", "香菜我是不吃的", "我爱吃火锅", "I never eat coriander.", "昨天吃了火锅"]
    shared = _likeness(texts).shared(0)
    assert shared[1] > shared[2]
    assert shared[3] == 0.0  # across scripts the cosine alone must say it


# -- on the real model, through Hindsight -----------------------------------------------------------------------

FOOD_TALK = {
    "zh": ["今天中午吃了牛肉面，汤很浓", "周末和朋友去吃了火锅", "我最近在学做红烧肉", "楼下新开了一家面包店",
           "晚饭做了番茄炒蛋和青菜", "公司食堂的饺子还不错", "昨天买了很多水果", "我早上一般喝豆浆", "周五团建吃了烤鸭",
           "这家店的酸菜鱼有点咸", "我今天尝试做了寿司", "晚上点了外卖的麻辣烫"],
    "en": ["Had beef noodles for lunch, the broth was rich.", "Went for hot pot with friends at the weekend.",
           "I'm learning to cook braised pork.", "A new bakery opened downstairs.",
           "Made tomato eggs and greens for dinner.", "The dumplings in the canteen are decent.",
           "Bought a lot of fruit yesterday.", "I usually drink soy milk in the morning.",
           "We had roast duck at the team dinner on Friday.", "The fish stew at that place was a bit salty.",
           "Tried making sushi today.", "Ordered spicy noodle soup for dinner tonight."],
}
NO_CORIANDER = {
    "zh": ["我不吃香菜", "香菜我是不吃的", "别给我放香菜，我不吃", "我从来不吃香菜", "香菜我真的吃不了"],
    "en": ["I don't eat coriander.", "No coriander for me, I never eat it.", "Coriander is something I never eat.",
           "Please leave the coriander out, I don't eat it.", "I can't stand coriander, I never eat it."],
}
THANKS = {"zh": ["谢谢你，好主意！", "好的，谢谢你！太棒了", "哈哈，谢谢，好主意", "谢谢你呀，真好", "太棒了，谢谢你"],
          "en": ["Thanks, that's great!", "Great, thanks so much!", "Thanks! Sounds great.", "Awesome, thank you!",
                 "Thank you, that's lovely!"]}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_preference_said_five_ways_in_a_talk_about_one_subject_becomes_knowledge(clock, real_embedder, lang):
    """The repeats share the talk's subject (food) with everything else the user says; they stand out by their
    rarer shared words, whatever kind the gate filed each as."""
    from hindsight_core import Hindsight, HindsightConfig
    from hindsight_core.config import SemanticConfig

    config = HindsightConfig(semantic=SemanticConfig(auto_consolidate=False))
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=config) as memory:
        said = []
        for n, text in enumerate(FOOD_TALK[lang]):
            memory.write(text, user_id="u", force=True)
            clock.advance(hours=12)
            if n % 2 == 1 and len(said) < 5:
                said.append(memory.write(NO_CORIANDER[lang][len(said)], user_id="u", force=True).record.id)
                clock.advance(hours=12)
        for text in THANKS[lang]:
            memory.write(text, user_id="u", force=True)
            clock.advance(hours=12)
        report = memory.consolidate(user_id="u")
        assert report.ok and len(report.created) == 1, report
        assert set(report.created[0].derived_from) == set(said)
