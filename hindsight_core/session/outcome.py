"""What became of a write, in one vocabulary and one wording for every interface.

A write ends in exactly one of five ways:

    stored        kept as a new memory; recall can bring it back
    merged        it repeated a memory already held; that memory was confirmed instead
    quarantined   the write audit held it for review: kept apart, never recalled, not "saved"
    skipped       the write gate found nothing worth keeping
    rejected      the write audit refused it; nothing was kept

Only `stored` and `merged` leave the text where recall finds it, so only they count as `kept`. The tools answer
the model with `describe(...)` and the MCP server returns `report(...)`, so a write reads the same everywhere.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

from ..safety.audit import Action
from ..types import Status

if TYPE_CHECKING:
    from ..contract.results import WriteResult


class WriteOutcome(str, enum.Enum):
    """How one write ended (see the module docstring)."""

    STORED = "stored"
    MERGED = "merged"
    QUARANTINED = "quarantined"
    SKIPPED = "skipped"
    REJECTED = "rejected"

    @property
    def kept(self) -> bool:
        """Whether recall can now find what was written."""
        return self in (WriteOutcome.STORED, WriteOutcome.MERGED)


def outcome_of(result: "WriteResult") -> WriteOutcome:
    """The outcome of one `WriteResult`."""
    if result.record is None:
        rejected = result.audit is not None and result.audit.action is Action.REJECT
        return WriteOutcome.REJECTED if rejected else WriteOutcome.SKIPPED
    if result.record.status is Status.QUARANTINED:
        return WriteOutcome.QUARANTINED
    return WriteOutcome.MERGED if result.merged else WriteOutcome.STORED


def reasons_of(result: "WriteResult") -> tuple[str, ...]:
    """Why it ended so: the audit's reasons for a quarantine, the gate's (or the audit's refusal) otherwise."""
    if outcome_of(result) is WriteOutcome.QUARANTINED:
        return tuple(result.audit.reasons) if result.audit is not None else ()
    return tuple(result.decision.reasons)


def describe(result: "WriteResult") -> str:
    """One sentence for a model or a person: what became of the write, and why."""
    outcome = outcome_of(result)
    why = "; ".join(reasons_of(result))
    record = result.record
    if outcome is WriteOutcome.STORED and record is not None:
        return f"Saved as a {record.event_type} memory (id: {record.id})."
    if outcome is WriteOutcome.MERGED and record is not None:
        return f"Already known: confirmed the existing memory {record.id} instead of saving a copy."
    if outcome is WriteOutcome.QUARANTINED:
        return "Not saved: held for review by the write audit" + (f": {why}." if why else ".")
    return f"Not saved: {why}." if why else "Not saved."


def report(result: "WriteResult") -> dict[str, Any]:
    """The outcome as JSON-ready data: outcome, kept, message, reasons, event type and the memory's id."""
    outcome = outcome_of(result)
    out: dict[str, Any] = {"outcome": outcome.value, "kept": outcome.kept, "message": describe(result),
                           "reasons": list(reasons_of(result)), "event_type": result.decision.event_type}
    if outcome.kept and result.record is not None:
        out.update(id=result.record.id, summary=result.record.summary)
    return out
