"""The records hindsight stores and returns: plain dataclasses (their JSON form is `store.payload.record_to_dict`)."""

from __future__ import annotations

import enum
import html
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any


class Layer(str, enum.Enum):
    """Which memory layer a record lives in."""

    WORKING = "working"
    EPISODIC = "episodic"
    SEMANTIC = "semantic"


class Source(str, enum.Enum):
    """Who wrote a memory, as told by the caller (never read from the text)."""

    USER = "user"
    AGENT = "agent"
    TOOL = "tool"
    SYSTEM = "system"


#: the metadata key where the conversation policy records who said the turn a memory answers (a `Source` value)
ANSWERS_KEY = "hindsight_answers"
#: how much of the turn before is kept as a turn's context (its end, nearest the reply)
CONTEXT_CHARS = 2000


class Status(str, enum.Enum):
    ACTIVE = "active"
    EXPIRED = "expired"
    ARCHIVED = "archived"
    QUARANTINED = "quarantined"


class EventType(str, enum.Enum):
    """The kinds of event the write gate recognises; each has its own decay rate."""

    PREFERENCE = "preference"
    FACT = "fact"
    TASK_RESULT = "task_result"
    CORRECTION = "correction"
    DIALOGUE = "dialogue"
    EVENT = "event"
    #: a request that carries a parameter ("print it in landscape"): fades fast, repetition consolidates it
    REQUEST = "request"


@dataclass
class MemoryRecord:
    """One memory. Timestamps are timezone-aware UTC datetimes."""

    id: str
    user_id: str
    summary: str
    raw_content: str
    timestamp: datetime
    layer: Layer = Layer.EPISODIC
    event_type: str = EventType.DIALOGUE.value
    session_id: str | None = None
    agent_id: str | None = None
    entities: list[str] = field(default_factory=list)
    confidence: float = 0.8
    source: Source = Source.USER
    decay_rate: float = 0.03
    access_count: int = 0
    spaced_recalls: int = 0
    last_accessed: datetime | None = None
    status: Status = Status.ACTIVE
    embedding_model: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    #: semantic memories: the episodes they were consolidated from
    derived_from: list[str] = field(default_factory=list)
    #: episodes: the semantic memory they were consolidated into (they stay, down-weighted)
    consolidated_into: str | None = None
    #: a memory contradicted by a newer one keeps living, with lowered confidence
    superseded_by: str | None = None
    #: how many times this was said (near-duplicates are merged into one memory)
    confirmations: int = 1
    last_confirmed: datetime | None = None
    #: the turn this one answers (an exchange is stored together, so "yes, the blue one" keeps its referent)
    context: str | None = None

    def evolve(self, **changes: Any) -> "MemoryRecord":
        return replace(self, **changes)

    @property
    def said_last(self) -> datetime:
        """When this was last said: its own time, or the time a repeat merged into it was said."""
        return max(self.timestamp, self.last_confirmed) if self.last_confirmed else self.timestamp

    def answers(self, other: "MemoryRecord") -> bool:
        """Whether this memory was written as the answer to `other`'s words (its context is them, or their end)."""
        return self.context is not None and self.context != "" and other.raw_content.endswith(self.context)

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>"
            for k, v in asdict(self).items()
            if k not in ("raw_content",)
        )
        return f"<table>{rows}</table>"


@dataclass(frozen=True)
class Explanation:
    """Why a memory scored what it did: each channel's rank (1-based, None if absent)."""

    dense_rank: int | None
    dense_similarity: float
    keyword_rank: int | None
    keyword_score: float
    fused: float
    retention: float
    layer: str
    final: float
    #: < 1 for episodes already consolidated into a semantic memory
    weight: float = 1.0
    notes: tuple[str, ...] = ()

    def __str__(self) -> str:
        def rank(r: int | None) -> str:
            return f"#{r}" if r is not None else "-"

        weight = f", weight {self.weight:.2f}" if self.weight != 1.0 else ""
        notes = f" ({'; '.join(self.notes)})" if self.notes else ""
        return (
            f"{self.layer}: dense {rank(self.dense_rank)} (cos {self.dense_similarity:.2f}), "
            f"keyword {rank(self.keyword_rank)} ({self.keyword_score:.0%} of the query's terms); "
            f"retention {self.retention:.0%}{weight}; score {self.final:.4f}{notes}"
        )


@dataclass(frozen=True)
class ScoredMemory:
    """A recalled memory with its score and the reasons for it."""

    memory: MemoryRecord
    score: float
    retention: float
    explanation: Explanation
    #: a knowledge memory in recall's top k: the episodes it stands for that recall found (best first;
    #: `recall.plan.final_order`), for the prompt block to show under it
    episodes: tuple["ScoredMemory", ...] = ()
    #: the ids of the user's later statements on the same subject that recall found (`recall.timeline`)
    later: tuple[str, ...] = ()

    def metadata(self) -> dict[str, Any]:
        """The facts adapters attach to a recalled memory (ids, layer, time, confidence, retention, score)."""
        record = self.memory
        return {"id": record.id, "layer": record.layer.value, "timestamp": record.timestamp.isoformat(),
                "confidence": record.confidence, "retention": self.retention, "score": self.score,
                "event_type": record.event_type, "source": record.source.value, "session_id": record.session_id,
                "explanation": str(self.explanation)}

    def _repr_html_(self) -> str:
        return results_html([self])


def results_html(results: list[ScoredMemory]) -> str:
    """An HTML table of recall results, for Jupyter."""
    head = "<tr><th>#</th><th>memory</th><th>layer</th><th>type</th><th>date</th><th>score</th><th>retention</th><th>why</th></tr>"
    body = "".join(
        "<tr>"
        f"<td>{i}</td><td>{html.escape(r.memory.summary)}</td><td>{r.memory.layer.value}</td>"
        f"<td>{html.escape(r.memory.event_type)}</td><td>{r.memory.timestamp:%Y-%m-%d}</td>"
        f"<td>{r.score:.4f}</td><td>{r.retention:.2f}</td><td>{html.escape(str(r.explanation))}</td>"
        "</tr>"
        for i, r in enumerate(results, 1)
    )
    return f"<table>{head}{body}</table>"


class RecallResults(list):
    """A list of `ScoredMemory` that shows as a table in Jupyter.

    `consensus` holds the retrieval check's report (None when it was off); `held_back` the memories it withheld
    that would otherwise have been among the results, each with why in its explanation's notes.
    """

    def __init__(self, items: Any = (), consensus: Any = None, held_back: Any = ()) -> None:
        super().__init__(items)
        self.consensus = consensus
        self.held_back: tuple[ScoredMemory, ...] = tuple(held_back)

    def _repr_html_(self) -> str:
        return results_html(list(self)) if self else "<p>no memories recalled</p>"


@dataclass(frozen=True)
class GateDecision:
    """The write gate's verdict on one piece of text."""

    store: bool
    event_type: str
    reasons: tuple[str, ...]
    confidence: float = 0.8

    def __str__(self) -> str:
        verdict = "store" if self.store else "skip"
        return f"{verdict} ({self.event_type}): " + "; ".join(self.reasons)


@dataclass(frozen=True)
class ForgetReceipt:
    """What a forget call removed (or, with dry_run, would remove)."""

    user_id: str
    dry_run: bool
    removed: tuple[MemoryRecord, ...]
    #: semantic memories rewritten from the episodes that remain
    rederived: tuple[str, ...] = ()
    #: messages removed from working-memory sessions
    working_messages: int = 0

    @property
    def count(self) -> int:
        return len(self.removed)

    def _repr_html_(self) -> str:
        verb = "would forget" if self.dry_run else "forgot"
        head = "<tr><th>id</th><th>layer</th><th>type</th><th>date</th><th>memory</th></tr>"
        rows = "".join(f"<tr><td>{html.escape(m.id)}</td><td>{m.layer.value}</td><td>{html.escape(m.event_type)}</td>"
                       f"<td>{m.timestamp:%Y-%m-%d}</td><td>{html.escape(m.summary)}</td></tr>" for m in self.removed)
        rederived = f"; {len(self.rederived)} semantic memories rewritten" if self.rederived else ""
        return (f"<p>{verb} {self.count} memories of {html.escape(self.user_id)}{rederived}</p>"
                f"<table>{head}{rows}</table>")

    @property
    def ids(self) -> list[str]:
        return [m.id for m in self.removed]
