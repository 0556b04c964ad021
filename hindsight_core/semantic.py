"""Semantic memory: the pure planning behind consolidation, duplicates and conflicts.

Nothing here touches storage; `Hindsight` applies the plans atomically.

- **Groups**: episodes whose embeddings are at least `group_similarity` apart
  from a leader episode form a group; a group with at least `min_episodes`
  occurrences (a merged near-duplicate counts once per confirmation) spread
  over at least `min_span_days` becomes one semantic memory.
- **Summary**: extractive by default (`summary.extractive_summary`): what the
  group shows, how often and when, e.g. "Prefers printing reports in A4
  landscape (5 times, 2026-03-18 to 03-22)", with the entities that at least
  half the group mentions. A language model can write it instead; its answer
  is checked (non-empty, short, one line, mentions the group's entities)
  before anything is written.
- **Duplicates**: a new memory at least `duplicate_similarity` similar to an
  active one, or equal after normalisation, is merged into it (confirmations+1).
- **Conflicts**: a new statement of the user's that sets the same single-valued
  attribute as an older one (where they live, a favourite colour, landscape or
  portrait; `cues.attributes`) to a different value supersedes it: the old one
  keeps living with lower confidence and `superseded_by` set.
- **Groups hold only what the user states**: preferences, facts, corrections
  and requests with a parameter, never questions, greetings or chit-chat, and
  never an agent's or a tool's words (`consolidation_candidates`).
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from .config import SemanticConfig
from .cues import CHANGE_MARKER_TOKENS, attributes, exclusive_clash, exclusive_terms, value_slots
from .gate import speaker, strip_speaker
from .summary import extractive_summary
from .text import keyword_tokens
from .types import EventType, Layer, MemoryRecord, Source, Status

def normalise_for_duplicates(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).lower().split()).strip(" .!。！")


def content_tokens(text: str) -> set[str]:
    return set(keyword_tokens(text)) - CHANGE_MARKER_TOKENS


def lexical_overlap(a: set[str], b: set[str]) -> float:
    """Jaccard overlap of two token sets."""
    return len(a & b) / len(a | b) if a | b else 1.0


def is_duplicate(new_text: str, old_text: str, similarity: float, cfg: SemanticConfig) -> bool:
    """Equal after normalisation, or both embedding-close and word-close.

    The lexical check matters: an English-only model such as MiniLM puts most
    Chinese sentences at cosine > 0.95 from each other.
    """
    if normalise_for_duplicates(new_text) == normalise_for_duplicates(old_text):
        return True
    return similarity >= cfg.duplicate_similarity and \
        lexical_overlap(content_tokens(new_text), content_tokens(old_text)) >= cfg.duplicate_overlap


#: event types that state something about the user that can repeat (and so become knowledge) or change
STANDING_TYPES = frozenset({EventType.PREFERENCE.value, EventType.CORRECTION.value, EventType.FACT.value,
                            EventType.REQUEST.value})
_QUESTION = re.compile(r"[?？]\s*$|[吗呢]\s*$|^\s*(?:what|which|who|whom|where|when|how|why|do|does|did|is|are|can|"
                       r"could|would|will|should|have|has)\b", re.I)


#: kinds of statement in which naming an exclusive value sets it ("print it in landscape"); elsewhere the same
#: words describe ("a bench near the window", "last night")
_ASKING_TYPES = frozenset({EventType.PREFERENCE.value, EventType.REQUEST.value, EventType.CORRECTION.value})


def attributes_of(record: MemoryRecord) -> set[str]:
    """The attributes a stored statement sets (`cues.attributes`); exclusive values count only in a preference,
    a request or a correction."""
    found = attributes(strip_speaker(record.raw_content))
    if record.event_type not in _ASKING_TYPES:
        found = {a for a in found if not a.startswith("exclusive:")}
    return found


def is_question(text: str) -> bool:
    """A question states nothing: it neither becomes knowledge nor replaces what was said."""
    return bool(_QUESTION.search(strip_speaker(text)))


def is_conflict(new: MemoryRecord, old: MemoryRecord, similarity: float, cfg: SemanticConfig) -> bool:
    """Whether `new` sets a different value for one of the single-valued attributes `old` sets.

    Both must be the user's own statements (text from an agent or a tool is data:
    it never replaces what the user said) and neither a question. They must set
    the same attribute (`cues.attributes`: where the user lives, a phone number,
    a favourite colour, a group of exclusive values such as landscape / 纵向,
    in either language), and differ on it: two exclusive values of the group
    (`cues.exclusive_clash`), or, for other attributes, words only one side
    has. Near-duplicates confirm, never supersede. Events ("I went to Paris")
    and follow-up tasks ("Run the integration tests now") set no attribute, so
    they never supersede anything. `similarity` is not consulted: a fixed cosine
    cut-off on one model's scale says nothing about the same slot.
    """
    if old.superseded_by or old.status is not Status.ACTIVE or old.id == new.id:
        return False
    if new.source is not Source.USER or old.source is not Source.USER:
        return False
    if new.event_type not in STANDING_TYPES or old.event_type not in STANDING_TYPES:  # events never supersede
        return False
    if is_question(new.raw_content) or is_question(old.raw_content):
        return False
    if speaker(new.raw_content) != speaker(old.raw_content):  # one person's words never replace another's
        return False
    shared = attributes_of(new) & attributes_of(old)
    if not shared:
        return False
    if normalise_for_duplicates(new.raw_content) == normalise_for_duplicates(old.raw_content):
        return False
    if exclusive_clash(new.raw_content, old.raw_content) is not None:
        return True
    if all(a.startswith("exclusive:") for a in shared):  # the same exclusive value: an agreement
        return False
    mine, theirs = _value_words(new.raw_content), _value_words(old.raw_content)
    return bool(mine - theirs) and bool(theirs - mine)


def _value_words(text: str) -> set[str]:
    """The words that can carry an attribute's value: content words, digits and the text's values."""
    words = content_tokens(strip_speaker(text))
    for values in value_slots(text).values():
        words |= set(values)
    return words


#: CJK characters too common to say what a group is about ("我", "的", "了" ...)
_CJK_FUNCTION = frozenset("我你他她它们的了是在有和也都就不这那一个很吗呢吧啊么没要会对说去到把被给")
_CJK_TOKEN = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff]+$")
#: words every diary uses: they date a memory, they do not say what it is about
_NOT_TOPICS = frozenset(keyword_tokens(
    "today yesterday tomorrow tonight morning evening night day days week weeks weekend month months year years "
    "time times again also really still now new got get went go going one two") +
    ["今天", "昨天", "明天", "周末", "最近", "上午", "下午", "晚上", "早上", "时候", "一下", "已经"])


def _topic_tokens(text: str) -> set[str]:
    """Keyword tokens that can name a topic: no speaker, change markers, dates or numbers; CJK bigrams of content
    characters."""
    out = set()
    for token in keyword_tokens(strip_speaker(text)):
        if token in CHANGE_MARKER_TOKENS or token in _NOT_TOPICS or token.isdigit():
            continue
        if _CJK_TOKEN.match(token) and (len(token) < 2 or set(token) & _CJK_FUNCTION):
            continue
        out.add(token)
    return out


def shared_topic(records: Sequence[MemoryRecord]) -> str | None:
    """The topic word the most records use (at least two; ties: the one said first), or None.

    Embeddings alone over-group: an English model puts most Chinese sentences
    at cosine > 0.95, and e5 puts unrelated sentences above 0.7. Episodes that
    repeat a preference or a request repeat its words ("landscape", "横向"),
    so a group is the members that use its topic word (see `_group`).
    """
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    for record in records:
        for token in sorted(_topic_tokens(record.raw_content), key=record.raw_content.lower().find):
            counts[token] += 1
            first.setdefault(token, len(first))
    best = min(((-c, first[t], t) for t, c in counts.items() if c >= 2), default=None)
    return best[2] if best else None


# -- groups ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Group:
    """Indices into the candidate list, leader first."""

    members: tuple[int, ...]
    occurrences: int
    span_days: float
    #: the word the members share (`shared_topic`); None when they share none
    topic: str | None = ""


def consolidation_candidates(records: Sequence[MemoryRecord]) -> list[int]:
    """Indices of the episodes that may still be consolidated.

    Only what the user stated and can state again: a preference, a fact, a
    correction, a request with its parameter (`STANDING_TYPES`), said by the
    user (an agent's or a tool's words never become the user's knowledge),
    active, not yet consolidated or superseded, and not a question. Greetings,
    thanks, questions back and chit-chat never group.
    """
    return [i for i, r in enumerate(records)
            if r.layer is Layer.EPISODIC and r.status is Status.ACTIVE and not r.consolidated_into
            and not r.superseded_by and r.source is Source.USER and r.event_type in STANDING_TYPES
            and not is_question(r.raw_content)]


def may_group(record: MemoryRecord) -> bool:
    """Whether an episode can be in a group at all: a candidate (`consolidation_candidates`) that sets an attribute
    (`_group` groups by attribute). The after-write check looks for groups only around such episodes."""
    return bool(consolidation_candidates([record])) and bool(attributes_of(record))


def _span_days(records: Sequence[MemoryRecord]) -> float:
    first = min(r.timestamp for r in records)
    last = max(r.last_confirmed or r.timestamp for r in records)
    return (last - first).total_seconds() / 86400.0


def _group(indices: np.ndarray, records: Sequence[MemoryRecord]) -> Group:
    """The members of `indices` that state the same thing as the leader (the first).

    They set one of the leader's attributes (`cues.attributes`: an exclusive value
    such as landscape or 横向, a preference for one purpose, where the user
    lives) to the leader's value (no exclusive value the leader contradicts), are
    of the leader's kind (a request with requests, a preference with preferences
    or requests) and were said by the same speaker. A leader that sets no
    attribute leads no group: chit-chat that shares words is not knowledge.
    """
    leader = records[int(indices[0])]
    wanted = attributes_of(leader)
    if not wanted:
        return Group((), 0, 0.0, None)
    kinds = _KINDS_WITH.get(leader.event_type, {leader.event_type})
    who = speaker(leader.raw_content)
    kept = [int(i) for i in indices if records[i].event_type in kinds and speaker(records[i].raw_content) == who
            and exclusive_clash(leader.raw_content, records[i].raw_content) is None
            and attributes_of(records[i]) & wanted]
    members = [records[i] for i in kept]
    if not members:
        return Group((), 0, 0.0, None)
    shared = set.intersection(*(attributes_of(m) for m in members))
    topic = _topic_name(sorted(shared)[0], members) if shared else shared_topic(members)
    return Group(tuple(kept), sum(r.confirmations for r in members), _span_days(members), topic)


def _topic_name(attribute: str, members: Sequence[MemoryRecord]) -> str:
    """An attribute as a readable topic: the exclusive value the members name ("landscape"), or the attribute."""
    if attribute.startswith("exclusive:"):
        group = int(attribute.split(":", 1)[1])
        values = [v for m in members for v in exclusive_terms(m.raw_content).get(group, ())]
        if values:
            return max(set(values), key=values.count)
    return attribute


#: which kinds of episode state the same thing as a leader of each kind
_KINDS_WITH = {EventType.PREFERENCE.value: {EventType.PREFERENCE.value, EventType.REQUEST.value,
                                            EventType.CORRECTION.value},
               EventType.REQUEST.value: {EventType.REQUEST.value, EventType.PREFERENCE.value},
               EventType.CORRECTION.value: {EventType.CORRECTION.value, EventType.PREFERENCE.value},
               EventType.FACT.value: {EventType.FACT.value}}


def qualifies(group: Group, cfg: SemanticConfig) -> bool:
    """Enough occurrences over enough days, and a shared topic word (`shared_topic`)."""
    return group.occurrences >= cfg.min_episodes and group.span_days >= cfg.min_span_days and \
        group.topic is not None


def find_groups(records: Sequence[MemoryRecord], vectors: np.ndarray, cfg: SemanticConfig,
                block: int = 1024) -> list[Group]:
    """Leader clustering: the episode with the most neighbours takes them all, then the next."""
    n = len(records)
    if n == 0:
        return []
    counts = np.zeros(n, dtype=np.int64)
    for start in range(0, n, block):
        counts[start:start + block] = (vectors[start:start + block] @ vectors.T >= cfg.group_similarity).sum(axis=1)
    taken = np.zeros(n, dtype=bool)
    groups = []
    for leader in np.argsort(-counts, kind="stable"):
        if taken[leader] or counts[leader] < 2:
            continue
        near = np.flatnonzero((vectors @ vectors[leader] >= cfg.group_similarity) & ~taken)
        near = np.concatenate([[leader], near[near != leader]])
        group = _group(near, records)
        if qualifies(group, cfg):
            taken[list(group.members)] = True
            groups.append(group)
    return groups


def group_around(member: int, records: Sequence[MemoryRecord], vectors: np.ndarray,
                 cfg: SemanticConfig) -> Group | None:
    """The cheap after-write check: does the new episode complete a group?

    The new episode need not lead its group: each of its neighbours is tried as
    the leader, and the largest qualifying group that contains it wins.
    """
    near_new = np.flatnonzero(vectors @ vectors[member] >= cfg.group_similarity)
    best: Group | None = None
    for leader in near_new:
        near = np.flatnonzero(vectors @ vectors[leader] >= cfg.group_similarity)
        if member not in near:
            continue
        group = _group(np.concatenate([[leader], near[near != leader]]), records)
        if member in group.members and qualifies(group, cfg) and \
                (best is None or group.occurrences > best.occurrences):
            best = group
    return best


# -- summaries ---------------------------------------------------------------------------------

def shared_entities(records: Sequence[MemoryRecord]) -> list[str]:
    """Entities at least half of the group mentions, most frequent first."""
    counts: Counter[str] = Counter()
    spelling: dict[str, str] = {}
    for record in records:
        for entity in {e.lower(): e for e in record.entities}.items():
            counts[entity[0]] += 1
            spelling.setdefault(entity[0], entity[1])
    need = max(1, (len(records) + 1) // 2)
    return [spelling[key] for key, c in counts.most_common() if c >= need]


SUMMARY_PROMPT = """These statements were made by one user on different days:
{statements}

Write ONE short sentence (at most 30 words) stating the stable preference or fact they show, about "the user".
Keep these names and values exactly: {entities}.
Answer with JSON only: {{"summary": "..."}}"""


class SummaryRejected(ValueError):
    """A model's summary failed validation; nothing was written."""


def llm_summary(llm: Callable[[str], str], records: Sequence[MemoryRecord], entities: Sequence[str]) -> str:
    """Ask a model for the summary and validate it; raises SummaryRejected."""
    statements = "\n".join(f"- {r.summary}" for r in records)
    answer = llm(SUMMARY_PROMPT.format(statements=statements, entities=", ".join(entities) or "(none)"))
    return validate_summary(answer, entities)


def validate_summary(answer: Any, entities: Sequence[str]) -> str:
    if not isinstance(answer, str):
        raise SummaryRejected(f"the summariser returned {type(answer).__name__}, not text")
    match = re.search(r"\{.*\}", answer, re.S)
    if not match:
        raise SummaryRejected("the summariser's answer has no JSON object")
    try:
        summary = json.loads(match.group(0)).get("summary")
    except (json.JSONDecodeError, AttributeError) as exc:
        raise SummaryRejected(f"the summariser's JSON is malformed: {exc}") from None
    if not isinstance(summary, str) or not summary.strip():
        raise SummaryRejected("the summary is empty")
    summary = " ".join(summary.split())
    if len(summary) > 400:
        raise SummaryRejected("the summary is longer than 400 characters")
    missing = [e for e in entities if e.lower() not in summary.lower()]
    if missing:
        raise SummaryRejected(f"the summary drops the group's entities: {', '.join(missing)}")
    return summary


# -- reports -----------------------------------------------------------------------------------

@dataclass
class ConsolidationReport:
    """What `consolidate` did (or, with dry_run, would do). Errors are never reported as success."""

    user_id: str
    dry_run: bool
    created: list[MemoryRecord] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "dry_run": self.dry_run, "ok": self.ok,
                "created": [{"id": r.id, "summary": r.summary, "derived_from": r.derived_from} for r in self.created],
                "merged": list(self.merged), "superseded": list(self.superseded), "errors": list(self.errors)}

    def _repr_html_(self) -> str:
        head = "<tr><th>knowledge</th><th>type</th><th>episodes</th><th>id</th></tr>"
        rows = "".join(f"<tr><td>{html.escape(r.summary)}</td><td>{html.escape(r.event_type)}</td>"
                       f"<td>{len(r.derived_from)}</td><td>{html.escape(r.id)}</td></tr>" for r in self.created)
        errors = "".join(f"<li>{html.escape(e)}</li>" for e in self.errors)
        return (f"<p>{html.escape(str(self))}</p>" + (f"<table>{head}{rows}</table>" if self.created else "")
                + (f"<ul>{errors}</ul>" if errors else ""))

    def __str__(self) -> str:
        verb = "would create" if self.dry_run else "created"
        status = "ok" if self.ok else f"FAILED ({len(self.errors)} errors: {'; '.join(self.errors)})"
        return f"{verb} {len(self.created)} semantic memories, merged {len(self.merged)}, " \
               f"superseded {len(self.superseded)}: {status}"
