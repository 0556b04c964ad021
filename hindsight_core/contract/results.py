"""What the calls of `MemoryAPI` return besides the records and recall results of `types`, below the stages that
make them: `WriteResult`, `ConsolidationReport`, `StoreStats`, `TransferSummary` and the retrieval check's
`ConsensusReport`."""

from __future__ import annotations

import enum
import html
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..types import GateDecision, MemoryRecord

if TYPE_CHECKING:  # the write audit's own verdict; only the wire rebuilds one
    from ..safety.verdict import AuditVerdict

#: the upper edges of the retention histogram's bins (`StoreStats.retention_histogram`)
RETENTION_EDGES = (0.1, 0.3, 0.5, 0.7, 0.9, 1.0)


@dataclass(frozen=True)
class WriteResult:
    """What `write` did: the stored record (None if the gate declined) and the gate's verdict."""

    record: MemoryRecord | None
    decision: GateDecision
    #: True when the text repeated a memory already held: that memory was confirmed instead
    merged: bool = False
    #: the write audit's verdict (None if the text never reached it)
    audit: AuditVerdict | None = None

    @property
    def stored(self) -> bool:
        return self.record is not None


@dataclass
class ConsolidationReport:
    """What `consolidate` did (or, with dry_run, would do). Errors are never reported as success."""

    user_id: str
    dry_run: bool
    created: list[MemoryRecord] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: when nothing formed, why: no episodes, none that may become knowledge (and why), or no group big enough
    why_nothing: str = ""

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "dry_run": self.dry_run, "ok": self.ok,
                "created": [{"id": r.id, "summary": r.summary, "derived_from": r.derived_from} for r in self.created],
                "merged": list(self.merged), "superseded": list(self.superseded), "errors": list(self.errors),
                "why_nothing": self.why_nothing}

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
        why = f" ({self.why_nothing})" if self.why_nothing and not self.created and not self.merged else ""
        return f"{verb} {len(self.created)} semantic memories, merged {len(self.merged)}, " \
               f"superseded {len(self.superseded)}{why}: {status}"


# -- statistics -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StoreStats:
    """Counts per layer and status, the retention of every memory, and the store's size."""

    users: dict[str, int]
    layers: dict[str, int]
    statuses: dict[str, int]
    archived: int
    #: retention now of every memory in the hot store (for histograms and plots)
    retention: tuple[float, ...]
    threshold: float
    store_bytes: int | None

    @property
    def memories(self) -> int:
        return sum(self.users.values())

    def retention_histogram(self, edges: Sequence[float] = RETENTION_EDGES) -> list[tuple[str, int]]:
        """(label, count) per retention bin, the first bin being below the retention threshold (faded)."""
        values = np.asarray(self.retention, dtype=np.float64)
        bounds = [0.0, *edges]
        out = []
        for i, (low, high) in enumerate(zip(bounds, bounds[1:])):
            last = i == len(bounds) - 2
            inside = (values >= low) & ((values <= high) if last else (values < high))
            out.append((f"{low:.1f}-{high:.1f}", int(inside.sum())))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"memories": self.memories, "users": dict(self.users), "layers": dict(self.layers),
                "statuses": dict(self.statuses), "archived": self.archived, "store_bytes": self.store_bytes,
                "retention_threshold": self.threshold,
                "below_threshold": sum(r < self.threshold for r in self.retention),
                "retention_histogram": dict(self.retention_histogram())}


# -- export and import ------------------------------------------------------------------------------------------
@dataclass
class TransferSummary:
    """What an export or import moved."""

    users: set[str] = field(default_factory=set)
    memories: int = 0
    archived: int = 0
    reembedded: int = 0


class Verdict(str, enum.Enum):
    CONSISTENT = "consistent"
    CONTRADICTS = "contradicts"
    TIE = "tie"
    SUPERSEDED = "superseded"
    UNCHECKED = "unchecked"


FLAGGED = frozenset({Verdict.CONTRADICTS, Verdict.TIE, Verdict.SUPERSEDED})


@dataclass(frozen=True)
class ConsensusCheck:
    """The verdict on one recalled memory, with the weights and memories behind it."""

    memory_id: str
    verdict: Verdict
    support: float
    conflict: float
    supporting_ids: tuple[str, ...] = ()
    conflicting_ids: tuple[str, ...] = ()
    superseded_by: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()

    @property
    def flagged(self) -> bool:
        return self.verdict in FLAGGED

    def __str__(self) -> str:
        return f"{self.memory_id}: {self.verdict.value} (for {self.support:g}, against {self.conflict:g}); " + \
            "; ".join(self.reasons)


@dataclass(frozen=True)
class ConsensusReport:
    """One check per recalled memory, in the order they were given."""

    checks: tuple[ConsensusCheck, ...]

    @property
    def flagged(self) -> tuple[ConsensusCheck, ...]:
        return tuple(c for c in self.checks if c.flagged)

    def verdict_of(self, memory_id: str) -> Verdict:
        for check in self.checks:
            if check.memory_id == memory_id:
                return check.verdict
        raise KeyError(memory_id)

    def to_dict(self) -> dict[str, Any]:
        return {"checks": [{"memory_id": c.memory_id, "verdict": c.verdict.value, "support": c.support,
                            "conflict": c.conflict, "conflicting_ids": list(c.conflicting_ids),
                            "superseded_by": list(c.superseded_by), "reasons": list(c.reasons)}
                           for c in self.checks]}
