"""Consolidation groups: which stored episodes state the same thing, often enough to become one piece of knowledge.

Any repeated statement can form a group, whatever its subject. A leader episode gathers the candidates that are close to
it, share a topic word with it, stand out from its other statements on `Likeness`, count it among their own nearest
(`_mutual`) and say it the same way (`_group`); which episodes may group at all is
`write.rules.consolidation_candidates`, less small talk and one-off occasions (`joinable`). A group qualifies with
`min_episodes` occurrences on `min_days` different days over `min_span_days` (`qualifies`). Ties are broken by position
(oldest first), so the same store gives the same groups every run.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..config import SemanticConfig
from ..language.cues import CHANGE_MARKER_TOKENS, exclusive_clash, exclusive_terms, polarity, value_slots
from ..language.text import keyword_tokens
from ..language.text_cache import per_text
from ..language.timeparse import tells_one_past_occasion
from ..types import EventType, MemoryRecord
from ..write.gate import FILLER_WORDS, filler_removed, speaker, strip_speaker
from ..write.rules import CJK_FUNCTION, asks, attributes_of, content_tokens, for_one_occasion, text_script
from ..write.small_talk import small_talk

_CJK_TOKEN = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff]+$")
#: words every diary uses: they date a memory, they do not say what it is about
_NOT_TOPICS = frozenset(keyword_tokens(
    "today yesterday tomorrow tonight morning evening night day days week weeks weekend month months year years "
    "time times again also really still now new got get went go going one two") +
    ["今天", "昨天", "明天", "周末", "最近", "上午", "下午", "晚上", "早上", "时候", "一下", "已经"])


def times_said(record: MemoryRecord) -> int:
    """The occurrences an episode adds to a group: a merged repeat was said again (its confirmations), but an ask
    repeated in the same words is the same task asked again and counts once; an ask is read from its shape
    (`asks`), whatever kind the gate filed it as."""
    if record.event_type == EventType.REQUEST.value or asks(record.raw_content):
        return 1
    return max(1, record.confirmations)


#: the gate's words that carry no content on their own (thanks, greetings, praise: `gate.FILLER_WORDS`), as tokens
_FILLER_TOKENS = frozenset(keyword_tokens(" ".join(FILLER_WORDS)))


#: a name set off as an address ("Thanks, Melanie!", "Mel, you were right.", "happy for you, Caroline."): whom
#: the words are said to, not what they are about
_ADDRESS = re.compile(r"(?:^|(?<=[,;:!?.]))\s*[A-Z][a-z]+(?=\s*[,!?.](?:\s|$)|\s*$)")


@per_text  # a group's test reads every candidate's words, write after write
def _topic_tokens(text: str) -> frozenset[str]:
    """Keyword tokens that can name a topic: no speaker, change markers, dates or numbers, none of the gate's
    filler (`gate.FILLER_WORDS`, `gate.filler_removed`) nor a name the words are addressed to (`_ADDRESS`); CJK
    bigrams of content characters."""
    out = set()
    for token in keyword_tokens(filler_removed(_ADDRESS.sub(" ", strip_speaker(text)))):
        if token in CHANGE_MARKER_TOKENS or token in _NOT_TOPICS or token in _FILLER_TOKENS or token.isdigit():
            continue
        if _CJK_TOKEN.match(token) and (len(token) < 2 or set(token) & CJK_FUNCTION):
            continue
        out.add(token)
    return frozenset(out)


def shared_topic(records: Sequence[MemoryRecord]) -> str | None:
    """The topic word the most records use (at least two; ties: the one said first), or None: embeddings alone
    over-group, while episodes that repeat a wish repeat its words ("landscape", "横向")."""
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    for record in records:
        for token in sorted(_topic_tokens(record.raw_content), key=lambda t: (record.raw_content.lower().find(t), t)):
            counts[token] += times_said(record)  # a merged repeat was said again
            first.setdefault(token, len(first))
    best = min(((-c, first[t], t) for t, c in counts.items() if c >= 2), default=None)
    return best[2] if best else None


@dataclass(frozen=True)
class Group:
    """Indices into the candidate list, leader first."""

    members: tuple[int, ...]
    occurrences: int
    span_days: float
    #: the word the members share (`shared_topic`); None when they share none
    topic: str | None = ""
    #: on how many different days the members were said (`days_said`)
    days: int = 0


def span_days(records: Sequence[MemoryRecord]) -> float:
    first = min(r.timestamp for r in records)
    last = max(r.last_confirmed or r.timestamp for r in records)
    return (last - first).total_seconds() / 86400.0


def days_said(records: Sequence[MemoryRecord]) -> int:
    """The different days (UTC dates) the records were said on: each one's own day and the day it was last said
    again (`last_confirmed`), so a repeat in the same words, merged into one episode, counts two days at most."""
    return len({when.date() for r in records for when in (r.timestamp, r.last_confirmed or r.timestamp)})


def _group(indices: np.ndarray, records: Sequence[MemoryRecord]) -> Group:
    """The members of `indices` that state the same thing as the leader (the first): the same speaker, not its
    words negated (`_contradicts`), and no exclusive or pinned value it contradicts."""
    leader = records[int(indices[0])]
    who = speaker(leader.raw_content)
    kept = [int(i) for i in indices if speaker(records[i].raw_content) == who
            and not _contradicts(leader.raw_content, records[i].raw_content)
            and exclusive_clash(leader.raw_content, records[i].raw_content) is None
            and not _values_clash(leader.raw_content, records[i].raw_content)]
    members = [records[i] for i in kept]
    if not members:
        return Group((), 0, 0.0, None)
    shared = set.intersection(*(attributes_of(m) for m in members))
    topic = _topic_name(sorted(shared)[0], members) if shared else shared_topic(members)
    return Group(tuple(kept), sum(times_said(r) for r in members), span_days(members), topic, days_said(members))


def _contradicts(a: str, b: str) -> bool:
    """The same content words with the opposite sign ("I eat meat" / "I don't eat meat"); paraphrases that negate
    differently use other words and still group."""
    a, b = strip_speaker(a), strip_speaker(b)
    return polarity(a) != polarity(b) and content_tokens(a) == content_tokens(b)


#: the pinned values that make two statements say different things; a bare number often names the object of a
#: request instead ("print report number 3 in landscape"), so it does not
_PINNED = ("time", "weekday", "money", "email", "url")


def _values_clash(a: str, b: str) -> bool:
    """Two statements pin a different value of one kind (a time, a weekday, an amount): they do not say the same."""
    slots_a, slots_b = value_slots(a), value_slots(b)
    return any(slots_a[kind] != slots_b[kind] for kind in _PINNED if kind in slots_a and kind in slots_b)


def _topic_name(attribute: str, members: Sequence[MemoryRecord]) -> str:
    """An attribute as a readable topic: the exclusive value the members name ("landscape"), or the attribute."""
    if attribute.startswith("exclusive:"):
        group = int(attribute.split(":", 1)[1])
        values = [v for m in members for v in exclusive_terms(m.raw_content).get(group, ())]
        if values:
            return min(sorted(set(values)), key=lambda v: -values.count(v))
    return attribute


def qualifies(group: Group, cfg: SemanticConfig) -> bool:
    """Enough occurrences on enough different days over enough time, and a shared topic word (`shared_topic`)."""
    return group.occurrences >= cfg.min_episodes and group.days >= cfg.min_days and \
        group.span_days >= cfg.min_span_days and group.topic is not None


#: how far a member stands out from the leader's other statements, in standard deviations, on `Likeness`, above the
#: `background` of the rest; set with `python -m benchmarks.knowledge_steps --stands-out LEVEL`
GROUP_STANDS_OUT = 9.0
#: the same for a member in the other script from the leader ("I don't eat coriander" / "我不吃香菜"): no words can
#: be shared, so the cosine alone must stand out, as for a change of mind (`write.rules.STANDS_OUT`)
CROSS_STANDS_OUT = 3.5
#: how many candidates besides the group's own size a member may find closer than the leader (`_mutual`)
MUTUAL_SLACK = 2


class Likeness:
    """How alike two of a user's candidate statements are: the cosine of their vectors plus the rarity-weighted
    share of the topic words they have in common (a word's weight is its inverse document frequency among these
    statements); across scripts the cosine alone. Paraphrases of one wish sit barely above the user's other
    statements on the cosine, but repeat its rare words."""

    def __init__(self, records: Sequence[MemoryRecord], vectors: np.ndarray) -> None:
        self.vectors = vectors
        self.words = [_topic_tokens(r.raw_content) for r in records]
        self.scripts = np.asarray([text_script(strip_speaker(r.raw_content)) for r in records])
        frequency = Counter(word for words in self.words for word in words)
        n = len(records)
        self.weight = {word: math.log((n + 1) / count) for word, count in frequency.items()}
        self._rows: dict[int, np.ndarray] = {}

    def cosines(self, i: int) -> np.ndarray:
        return self.vectors @ self.vectors[i]

    def shared(self, i: int) -> np.ndarray:
        """The rarity-weighted Jaccard overlap of `i`'s topic words with every statement's (0 across scripts)."""
        mine, weight = self.words[i], self.weight
        out = np.zeros(len(self.words), dtype=np.float32)
        if not mine:
            return out
        total = sum(weight[w] for w in mine)
        for j, theirs in enumerate(self.words):
            both = mine & theirs
            if both and self.scripts[j] == self.scripts[i]:
                union = total + sum(weight[w] for w in theirs - mine)
                out[j] = sum(weight[w] for w in both) / union if union > 0 else 0.0
        return out

    def row(self, i: int) -> np.ndarray:
        """Statement `i`'s likeness to every statement."""
        if i not in self._rows:
            self._rows[i] = self.cosines(i) + self.shared(i)
        return self._rows[i]

    def same_script(self, i: int) -> np.ndarray:
        return self.scripts == self.scripts[i]


#: how many of the leader's closest statements its background leaves out (`background`): room for a group of five
#: (the leader and four), whatever `min_episodes` is
GROUP_ROOM = 4


def background(row: np.ndarray, leader: int, cfg: SemanticConfig) -> tuple[float, float]:
    """The mean and spread of the leader's likeness to the user's other statements, without the `GROUP_ROOM`
    closest: those are the group it may lead, whose members would otherwise make the spread."""
    others = np.sort(np.delete(row, leader))[:max(1, len(row) - 1 - GROUP_ROOM)]
    return float(others.mean()), max(float(others.std()), 1e-6)


def _standing_out(row: np.ndarray, leader: int, level: float, cfg: SemanticConfig) -> np.ndarray:
    """Where `row` stands `level` standard deviations above the leader's other statements (`background`; the test of
    `write.rules.stands_out`, for a whole row at once)."""
    mean, spread = background(row, leader, cfg)
    return row - mean >= level * spread


def _mutual(leader: int, near: np.ndarray, likeness: Likeness) -> np.ndarray:
    """The members of `near` that count `leader` among their own closest `len(near) + MUTUAL_SLACK` candidates:
    a rank, which adapts to how crowded each member's neighbourhood is."""
    if len(near) <= 1:
        return near
    allowed = len(near) + MUTUAL_SLACK
    keep = []
    for j in near:
        if j == leader:
            keep.append(j)
            continue
        row = likeness.row(int(j))
        closer = int((row > row[leader]).sum()) - 1  # itself is always closer
        if closer < allowed:
            keep.append(j)
    return np.asarray(keep, dtype=np.int64)


def _near(leader: int, likeness: Likeness, records: Sequence[MemoryRecord], cfg: SemanticConfig,
          free: np.ndarray | None = None) -> np.ndarray:
    """The leader first, then the candidates that say what it says: in its script, close on the cosine
    (`group_similarity`), sharing a topic word and standing out on `Likeness` from the leader's other statements;
    in the other script, close on the cosine (`correction_similarity`, as across scripts for a change of mind)
    and standing out on it. Each must count the leader among its nearest (`_mutual`)."""
    cosine = likeness.cosines(leader)
    same = likeness.same_script(leader)
    topic = likeness.words[leader]
    shares = np.asarray([bool(topic & words) for words in likeness.words])
    mask = np.where(same, (cosine >= cfg.group_similarity) & shares, cosine >= cfg.correction_similarity)
    # with fewer than two groups' worth of other statements there is no background to stand out from: the floor
    # and a shared topic word decide alone (across scripts, the stricter floor of one script)
    if len(cosine) - 1 >= 2 * cfg.min_episodes:
        mask &= np.where(same, _standing_out(likeness.row(leader), leader, GROUP_STANDS_OUT, cfg),
                         _standing_out(cosine, leader, CROSS_STANDS_OUT, cfg))
    else:
        mask &= same | (cosine >= cfg.group_similarity)
    if free is not None:
        mask &= free
    near = np.flatnonzero(mask)
    near = np.concatenate([[leader], near[near != leader]]).astype(np.int64)
    return _mutual(leader, near, likeness)


def joinable(records: Sequence[MemoryRecord]) -> np.ndarray:
    """Which candidates may lead or join a group: all but small talk (`write.small_talk`), requests for one
    occasion (`rules.for_one_occasion`) and stories of an occasion just past (`timeparse.tells_one_past_occasion`).
    They stay in the `background`: they are what the user said."""
    speakers = {said for said in (speaker(r.raw_content) for r in records) if said is not None}
    return np.asarray([not small_talk(r.raw_content, speakers - {speaker(r.raw_content)})
                       and not for_one_occasion(r.raw_content) and not tells_one_past_occasion(r.raw_content)
                       for r in records], dtype=bool)


def find_groups(records: Sequence[MemoryRecord], vectors: np.ndarray, cfg: SemanticConfig,
                block: int = 1024) -> list[Group]:
    """Leader clustering: the episode with the most neighbours takes them all, then the next (ties: the older)."""
    n = len(records)
    if n == 0:
        return []
    said = np.asarray([times_said(r) for r in records], dtype=np.int64)  # a merged repeat counts again
    counts = np.zeros(n, dtype=np.int64)
    for start in range(0, n, block):
        counts[start:start + block] = (vectors[start:start + block] @ vectors.T >= cfg.group_similarity) @ said
    taken = ~joinable(records)
    groups = []
    likeness = Likeness(records, vectors)
    for leader in np.argsort(-counts, kind="stable"):
        if taken[leader] or counts[leader] < 2:
            continue
        group = _group(_near(int(leader), likeness, records, cfg, ~taken), records)
        if qualifies(group, cfg):
            taken[list(group.members)] = True
            groups.append(group)
    return groups


def group_around(member: int, records: Sequence[MemoryRecord], vectors: np.ndarray,
                 cfg: SemanticConfig) -> Group | None:
    """The cheap after-write check: the largest qualifying group that contains the new episode, each of its
    neighbours tried as the leader (ties: the leader said first)."""
    free = joinable(records)
    if not free[member]:
        return None
    near_new = np.flatnonzero((vectors @ vectors[member] >= cfg.group_similarity) & free)
    best: Group | None = None
    likeness = Likeness(records, vectors)
    for leader in near_new:
        group = _group(_near(int(leader), likeness, records, cfg, free), records)
        if member in group.members and qualifies(group, cfg) and \
                (best is None or group.occurrences > best.occurrences):
            best = group
    return best


def largest_group(records: Sequence[MemoryRecord], vectors: np.ndarray, cfg: SemanticConfig) -> Group | None:
    """The group with the most occurrences, qualifying or not (for saying why nothing formed)."""
    best: Group | None = None
    free = joinable(records)
    counts = np.where(free, [(vectors @ v >= cfg.group_similarity).sum() for v in vectors], -1)
    likeness = Likeness(records, vectors)
    for leader in np.argsort(-counts, kind="stable")[:32]:  # the most crowded leaders: a bounded look
        if not free[leader]:
            break
        group = _group(_near(int(leader), likeness, records, cfg, free), records)
        if best is None or group.occurrences > best.occurrences:
            best = group
    return best
