"""Knowledge that forms for any repeated statement, and changes of mind about any subject (real model, frozen clock).

The sentences are written for these tests; none of them is on a list in the code.
"""

import pytest

from hindsight_core import Hindsight, HindsightConfig, Layer
from hindsight_core.config import SemanticConfig, knowledge_on
from hindsight_core.language import mood
from hindsight_core.types import Source
from hindsight_core.write.gate import RuleBasedGate

from ..conftest import START


@pytest.mark.parametrize("text, why", [
    ("Do you think I should switch to Linux?", "a question"),
    ("你觉得我要不要换工作", "a question"),
    ("If we ever moved to Oslo I'd buy skis.", "a conditional, a wish or a plan"),
    ("要是明年调到成都，我就养只狗", "a conditional, a wish or a plan"),
    ("Maybe I'll give up sugar next year.", "a conditional, a wish or a plan"),
    ('My uncle joked: "just sell the car and cycle".', "quoted or reported speech"),
    ("老板开玩笑说：“你干脆住在公司吧。”", "quoted or reported speech"),
    ('My editor keeps writing "tighten it up" on every page.', "quoted or reported speech"),
    ("Where are you based these days", "a question"),
    ("What's your favourite editor", "a question"),
    # a promise or a plan of the moment, and a hope, in both languages
    ("Good tip! I'll give it a go this weekend.", "a conditional, a wish or a plan"),
    ("好呀，我会去试一试的", "a conditional, a wish or a plan"),
    ("我希望明年能去冰岛看极光", "a conditional, a wish or a plan"),
    ("My brother switched to a standing desk.", "about someone else"),
    ("她现在改喝绿茶了", "about someone else"),
])
def test_what_asserts_nothing_of_the_speaker(text, why):
    assert mood.why_not(text) == why


@pytest.mark.parametrize("text", ["I cycle to work on Tuesdays.", "我每天早上跑步", "Our team deploys on Fridays.",
                                  "The weekly sync is at 10:00 now.", "我们组改用飞书了",
                                  # a clause that opens with a wh-word, and a quoted name, are no question or quote
                                  "When you plan my trips, book aisle seats.", "What I need most is quiet mornings.",
                                  "When you have time, send me the notes in Markdown.",
                                  # a habit said in the future tense still holds
                                  "I'll always take the window seat.", "我会一直用五笔打字",
                                  'Sign my newsletters "Harbour Books", always.', "店名请一直写“青柠书屋”。"])
def test_plain_statements_assert(text):
    assert mood.asserts(text)


@pytest.mark.parametrize("text", ["我不喝冰水", "I don't take sugar in my tea", "我们家不养宠物"])
def test_a_first_person_statement_is_kept_as_a_fact(text):
    decision = RuleBasedGate()(text, Source.USER)
    assert decision.store and decision.event_type == "fact", decision


@pytest.fixture
def memory(clock, real_embedder):
    config = HindsightConfig(semantic=SemanticConfig(auto_consolidate=False, detect_conflicts=True))
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=config) as memory:
        yield memory


def _say(memory, clock, texts, *, user="u", days=1.0, source=Source.USER):
    ids = []
    for text in texts:
        ids.append(memory.write(text, user_id=user, source=source, force=True).record.id)
        clock.advance(days=days)
    return ids


SAME_FACT = {
    "en": ["I don't drink cold water, only warm.", "No cold water for me, I only drink it warm.",
           "I only drink warm water, never cold.", "I stick to warm water; cold water is not for me.",
           "Warm water only for me, I don't drink it cold."],
    "zh": ["我不喝冰水，只喝温水", "冰水我不喝的，我只喝温水", "我只喝温水，从来不喝冰水", "我一般只喝温水，冰水不喝",
           "温水就好，我不喝冰水"],
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_repeated_fact_outside_any_list_becomes_knowledge(memory, clock, lang):
    episodes = _say(memory, clock, SAME_FACT[lang])
    report = memory.consolidate(user_id="u")
    assert report.ok and len(report.created) == 1, report
    knowledge = report.created[0]
    assert set(knowledge.derived_from) == set(episodes)
    assert ("said 5 times" if lang == "en" else "说过5次") in knowledge.summary
    assert "2026-03-15" in knowledge.summary  # when: the first day it was said


def test_questions_and_other_people_never_become_the_users_knowledge(memory, clock):
    _say(memory, clock, ["Do I really prefer warm water?", "Should I drink warm water instead?",
                         "Is warm water better for me?", "Why do I like warm water so much?",
                         "Would warm water be better for me?"])
    _say(memory, clock, ["My sister only drinks warm water.", "My sister never drinks cold water.",
                         "My sister drinks warm water only.", "My sister sticks to warm water.",
                         "My sister won't touch cold water."], days=1)
    report = memory.consolidate(user_id="u")
    assert not report.created and report.ok
    assert "about someone else" in report.why_nothing, report.why_nothing
    assert "dialogue" in report.why_nothing or "questions" in report.why_nothing, report.why_nothing


@pytest.mark.parametrize("stories", [
    ["Caught a four-pound sea bass at Zhoushan last weekend.", "Yesterday I caught two more sea bass at Zhoushan.",
     "Three days ago the sea bass were biting at Zhoushan."],
    ["上周末在舟山钓到一条四斤的海鲈。", "昨天在舟山又钓到两条海鲈。", "前天在舟山钓海鲈，收获不错。"],
])
def test_stories_of_occasions_just_past_never_become_knowledge(memory, clock, stories):
    """Each tells what happened on a day just past: said on three days, they are three stories, not a standing
    fact said three times."""
    _say(memory, clock, stories, days=2)
    assert not memory.consolidate(user_id="u").created


@pytest.mark.parametrize("ask", ["Play me something by Miles Davis.", "帮我写一下这周的周报吧。"])
def test_the_same_ask_word_for_word_is_one_task_not_knowledge(memory, clock, ask):
    """Asked again in the same words on five days, it is merged into one episode said five times, which counts once
    for a group (`groups.times_said`): the same task asked again, not a standing wish."""
    ids = _say(memory, clock, [ask] * 5)
    assert len(set(ids)) == 1 and memory.get(ids[0], user_id="u").confirmations == 5
    report = memory.consolidate(user_id="u")
    assert not report.created and report.ok, report


def test_a_fact_said_again_in_the_same_words_counts_each_time_but_on_its_first_and_last_day(memory, clock):
    """A statement (not an ask) merged with its repeats counts once per confirmation, but the merged episode keeps only
    its first and last day (`groups.days_said`): said word for word it is two days, however often ("Thanks, you're a
    lifesaver!" every day never becomes knowledge); said once more in other words on another day, it is three."""
    ids = _say(memory, clock, ["I'm lactose intolerant."] * 5)
    assert len(set(ids)) == 1
    report = memory.consolidate(user_id="u")
    assert report.ok and not report.created, report
    assert "said 5 times on 2 different days" in report.why_nothing, report.why_nothing
    more = _say(memory, clock, ["No milk for me, I'm lactose intolerant."])
    report = memory.consolidate(user_id="u")
    assert report.ok and len(report.created) == 1, report
    assert set(report.created[0].derived_from) == {ids[0], more[0]}
    assert "said 6 times" in report.created[0].summary


def test_a_report_says_why_nothing_formed(memory, clock):
    _say(memory, clock, SAME_FACT["en"][:2])
    report = memory.consolidate(user_id="u")
    assert not report.created
    assert "needs 3 times on 3 different days over 3 days" in report.why_nothing, report.why_nothing
    assert report.why_nothing in str(report)


def test_the_same_store_gives_the_same_knowledge_every_time(clock, real_embedder):
    summaries = []
    for _ in range(2):
        from hindsight_core.testing import FrozenClock
        fresh = FrozenClock(START)
        config = HindsightConfig(semantic=SemanticConfig(auto_consolidate=False, detect_conflicts=True))
        with Hindsight(location=":memory:", embedder=real_embedder, clock=fresh, config=config) as memory:
            _say(memory, fresh, SAME_FACT["en"] + SAME_FACT["zh"])
            summaries.append(sorted(r.summary for r in memory.consolidate(user_id="u").created))
    assert summaries[0] == summaries[1] and summaries[0]


CHANGES = [
    ("Our backend stores everything in MongoDB.", "We moved the backend from MongoDB to Cassandra.",
     "Which database does our backend use?"),
    ("I commute by bus.", "I switched to cycling for my commute.", "How do I get to work?"),
    ("The team retro is on Thursdays at 4pm.", "The team retro moved to Mondays at 11am.", "When is the team retro?"),
    ("我们部门用石墨文档写周报", "我们部门改用腾讯文档写周报了", "我们部门用什么写周报？"),
    ("我每天喝两杯咖啡", "我现在不喝咖啡了，改喝茶", "我喝什么？"),
    ("My favourite season is autumn.", "Actually my favourite season is spring now, not autumn anymore.",
     "What is my favourite season?"),
]


@pytest.mark.parametrize("old_text, new_text, query", CHANGES)
def test_a_change_of_mind_supersedes_and_answers_first(memory, clock, old_text, new_text, query):
    old = memory.write(old_text, user_id="u").record
    clock.advance(days=1)
    memory.write("I had a long walk by the river today.", user_id="u")
    clock.advance(days=10)
    new = memory.write(new_text, user_id="u").record
    assert memory.get(old.id, user_id="u").superseded_by == new.id  # kept, with its history
    assert memory.recall(query, user_id="u", k=3)[0].memory.id == new.id


@pytest.mark.parametrize("old_text, new_text", [
    ("I live in Ghent.", "If I moved to Madrid I'd learn Spanish."),
    ("我住在苏州", "同事开玩笑说：“你干脆搬到上海算了。”"),
    ("I commute by bus.", "My neighbour switched to cycling for his commute."),
    ("我们部门用石墨文档写周报", "我们部门要不要改用腾讯文档？"),
    ("I commute by bus.", "Should I switch to cycling for my commute?"),
    ("I commute by bus.", "I still commute by bus, nothing changed now."),
])
def test_no_change_of_mind_from_a_question_a_hypothetical_a_quote_or_someone_else(memory, clock, old_text, new_text):
    old = memory.write(old_text, user_id="u").record
    clock.advance(days=3)
    memory.write(new_text, user_id="u")
    assert memory.get(old.id, user_id="u").superseded_by is None


def test_an_agents_change_never_replaces_the_users_statement(memory, clock):
    old = memory.write("I commute by bus.", user_id="u").record
    clock.advance(days=3)
    memory.write("The user switched to cycling for the commute.", user_id="u", source=Source.AGENT)
    assert memory.get(old.id, user_id="u").superseded_by is None


HISTORY = ["I had a long walk by the river today.", "My knee hurts after the run.", "今天午饭吃了饺子",
           "I finished the quarterly budget draft.", "周末去看了一场话剧", "We bought a new sofa for the living room.",
           "I'm reading a novel about Venice."]


#: more of the user's Chinese statements: the background a cross-language change must stand out from
HISTORY_ZH = ["周三晚上去游泳了", "我最近在读一本关于唐朝的书", "家里的猫今天打了疫苗", "我们小区门口新开了一家面馆"]


def test_a_change_across_languages(memory, clock):
    """An English change of a Chinese statement sits at cosine 0.79 with e5, below the English history; it stands out
    from the user's statements in its own script (`judge.changed_by`), once there are enough of them to tell
    (`rules.MIN_BACKGROUND`): no shared word, so the cosine's rank decides."""
    old = memory.write("我们组用钉钉沟通", user_id="u").record
    _say(memory, clock, HISTORY + HISTORY_ZH)
    new = memory.write("Our group switched from DingTalk to Slack now.", user_id="u").record
    assert memory.get(old.id, user_id="u").superseded_by == new.id
    assert memory.get(new.id, user_id="u").layer is Layer.EPISODIC


def test_a_change_across_languages_of_a_single_valued_attribute(memory, clock):
    old = memory.write("我住在成都", user_id="u").record
    _say(memory, clock, HISTORY)
    new = memory.write("I moved to Xiamen now.", user_id="u").record
    assert memory.get(old.id, user_id="u").superseded_by == new.id


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_statement_said_on_three_days_becomes_knowledge_after_the_write(clock, real_embedder, lang):
    """Three of the paraphrases, each on its own day (the second of SAME_FACT would be merged into the first as a
    near-duplicate, which keeps only its first and last day: `groups.days_said`)."""
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=knowledge_on()) as memory:
        formed = []
        for text in [SAME_FACT[lang][n] for n in (0, 2, 4)]:
            memory.write(text, user_id="u")
            clock.advance(days=2)
            formed.append([m for m in memory.memories(user_id="u") if m.layer is Layer.SEMANTIC])
    assert formed[0] == formed[1] == [], formed  # not on the first day, nor the second
    assert len(formed[2]) == 1, formed  # formed on the third
    assert ("said 3 times" if lang == "en" else "说过3次") in formed[2][0].summary, formed


def test_paraphrases_of_different_kinds_and_signs_group_but_a_negation_does_not(memory, clock):
    said = _say(memory, clock, ["I'm lactose intolerant.", "No milk for me, I'm lactose intolerant.",
                                "As someone lactose intolerant I avoid dairy.", "Dairy upsets me, I'm lactose intolerant.",
                                "I've been lactose intolerant since childhood."])
    knowledge = memory.consolidate(user_id="u").created
    assert len(knowledge) == 1 and set(knowledge[0].derived_from) == set(said)
    from hindsight_core.consolidate.groups import _contradicts
    assert _contradicts("I drink milk every morning.", "I don't drink milk every morning.")
    assert not _contradicts("I'm lactose intolerant.", "No milk for me, I'm lactose intolerant.")


#: what an assistant said before each statement: a statement is stored with the turn it answers
ASSISTANT_TURNS = ["Your flight to Oslo is booked for Tuesday.", "Here is the summary of the quarterly figures.",
                   "好的，明天的会议室已经订好了。", "I found three hotels near the central station.",
                   "周报模板我已经发到你的邮箱了。", "The tests passed on the second run."]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_repeats_answering_different_turns_still_become_knowledge(memory, clock, lang):
    """The stored vectors carry the turn each statement answers (recall finds "yes, that one" by it); the group is
    judged on the statements' texts alone (`write.decisions`), so different contexts do not split it."""
    episodes = []
    for text, context in zip(SAME_FACT[lang], ASSISTANT_TURNS):
        episodes.append(memory.write(text, user_id="u", context=context, force=True).record.id)
        clock.advance(days=1)
    report = memory.consolidate(user_id="u")
    assert report.ok and len(report.created) == 1, report
    assert set(report.created[0].derived_from) == set(episodes)
    assert memory.get(episodes[0], user_id="u").context == ASSISTANT_TURNS[0]  # recall's vector kept its context


@pytest.mark.parametrize("old_text, new_text, query", CHANGES[:2] + CHANGES[3:5])
def test_a_change_of_mind_answering_another_turn_supersedes(memory, clock, old_text, new_text, query):
    old = memory.write(old_text, user_id="u", context=ASSISTANT_TURNS[1]).record
    clock.advance(days=1)
    _say(memory, clock, HISTORY)
    new = memory.write(new_text, user_id="u", context=ASSISTANT_TURNS[3]).record
    assert memory.get(old.id, user_id="u").superseded_by == new.id
