"""The write path's first stage: one offered text becomes a record to store, or a reason not to.

In order: validate the text and every option (`WriteOptions.checked`), the write audit (with `session_window` for an
agent's or a tool's), the write gate (`force` skips it, never the audit), then the record with its confidence scaled by
who wrote it. The turn a text answers is screened too (`screened_context`). An `event_type` the caller asks for is kept
only if it fits the source (`gate.as_data`). Nothing here touches storage or the embedder.
"""

from __future__ import annotations

import dataclasses
import uuid
from datetime import datetime
from typing import Any, Callable, Mapping, Sequence

from ..config import HindsightConfig
from ..contract.checks import check_batch, check_visible
from ..contract.options import WriteOptions, per_text
from ..language.entities import extract_entities
from ..language.text import summarize_line, validate_text
from ..safety.audit import Action, AuditVerdict
from ..safety.held import AuditMemory
from ..safety.session_window import SessionWindow
from ..types import ANSWERS_KEY, GateDecision, Layer, MemoryRecord, Source, Status
from .gate import SOURCE_TRUST, USER_ONLY_KINDS, WriteGate, as_data


#: the record fields worked out below from an option (a default, the gate's kind and confidence, the audit's note)
_WORKED_OUT = frozenset(("timestamp", "layer", "event_type", "entities", "confidence", "source", "metadata"))
#: the options a record keeps as checked, under the same name (`force` and `merge_duplicates` instruct the write)
KEPT_AS_GIVEN = tuple(f.name for f in dataclasses.fields(WriteOptions)
                      if f.name in {r.name for r in dataclasses.fields(MemoryRecord)} and f.name not in _WORKED_OUT)


def screened_context(options: WriteOptions, audit: AuditMemory) -> tuple[WriteOptions, tuple[str, ...]]:
    """`options` without their context when the audit holds that turn back, now (read as whoever said it,
    `ANSWERS_KEY`) or when it was written in this process: a relay of a poisoned page must not reach the prompt.
    Returns the options and the reasons to add to the gate's."""
    if options.context is None:
        return options, ()
    said_by = (options.metadata or {}).get(ANSWERS_KEY)
    source = Source(said_by) if said_by in {s.value for s in Source} else Source.AGENT
    if not audit.held(options.context) and audit(options.context, source).action is Action.ALLOW:
        return options, ()
    metadata = {k: v for k, v in (options.metadata or {}).items() if k != ANSWERS_KEY}
    return (dataclasses.replace(options, context=None, metadata=metadata or None),
            ("the turn it answers was held back by the write audit, so it is not kept as its context",))


def prepare(text: str, options: WriteOptions, *, user_id: str, config: HindsightConfig,
            audit: AuditMemory, gate: WriteGate, now: datetime, embedding_model: str,
            window: SessionWindow | None = None) -> tuple[MemoryRecord | None, GateDecision, AuditVerdict]:
    """Validate (the text, then `options.checked`), audit and judge one write; returns the record to store
    (None if declined)."""
    clean = check_visible(validate_text(text, max_bytes=config.limits.max_text_bytes))
    options, context_reasons = screened_context(options.checked(config), audit)
    source, layer, event_type = Source(options.source), Layer(options.layer), options.event_type
    meta = dict(options.metadata or {})
    verdict = audit(clean, source)
    if window is not None:  # an order split across this session's recent agent or tool writes
        verdict = window.screen(user_id, options.session_id, clean, source, verdict, audit)
    audit.settled(clean, verdict)
    if verdict.action is Action.REJECT:
        return None, GateDecision(False, "rejected", ("rejected by the write audit",) + verdict.reasons, 0.0), verdict
    decision = gate(clean, source)
    if context_reasons:
        decision = dataclasses.replace(decision, reasons=decision.reasons + context_reasons)
    if not decision.store and not options.force:
        return None, decision, verdict
    kind = as_data(event_type or decision.event_type, source)
    if event_type in USER_ONLY_KINDS and kind != event_type:
        decision = GateDecision(decision.store, decision.event_type, decision.reasons + (
            f"asked to store a {event_type}, but only the user's own words are one: kept as a {kind}",),
            decision.confidence)
    # forced past the gate: a neutral confidence, still scaled by who wrote it
    conf = decision.confidence if decision.confidence > 0 else round(0.6 * SOURCE_TRUST[source], 3)
    status = Status.ACTIVE
    if verdict.action is Action.QUARANTINE:
        status = Status.QUARANTINED
        meta = {**meta, "audit": {"action": verdict.action.value,
                                  "category": verdict.category.value if verdict.category else None,
                                  "reasons": list(verdict.reasons)}}
    record = MemoryRecord(
        id=str(uuid.uuid4()), user_id=user_id, summary=summarize_line(clean), raw_content=clean,
        timestamp=options.timestamp if options.timestamp is not None else now, layer=layer, event_type=kind,
        entities=list(options.entities) if options.entities is not None else extract_entities(clean),
        confidence=float(options.confidence if options.confidence is not None else conf), source=source,
        decay_rate=config.decay.rate_for(kind), embedding_model=embedding_model, metadata=meta, status=status,
        **{name: getattr(options, name) for name in KEPT_AS_GIVEN},
    )
    return record, decision, verdict


def prepare_batch(texts: Sequence[str], options: Mapping[str, Any], *, user_id: str, config: HindsightConfig,
                  audit: AuditMemory, gate: WriteGate, now: Callable[[], datetime],
                  embedding_model: str, window: SessionWindow | None = None
                  ) -> list[tuple[MemoryRecord | None, GateDecision, AuditVerdict]]:
    """`prepare` for each text of a `write_many` call, after checking the batch's shape (before any work).

    `options`: `write_many`'s keyword arguments, the per-text lists (`request.PER_TEXT`) among them.
    """
    texts = check_batch(texts, config.limits.max_batch)
    each = per_text(options, len(texts))
    return [prepare(text, one, user_id=user_id, config=config, audit=audit, gate=gate, now=now(),
                    embedding_model=embedding_model, window=window)
            for text, one in zip(texts, each)]


def embedding_text(record: MemoryRecord) -> str:
    """What the dense channel embeds: the turn with the one it answers."""
    return f"{record.context}\n{record.raw_content}" if record.context else record.raw_content
