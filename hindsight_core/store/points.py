"""How a memory record becomes a Qdrant point, the same on both backends.

A point carries two vectors, `dense` (the embedding) and `bm25` (a sparse BM25
vector from `qdrant_edge.Bm25`, one config for both backends so keyword scores
agree), and a payload with:

- the fields filters and the ranking formula read, in plain form:
  `user_id`, `layer`, `status`, `event_type`, `source`, `session_id`, `agent_id`,
  `ts_days` / `reinforced_days` (epoch days), `decay_rate`, `spaced_recalls`,
  `confidence`, `is_consolidated`, `is_superseded`, and `meta_keys` (digests of
  top-level metadata entries, for keyed lookups without reading the text);
- the record's other fields;
- the text (`summary`, `raw_content`, `context`, `entities`, `metadata`) under
  `text`, or, when the backend seals payloads, encrypted under `sealed` (see
  `hindsight_core.store.sealing`: forgetting a memory destroys its key).

When the backend seals payloads and gives a `digest`, `session_id` and
`agent_id` are sealed with the text too, and the plain fields hold a keyed
digest of them instead (`KeyStore.id_digest`): filters by session or agent
still use the index, and the engine's log never holds the ids themselves.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from datetime import datetime
from typing import Any, Callable, Mapping

from ..types import MemoryRecord

DENSE, SPARSE = "dense", "bm25"

#: the record fields that hold what the user said; sealed when the backend seals payloads
TEXT_FIELDS = ("summary", "raw_content", "context", "entities", "metadata")
#: the ids of the conversation and the agent: sealed with the text when the backend gives a digest for filters
ID_FIELDS = ("session_id", "agent_id")
#: derived fields kept beside the record's own, for filters and the ranking formula
RANKING_FIELDS = ("ts_days", "reinforced_days", "is_consolidated", "is_superseded", "meta_keys", "seq")

_SEQ_LOCK = threading.Lock()
_LAST_SEQ = 0


def next_seq() -> int:
    """A number that grows with every record written by this process (time-based): the write order."""
    global _LAST_SEQ
    import time

    with _SEQ_LOCK:
        _LAST_SEQ = max(_LAST_SEQ + 1, time.time_ns())
        return _LAST_SEQ

_BM25_LOCK = threading.Lock()
_BM25: Any = None
#: portable to a Qdrant server's own BM25 inference (same JSON shape)
BM25_SETTINGS = {"tokenizer": "multilingual", "language": "english", "avg_len": 24.0,
                 "stopwords": ["english", "chinese"]}


def _bm25() -> Any:
    global _BM25
    with _BM25_LOCK:
        if _BM25 is None:
            from qdrant_edge import Bm25, Bm25Config, Language, StopwordsSet, TokenizerType

            _BM25 = Bm25(Bm25Config(tokenizer=TokenizerType.Multilingual, language="english",
                                    avg_len=BM25_SETTINGS["avg_len"],
                                    stopwords=StopwordsSet(languages={Language.English, Language.Chinese})))
        return _BM25


def keyword_text(record: MemoryRecord) -> str:
    """What the keyword channel indexes: the text, what it answers, and its entities."""
    parts = [record.raw_content, record.context or "", " ".join(record.entities)]
    return " ".join(p for p in parts if p)


def document_terms(text: str) -> tuple[list[int], list[float]]:
    sparse = _bm25().embed_document(text)
    return list(sparse.indices), list(sparse.values)


def query_terms(text: str) -> tuple[list[int], list[float]]:
    sparse = _bm25().embed_query(text)
    return list(sparse.indices), list(sparse.values)


def epoch_days(moment: datetime) -> float:
    return moment.timestamp() / 86400.0


def metadata_digest(key: str, value: Any) -> str:
    """A digest of one metadata entry: lookups match it without the text being readable."""
    encoded = json.dumps([key, value], ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()[:32]


def metadata_digests(metadata: Mapping[str, Any]) -> list[str]:
    return [metadata_digest(k, v) for k, v in metadata.items()
            if isinstance(v, (str, int, float, bool)) or v is None]


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


Seal = Callable[[str, dict[str, Any]], str]
Digest = Callable[[str], str]
Unseal = Callable[[str, str], dict[str, Any]]


def to_payload(record: MemoryRecord, *, seal: Seal | None = None, extra: Mapping[str, Any] | None = None,
               digest: Digest | None = None) -> dict[str, Any]:
    payload = record.to_payload()
    text = {name: payload.pop(name) for name in TEXT_FIELDS}
    if seal is not None and digest is not None:
        for name in ID_FIELDS:
            text[name] = payload[name]
            payload[name] = digest(payload[name]) if payload[name] is not None else None
    payload.update(derived_fields({"consolidated_into": record.consolidated_into,
                                   "superseded_by": record.superseded_by}))
    payload["ts_days"] = epoch_days(record.timestamp)
    payload["reinforced_days"] = epoch_days(record.last_accessed or record.timestamp)
    payload["meta_keys"] = metadata_digests(record.metadata)
    payload["seq"] = next_seq()
    if seal is not None:
        payload["sealed"] = seal(record.id, text)
    else:
        payload["text"] = text
    if extra:
        payload["extra"] = dict(extra)
    return payload


class UnreadableRecord(ValueError):
    """A stored point that cannot be turned back into a record (reported, set aside)."""


def from_payload(payload: Mapping[str, Any], *, unseal: Unseal | None = None
                 ) -> tuple[MemoryRecord, dict[str, Any]]:
    """(record, extra payload) from a point's payload; raises UnreadableRecord."""
    try:
        data = {k: v for k, v in payload.items() if k not in RANKING_FIELDS and k not in ("text", "sealed", "extra")}
        if "sealed" in payload:
            if unseal is None:
                raise UnreadableRecord("the record is sealed and this store has no key for it")
            text = unseal(str(payload["id"]), payload["sealed"])
        else:
            text = dict(payload.get("text") or {})
        data.update(text)
        from ..write.validation import record_from_payload

        record, problem = record_from_payload(data)
        if record is None:
            raise UnreadableRecord(problem or "unreadable")
        return record, dict(payload.get("extra") or {})
    except UnreadableRecord:
        raise
    except Exception as exc:  # a damaged or foreign payload: never fatal for the user's other memories
        raise UnreadableRecord(f"{type(exc).__name__}: {exc}") from None


def to_hit(user_id: str, point: Any, *, with_vectors: bool, report: Any, unseal: Unseal | None) -> Any:
    """A search/scroll result as a `Hit`; None for another user's point or an unreadable one (reported)."""
    import numpy as np

    from .base import Hit

    payload = point.payload or {}
    if payload.get("user_id") != user_id:  # a hash collision or tampering: never serve it
        return None
    try:
        record, _ = from_payload(payload, unseal=unseal)
    except UnreadableRecord as exc:
        if report is not None and (str(point.id), str(exc)) not in report.unreadable:
            report.unreadable.append((str(point.id), str(exc)))
            logging.getLogger("hindsight").warning("memory %s of a user cannot be read and is set aside: %s",
                                                   point.id, exc)
        return None
    vector, terms = None, frozenset()
    vectors = point.vector if isinstance(getattr(point, "vector", None), dict) else {}
    if with_vectors and DENSE in vectors:
        vector = np.asarray(vectors[DENSE], dtype=np.float32)
    if with_vectors and SPARSE in vectors:
        terms = frozenset(vectors[SPARSE].indices)
    return Hit(record, float(getattr(point, "score", 0.0) or 0.0), vector, terms, int(payload.get("seq") or 0))
