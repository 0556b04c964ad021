"""The write rules: when a new statement merges into an old one, when it supersedes one, and what may become knowledge.

Pure functions over records; `writing.plan_writes` applies them to a batch and its stored neighbours. A duplicate
(`is_duplicate`) merges into the statement it repeats. A new statement of the user's supersedes an older one (which
lives on with lower confidence and `superseded_by` set) when it sets the same single-valued attribute to another value
(`is_conflict`) or says that a value changed (`change_refused`, `CHANGE_STEPS`), never on what is asked, supposed,
quoted or reported, nor on someone else's change (`mood`). Whatever the user asserts may become knowledge
(`consolidation_candidates`), except a task's outcome and news of a change.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Sequence

import numpy as np

from ..config import SemanticConfig
from ..language import mood, timeparse
from ..language.cues import (CHANGE_MARKER_TOKENS, EXCLUSIVE_STATEMENT, attributes, exclusive_clash, polarity,
                             value_slots, without_clock_times)
from ..language.text import HAN_CHAR, keyword_tokens
from ..language.text_cache import per_text
from ..types import EventType, Layer, MemoryRecord, Source, Status
from .gate import REQUEST, speaker, states_about_speaker, strip_speaker

@per_text
def normalise_for_duplicates(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).lower().split()).strip(" .!。！")


@per_text
def content_tokens(text: str) -> frozenset[str]:
    return frozenset(keyword_tokens(text)) - CHANGE_MARKER_TOKENS


def is_duplicate(new_text: str, old_text: str, similarity: float, cfg: SemanticConfig) -> bool:
    """Whether `new_text` says what `old_text` says: equal after normalisation, or close on the embedder's scale
    and made of the same words, negated alike; one that differs in a number, name, date, place or negation is a
    new statement."""
    if normalise_for_duplicates(new_text) == normalise_for_duplicates(old_text):
        return True
    return similarity >= cfg.duplicate_similarity and _words(new_text) == _words(old_text) \
        and polarity(new_text) == polarity(old_text)


@per_text
def _words(text: str) -> frozenset[str]:
    """The words a duplicate must share, all of them: every keyword token, numbers and CJK characters included."""
    return frozenset(keyword_tokens(text))


#: how many stored neighbours of each new record the write plan looks at (`writing.stored_neighbours`)
NEIGHBOURS = 20


#: event types that state something about the user that can repeat (and so become knowledge) or change
STANDING_TYPES = frozenset({EventType.PREFERENCE.value, EventType.CORRECTION.value, EventType.FACT.value,
                            EventType.REQUEST.value})


#: kinds of statement in which naming an exclusive value sets it ("print it in landscape"); elsewhere the same
#: words describe ("a bench near the window", "last night")
_ASKING_TYPES = frozenset({EventType.PREFERENCE.value, EventType.REQUEST.value, EventType.CORRECTION.value})


@per_text
def _attributes_in(text: str) -> frozenset[str]:
    return frozenset(attributes(strip_speaker(text)))


@per_text
def _settable_attributes_in(text: str) -> frozenset[str]:
    return frozenset(a for a in _attributes_in(text) if not a.startswith("exclusive:"))


def attributes_of(record: MemoryRecord) -> set[str]:
    """The attributes a stored statement sets (`cues.attributes`); exclusive values count only in a preference,
    a request or a correction."""
    if record.event_type in _ASKING_TYPES:
        return set(_attributes_in(record.raw_content))
    return set(_settable_attributes_in(record.raw_content))


@per_text
def is_question(text: str) -> bool:
    """A question states nothing: it neither becomes knowledge nor replaces what was said."""
    return mood.asks(text)


@per_text
def asserted(text: str) -> bool:
    """The speaker asserts it of themselves (`mood.asserts`): no question, conditional, quote or someone else's news."""
    return not is_question(text) and mood.asserts(strip_speaker(text))


@per_text
def _states(text: str) -> bool:
    """Stated as holding: no question, conditional or wish, quote or reported speech (`mood.reports`); what the
    user says of someone in their life is stated too (`_about_others` tells it apart)."""
    body = strip_speaker(text)
    return not is_question(text) and not mood.supposes(body) and not mood.reports(body)


@per_text
def _states_change(text: str) -> bool:
    """A change stated as holding (`_states`), where a report in a later clause is about something else
    (`mood.reports_change`): "书名改了，现在叫《风过雁门》，编辑说更有气势" states the new title."""
    body = strip_speaker(text)
    return not is_question(text) and not mood.supposes(body) and not mood.reports_change(body)


@per_text
def _about_others(text: str) -> bool:
    return mood.about_someone_else(strip_speaker(text))


@per_text
def _change_about_others(text: str) -> bool:
    return mood.change_about_someone_else(strip_speaker(text))


@per_text
def _held_for_days(text: str) -> float | None:
    return mood.held_for_days(strip_speaker(text))


@per_text
def _past_habit_clauses(text: str) -> tuple[str, ...]:
    return tuple(mood.past_habit_clauses(strip_speaker(text)))


@per_text
def asks(text: str) -> bool:
    """Shaped as an ask (`gate.REQUEST`: an imperative or polite opening, "please", "again"; 请, 帮我, 给我, 再),
    whatever kind the gate filed it as."""
    return bool(REQUEST.search(strip_speaker(text)))


#: a Chinese clause that opens with a verb softened by 一下 ("查一下", "整理一下"): an imperative, whatever its verb
_SOFTENED_IMPERATIVE = re.compile(r"(?:^|[，,。；;！!])\s*[\u4e00-\u9fff]{1,2}一下")


@per_text
def for_one_occasion(text: str) -> bool:
    """A request tied to a day on the calendar ("Remind me to pick up the dry cleaning on Thursday"): a task for
    that occasion, not a standing rule. A request is an ask's shape (`asks`) or, in Chinese, a verb softened by
    一下; a habit (`timeparse.HABIT`) or a time counted from an event (`timeparse.names_a_day`) names none."""
    body = strip_speaker(text)
    return (asks(text) or bool(_SOFTENED_IMPERATIVE.search(body))) and timeparse.names_a_day(body) and \
        not timeparse.HABIT.search(body)


@per_text
def says_change(text: str) -> bool:
    return mood.marks_change(strip_speaker(text))


#: the statements a change of mind may replace: anything the user stated, except a task's outcome
_CHANGEABLE = STANDING_TYPES | {EventType.DIALOGUE.value, EventType.EVENT.value}
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")


@per_text
def text_script(text: str) -> str:
    """"cjk" when at least a third of the text's letters are CJK characters, else "latin"."""
    letters = sum(ch.isalpha() for ch in text) or 1
    return "cjk" if len(HAN_CHAR.findall(text)) * 3 >= letters else "latin"


def same_subject_floor(new_text: str, old_text: str, cfg: SemanticConfig) -> float:
    """The cosine from which two statements are about the same thing, for a change of mind: on the embedder's
    scale (`config.scaled_for_embedder`), `conflict_similarity` within one script and `correction_similarity`
    across scripts, where a sentence and its translation sit lower."""
    return cfg.conflict_similarity if text_script(new_text) == text_script(old_text) else cfg.correction_similarity


def lowest_subject_floor(cfg: SemanticConfig) -> float:
    """The lowest `same_subject_floor` of any two texts: a pair below it is no change of mind (`change_refused`),
    whatever the texts, so a batch skips reading them."""
    return min(cfg.conflict_similarity, cfg.correction_similarity)


#: CJK characters too common to name a subject
CJK_FUNCTION = frozenset("我你他她它们的了是在有和也都就不这那一个很吗呢吧啊么没要会对说去到把被给")
#: CJK numerals and the words of times: "九点", "周一", "三楼" name a value, never the subject
_CJK_NUMERAL = frozenset("零一二两三四五六七八九十百千万点半")


@per_text
def topic_words(text: str) -> frozenset[str]:
    """Words that can name what a statement is about: Latin content tokens and the character pairs of each CJK
    run, without change markers, numbers or common CJK characters; a Latin name in a Chinese sentence counts."""
    body = mood.without_markers(strip_speaker(text))
    latin = {t for t in content_tokens(body) if not t.isdigit() and not HAN_CHAR.search(t)}
    pairs = {run[i:i + 2] for run in _CJK_RUN.findall(body) for i in range(len(run) - 1)}
    return frozenset(latin | {p for p in pairs if not set(p) & (CJK_FUNCTION | _CJK_NUMERAL)})


def shares_topic(a: str, b: str) -> bool:
    """Whether two statements share a topic word (`topic_words`)."""
    return bool(topic_words(a) & topic_words(b))


#: how far (in standard deviations) the statement a change replaces must stand out from the new statement's other
#: neighbours in its script (`judge.changed_by`), on the texts alone; `benchmarks/knowledge_calibration.py` sets it
STANDS_OUT = 3.5
#: fewer other neighbours than this say nothing about the background: the floor alone decides
MIN_BACKGROUND = 5
#: a statement of this many sentences or more tells several things: a shared word alone does not make its change
#: about an earlier statement (`subject_refused`)
LONG_TURN = 3


def stands_out(similarity: float, others: Sequence[float]) -> bool:
    """Whether `similarity` stands out from the user's own background (`others`: the new statement's cosines to
    the rest of its nearest memories): a rank on the user's scale, whatever the language or embedder."""
    if len(others) < MIN_BACKGROUND:
        return True
    spread = float(np.std(others))
    return (similarity - float(np.mean(others))) >= STANDS_OUT * max(spread, 1e-6)


def subject_refused(new_text: str, old_text: str, similarity: float, others: Sequence[float]) -> str | None:
    """Why a change of mind and the statement it would replace are not about the same subject, or None: they
    share a topic word (`shares_topic`) or the old one stands out from the new one's other neighbours
    (`stands_out`). Without `MIN_BACKGROUND` neighbours a cosine alone never decides, and in a turn of
    `LONG_TURN` sentences or more the old one must stand out too."""
    if len(mood.sentences(new_text)) >= LONG_TURN and len(others) >= MIN_BACKGROUND and not stands_out(similarity, others):
        return "stand-out"
    if shares_topic(new_text, old_text):
        return None
    if len(others) < MIN_BACKGROUND or not stands_out(similarity, others):
        return "stand-out"
    return None


def is_change_of(new: MemoryRecord, old: MemoryRecord, similarity: float, cfg: SemanticConfig, *,
                 background: bool = True) -> bool:
    """Whether `new` says that what `old` stated has changed, about any subject (`change_refused` is None)."""
    return change_refused(new, old, similarity, cfg, background=background) is None


def change_refused(new: MemoryRecord, old: MemoryRecord, similarity: float, cfg: SemanticConfig, *,
                   background: bool = True) -> str | None:
    """The first step at which `new` is not a change of what `old` stated (`CHANGE_STEPS`), or None when it is:
    both the user's, one speaker, both stated, `new` marks a change (`mood.marks_change`) that is no state of
    mind nor someone else's, about the same subject (`same_subject_floor`), naming a value `old` does not.
    `writing.plan_writes` applies it to the closest such statement only."""
    if old.superseded_by or old.status is not Status.ACTIVE or old.id == new.id:
        return "inactive"
    if new.source is not Source.USER or old.source is not Source.USER:
        return "not the user's"
    if new.event_type not in _CHANGEABLE:
        return "kind"
    if asks(new.raw_content) and not states_about_speaker(new.raw_content):
        return "an order"  # "Run the tests now" is an order, not news; "我们部门改用腾讯文档写周报了" is news
    if old.event_type not in _CHANGEABLE | {EventType.TASK_RESULT.value}:
        return "kind"
    if speaker(new.raw_content) != speaker(old.raw_content):
        return "another speaker"
    if not says_change(new.raw_content):
        return "no change marker"
    if not _states_change(new.raw_content):
        return "new not asserted"
    if mood.change_is_state_of_mind(strip_speaker(new.raw_content)):
        return "a state of mind"  # "现在感觉好难过", "I feel much better now": a mood of the moment, no standing value
    if not _states(old.raw_content):
        return "old not asserted"
    if timeparse.tells_one_past_occasion(strip_speaker(old.raw_content)):
        return "a past occasion"  # "We had a vendor pitch yesterday, 60 slides": what happened then, not a value
    held = _held_for_days(new.raw_content)
    if held is not None and (new.timestamp - old.timestamp).total_seconds() < held * 86400:
        return "held since"  # "I've had her for two years now": it held already when `old` was said, nothing changed
    habit = _past_habit_clauses(new.raw_content)
    if habit and not any(topic_words(clause) & topic_words(old.raw_content) for clause in habit):
        return "past habit"  # "I used to bake cookies with someone close to me" ends only a statement about baking
    new_about_others = _about_others(new.raw_content) or _change_about_others(new.raw_content)
    if new_about_others and not _about_others(old.raw_content):
        return "someone else's"  # "my brother switched to rugby", "你知道吗？我最好的朋友要搬走了" beside "I play football"
    if not new_about_others and _about_others(old.raw_content) \
            and not mood.names_any(strip_speaker(new.raw_content), mood.other_person(strip_speaker(old.raw_content))):
        return "someone else's"  # "我把输入法换成了微信输入法" beside "同事今天又推荐了一次微信输入法"
    if mood.speaks_of_others(new.raw_content) and not mood.speaks_of_self(new.raw_content) \
            and mood.speaks_of_self(old.raw_content):
        return "someone else's"  # "the people next door changed their bin day" beside "our bin day"
    if similarity < same_subject_floor(strip_speaker(new.raw_content), strip_speaker(old.raw_content), cfg):
        return "subject floor"
    if says_change(old.raw_content) and shares_topic(new.raw_content, old.raw_content):
        return "follows a change"  # "Hyperoptic is blazing fast now" after "switched the broadband to Hyperoptic"
    if not background and not shares_topic(new.raw_content, old.raw_content):
        return "topic"
    if normalise_for_duplicates(new.raw_content) == normalise_for_duplicates(old.raw_content):
        return "same text"
    if not _value_words(new.raw_content) - _value_words(old.raw_content):
        return "no new value"
    return None


#: the steps of `change_refused`, in order, then those of `judge.replaced_in_layer` (the oldest eligible statement
#: on the subject, standing out from the rest): what `benchmarks/change_steps.py` tallies
CHANGE_STEPS = ("inactive", "not the user's", "kind", "an order", "another speaker", "no change marker",
                "new not asserted", "a state of mind", "old not asserted", "a past occasion", "held since",
                "past habit", "someone else's", "subject floor", "follows a change", "topic", "same text",
                "no new value", "stand-out", "not the one chosen")


def is_conflict(new: MemoryRecord, old: MemoryRecord, similarity: float, cfg: SemanticConfig) -> bool:
    """Whether `new` sets a different value for one of the single-valued attributes `old` sets.

    Both must be the user's own standing statements, asserted, by one speaker, setting the same attribute
    (`cues.attributes`) and differing on it: two exclusive values (`cues.exclusive_clash`) or words only one side has.
    """
    if old.superseded_by or old.status is not Status.ACTIVE or old.id == new.id:
        return False
    if new.source is not Source.USER or old.source is not Source.USER:
        return False
    if new.event_type not in STANDING_TYPES or old.event_type not in STANDING_TYPES:  # events never supersede
        return False
    if not asserted(new.raw_content) or not asserted(old.raw_content):  # questions, ifs, quotes, others' news
        return False
    if speaker(new.raw_content) != speaker(old.raw_content):  # one person's words never replace another's
        return False
    shared = attributes_of(new) & attributes_of(old)
    if not shared:
        return False
    if normalise_for_duplicates(new.raw_content) == normalise_for_duplicates(old.raw_content):
        return False
    if asks(new.raw_content) and not says_change(new.raw_content) \
            and not EXCLUSIVE_STATEMENT.search(new.raw_content):
        return False  # "Remind me to call the plumber on Monday morning": a request for once, no standing rule
    # a part of the day that pins a clock time ("下午三点上课") is part of the time, not a chosen value
    if exclusive_clash(without_clock_times(new.raw_content), without_clock_times(old.raw_content)) is not None:
        # "never book me into morning meetings" beside "I prefer afternoons" agrees: the value is negated
        return polarity(new.raw_content) == polarity(old.raw_content) or says_change(new.raw_content)
    if all(a.startswith("exclusive:") for a in shared):  # the same exclusive value: an agreement
        return False
    mine, theirs = _value_words(new.raw_content), _value_words(old.raw_content)
    if says_change(new.raw_content):  # "blue now, not red anymore": the old value may be named again
        return bool(mine - theirs)
    return bool(mine - theirs) and bool(theirs - mine)


def _value_words(text: str) -> set[str]:
    """The words that can carry an attribute's value: content words, digits and the text's values."""
    words = set(content_tokens(mood.without_markers(strip_speaker(text))))
    for values in value_slots(text).values():
        words |= set(values)
    return words


#: kinds of episode that never become the user's knowledge: a task's outcome is what a tool did; everything else
#: the user asserts can be said again, whatever kind the gate guessed from its wording
_NEVER_KNOWLEDGE = frozenset({EventType.TASK_RESULT.value})


def consolidation_candidates(records: Sequence[MemoryRecord]) -> list[int]:
    """Indices of the episodes that may still be consolidated: the user's active asserted statements
    (`asserted`), not yet consolidated or superseded, not a task's outcome, and not news of a change
    (supersession's to decide); whether one is said again often enough is for `consolidate.groups`."""
    return [i for i, r in enumerate(records)
            if r.layer is Layer.EPISODIC and r.status is Status.ACTIVE and not r.consolidated_into
            and not r.superseded_by and r.source is Source.USER and r.event_type not in _NEVER_KNOWLEDGE
            and asserted(r.raw_content) and not says_change(r.raw_content)]


def excluded_because(record: MemoryRecord) -> str:
    """Why an episode is not a candidate for knowledge (the first reason), or "a candidate"."""
    if record.layer is not Layer.EPISODIC:
        return "knowledge already"
    if record.status is not Status.ACTIVE:
        return "quarantined or archived"
    if record.consolidated_into:
        return "already in knowledge"
    if record.superseded_by:
        return "superseded"
    if record.source is not Source.USER:
        return f"{record.source.value} text"
    if record.event_type in _NEVER_KNOWLEDGE:
        return f"{record.event_type.replace('_', ' ')} entries"
    if is_question(record.raw_content):
        return "questions"
    why = mood.why_not(strip_speaker(record.raw_content))
    if why:
        return _PLURAL.get(why, why)
    return "news of a change" if says_change(record.raw_content) else "a candidate"


_PLURAL = {"a question": "questions", "quoted or reported speech": "quotes or reported speech",
           "a conditional, a wish or a plan": "conditionals, wishes or plans",
           "about someone else": "statements about someone else"}


def may_group(record: MemoryRecord) -> bool:
    """Whether an episode can be in a group at all (`consolidation_candidates`). The after-write check looks for
    groups only around such episodes."""
    return bool(consolidation_candidates([record]))
