"""The plain payload fields of a stored memory: names, epoch days, metadata digests, write order.

The lowest module of `store/`: the scope conditions (`values`), the payload codec (`payload`) and both backends read
these names; it imports nothing from the store.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from datetime import datetime
from typing import Any, Mapping

DENSE, SPARSE = "dense", "bm25"

#: the record fields that hold what the user said; sealed when the backend seals payloads
TEXT_FIELDS = ("summary", "raw_content", "context", "entities", "metadata")
#: the ids of the conversation and the agent: sealed with the text when the backend gives a digest for filters
ID_FIELDS = ("session_id", "agent_id")
#: derived fields kept beside the record's own, for filters and the ranking formula
RANKING_FIELDS = ("ts_days", "reinforced_days", "is_consolidated", "is_superseded", "meta_keys", "seq")
#: keyword-indexed payload fields (scope filters)
KEYWORD_INDEXED = ("status", "layer", "event_type", "session_id", "agent_id", "meta_keys")
#: float-indexed payload fields: range filters, and every variable the ranking formula reads (the engine reads
#: a formula's variables from the payload index when there is one, not from the whole stored payload)
FLOAT_INDEXED = ("ts_days", "is_consolidated", "is_superseded", "reinforced_days", "decay_rate", "spaced_recalls",
                 "confidence")

_SEQ_LOCK = threading.Lock()
_LAST_SEQ = 0


def next_seq() -> int:
    """A number that grows with every record written by this process (time-based): the write order."""
    global _LAST_SEQ

    with _SEQ_LOCK:
        _LAST_SEQ = max(_LAST_SEQ + 1, time.time_ns())
        return _LAST_SEQ


def epoch_days(moment: datetime) -> float:
    return moment.timestamp() / 86400.0


def metadata_digest(key: str, value: Any) -> str:
    """A digest of one metadata entry: lookups match it without the text being readable."""
    encoded = json.dumps([key, value], ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()[:32]


def metadata_digests(metadata: Mapping[str, Any]) -> list[str]:
    return [metadata_digest(k, v) for k, v in metadata.items() if isinstance(v, (str, int, float, bool)) or v is None]


def derived_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The ranking fields that follow from changed record fields (for partial updates)."""
    out: dict[str, Any] = {}
    if "consolidated_into" in fields:
        out["is_consolidated"] = 1.0 if fields["consolidated_into"] else 0.0
    if "superseded_by" in fields:
        out["is_superseded"] = 1.0 if fields["superseded_by"] else 0.0
    if "last_accessed" in fields and fields["last_accessed"]:
        out["reinforced_days"] = epoch_days(datetime.fromisoformat(fields["last_accessed"]))
    return out


def is_uuid(value: object) -> bool:
    """Whether a memory id can name a point (engines take unsigned integers or UUIDs; hindsight uses UUIDs)."""
    try:
        uuid.UUID(str(value))
        return True
    except ValueError:
        return False
