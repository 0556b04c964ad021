"""The write path's first stage: one offered text becomes a record to store, or a reason not to.

In order: validate every field (a careless or hostile caller gets an
`InvalidInputError` before any work), the write audit (is it safe to keep?
rejected text is not stored, quarantined text is stored but never recalled; an
agent or tool write is also read with its session's recent ones, `safety.session_window`),
the write gate (is it worth keeping? `force` skips this, never the audit),
then the record with its confidence scaled by who wrote it. Text that did not
come from the user is data: an `event_type` the caller asks for is kept only
if it fits the source (`gate.as_data`: a tool's "preference" is stored as a
fact, and the reasons say so). Nothing here touches storage or the embedder.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Mapping, Sequence

from ..config import HindsightConfig
from ..errors import InvalidInputError
from ..language.entities import extract_entities
from ..language.text import summarize_line, validate_id, validate_text
from ..safety.audit import Action, AuditVerdict
from ..safety.session_window import SessionWindow
from ..types import GateDecision, Layer, MemoryRecord, Source, Status
from .gate import SOURCE_TRUST, USER_ONLY_KINDS, WriteGate, as_data
from . import validation
from .validation import (
    check_confidence,
    check_entities,
    check_event_type,
    check_flag,
    check_per_text,
    check_timestamp,
    check_visible,
)


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


def check_metadata(metadata: Mapping[str, Any] | None, config: HindsightConfig) -> dict[str, Any]:
    """Metadata as plain JSON within the configured limits (`validation.check_metadata`)."""
    limits = config.limits
    return validation.check_metadata(metadata, max_depth=limits.max_metadata_depth,
                                     max_bytes=limits.max_metadata_bytes)


def prepare(text: str, *, user_id: str, config: HindsightConfig, audit: Callable[[str, Source], AuditVerdict],
            gate: WriteGate, now: datetime, embedding_model: str, session_id: str | None = None,
            agent_id: str | None = None, source: Source | str = Source.USER, event_type: str | None = None,
            timestamp: datetime | None = None, confidence: float | None = None,
            entities: Sequence[str] | None = None, metadata: Mapping[str, Any] | None = None,
            force: bool = False, layer: Layer | str = Layer.EPISODIC, context: str | None = None,
            window: SessionWindow | None = None) -> tuple[MemoryRecord | None, GateDecision, AuditVerdict]:
    """Validate, audit and judge one write; returns the record to store (None if declined)."""
    limits = config.limits
    clean = check_visible(validate_text(text, max_bytes=limits.max_text_bytes))
    context = check_visible(validate_text(context, max_bytes=limits.max_text_bytes, what="context"), "context") \
        if context is not None and context != "" else None
    session_id = validate_id(session_id, what="session_id", max_chars=limits.max_id_chars, required=False)
    agent_id = validate_id(agent_id, what="agent_id", max_chars=limits.max_id_chars, required=False)
    try:
        source = Source(source)
        layer = Layer(layer)
    except ValueError as exc:
        raise InvalidInputError(f"{exc}; source is one of {[s.value for s in Source]}, "
                                f"layer one of {[x.value for x in Layer]}") from None
    if layer is Layer.WORKING:
        raise InvalidInputError("working memory is per session; use WorkingMemory, not remember()")
    event_type = check_event_type(event_type, config.decay.rates)
    timestamp = check_timestamp(timestamp)
    confidence, entities = check_confidence(confidence), check_entities(entities)
    force = check_flag(force, "force")
    meta = check_metadata(metadata, config)
    verdict = audit(clean, source)
    if window is not None:  # an order split across this session's recent agent or tool writes
        verdict = window.screen(user_id, session_id, clean, source, verdict, audit)
    if verdict.action is Action.REJECT:
        return None, GateDecision(False, "rejected", ("rejected by the write audit",) + verdict.reasons, 0.0), verdict
    decision = gate(clean, source)
    if not decision.store and not force:
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
        timestamp=timestamp if timestamp is not None else now, layer=layer, event_type=kind,
        session_id=session_id, agent_id=agent_id,
        entities=list(entities) if entities is not None else extract_entities(clean),
        confidence=float(confidence if confidence is not None else conf), source=source,
        decay_rate=config.decay.rate_for(kind), embedding_model=embedding_model, metadata=meta,
        status=status, context=context,
    )
    return record, decision, verdict


#: `write_many` arguments that hold one entry per text, and the keyword each entry stands for
PER_TEXT = {"timestamps": "timestamp", "sources": "source", "metadatas": "metadata", "contexts": "context"}


def prepare_batch(texts: Sequence[str], *, user_id: str, config: HindsightConfig,
                  audit: Callable[[str, Source], AuditVerdict], gate: WriteGate, now: Callable[[], datetime],
                  embedding_model: str, window: SessionWindow | None = None,
                  per_text: Mapping[str, Sequence[Any] | None], common: Mapping[str, Any]
                  ) -> list[tuple[MemoryRecord | None, GateDecision, AuditVerdict]]:
    """`prepare` for each text of a `write_many` call, after checking the batch's shape (before any work).

    `per_text`: the `PER_TEXT` arguments (None, or one entry per text); `common`: the keyword arguments that
    apply to every text (a per-text argument given overrides its single form).
    """
    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise InvalidInputError("texts must be a list of strings")
    if len(texts) > config.limits.max_batch:
        raise InvalidInputError(f"{len(texts):,} texts in one batch; the limit is {config.limits.max_batch:,}")
    for name, values in per_text.items():
        check_per_text(name, values, len(texts))
    base = {k: v for k, v in common.items() if k not in PER_TEXT.values()}
    single = {"timestamp": None, "source": Source.USER, "metadata": None, "context": None}

    def field(name: str, i: int) -> Any:
        values = per_text.get(name)
        one = PER_TEXT[name]
        return values[i] if values is not None else common.get(one, single[one])

    return [prepare(text, user_id=user_id, config=config, audit=audit, gate=gate, now=now(),
                    embedding_model=embedding_model, window=window, timestamp=field("timestamps", i),
                    source=field("sources", i), metadata=field("metadatas", i), context=field("contexts", i),
                    **base)
            for i, text in enumerate(texts)]


def embedding_text(record: MemoryRecord) -> str:
    """What the dense channel embeds: the turn with the one it answers."""
    return f"{record.context}\n{record.raw_content}" if record.context else record.raw_content
