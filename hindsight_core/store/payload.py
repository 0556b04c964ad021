"""Record ⇄ payload: how a memory record is stored in a point's payload and read back, the same on both backends.

A payload holds the fields filters and the ranking formula read in plain form (`fields`), the record's other fields, and
its text (`summary`, `raw_content`, `context`, `entities`, `metadata`) under `text`, or, when the backend seals
payloads, encrypted under `sealed` (`sealing`). With a `digest`, `session_id` and `agent_id` are sealed with the text
too and the plain fields hold a keyed digest of them (`KeyStore.id_digest`); `user_id` holds the user's `tenant` when
the backend gives one, and a record read back is checked against it. The record's fields are in its JSON form
(`contract.records`). Reading is strict: a payload whose fields lack the types a later stage relies on is set aside with
the reason, never served.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Collection, Mapping
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ..contract.records import record_from_payload, record_to_dict
from ..types import MemoryRecord
from .fields import (DENSE, ID_FIELDS, RANKING_FIELDS, SPARSE, TEXT_FIELDS, derived_fields, epoch_days,
                     metadata_digests, next_seq)
from .values import Hit, LoadReport

Seal = Callable[[str, dict[str, Any]], str]
Digest = Callable[[str], str]
Unseal = Callable[[str, str], dict[str, Any]]

#: payload keys that are not record fields
_NOT_RECORD = frozenset(RANKING_FIELDS) | {"text", "sealed", "extra"}


def to_payload(record: MemoryRecord, *, seal: Seal | None = None, extra: Mapping[str, Any] | None = None,
               digest: Digest | None = None, tenant: str | None = None) -> dict[str, Any]:
    payload = record_to_dict(record)
    if tenant is not None:
        payload["user_id"] = tenant
    text = {name: payload.pop(name) for name in TEXT_FIELDS}
    if seal is not None and digest is not None:
        for name in ID_FIELDS:
            text[name] = payload[name]
            payload[name] = digest(payload[name]) if payload[name] is not None else None
    ranking = ranking_fields(record)
    for name in ("is_consolidated", "is_superseded", "ts_days", "reinforced_days"):
        payload[name] = ranking[name]
    payload["meta_keys"] = metadata_digests(record.metadata)
    payload["seq"] = next_seq()
    for name in ("derived_from", "meta_keys"):  # an empty list reads back as none; the engine takes each value
        if not payload[name]:                   # in some microseconds, a write's biggest cost after its gate
            del payload[name]
    if seal is not None:
        payload["sealed"] = seal(record.id, text)
    else:
        payload["text"] = text
    if extra:
        payload["extra"] = dict(extra)
    return payload


def ranking_fields(record: MemoryRecord) -> dict[str, float]:
    """The payload fields the ranking formula reads, as the engine sees them for this record."""
    return {"ts_days": epoch_days(record.timestamp),
            "reinforced_days": epoch_days(record.last_accessed or record.timestamp),
            "is_consolidated": 1.0 if record.consolidated_into else 0.0,
            "is_superseded": 1.0 if record.superseded_by else 0.0,
            "decay_rate": record.decay_rate, "spaced_recalls": record.spaced_recalls, "confidence": record.confidence}


def ranking_values(records: Sequence[MemoryRecord]) -> dict[str, np.ndarray]:
    """`ranking_fields` of many records, one array per field (what `recall.formula.evaluate` takes)."""
    rows = [ranking_fields(r) for r in records]
    return {name: np.asarray([row[name] for row in rows], dtype=np.float64)
            for name in ("ts_days", "reinforced_days", "is_consolidated", "is_superseded", "decay_rate",
                         "spaced_recalls", "confidence")}


class UnreadableRecord(ValueError):
    """A stored point that cannot be turned back into a record (reported, set aside)."""


def from_payload(payload: Mapping[str, Any], *, unseal: Unseal | None = None, user_id: str | None = None
                 ) -> tuple[MemoryRecord, dict[str, Any]]:
    """(record, extra payload) from a point's payload, as the record of `user_id` if given (the payload may
    hold the user's tenant); raises UnreadableRecord."""
    try:
        data = {k: v for k, v in payload.items() if k not in _NOT_RECORD}
        if "sealed" in payload:
            if unseal is None:
                raise UnreadableRecord("the record is sealed and this store has no key for it")
            data.update(unseal(str(payload["id"]), payload["sealed"]))
        else:
            data.update(payload.get("text") or {})
        if user_id is not None:
            data["user_id"] = user_id
        record, problem = record_from_payload(data)
        if record is None:
            raise UnreadableRecord(problem or "unreadable")
        extra = payload.get("extra")
        return record, dict(extra) if extra else {}
    except UnreadableRecord:
        raise
    except Exception as exc:  # a damaged or foreign payload: never fatal for the user's other memories
        raise UnreadableRecord(f"{type(exc).__name__}: {exc}") from None


def to_hit(user_id: str, point: Any, *, with_vectors: bool, report: LoadReport | None,
           unseal: Unseal | None, tenant: str | None = None) -> Hit | None:
    """A search/scroll result as a `Hit` of `user_id` (whose points hold `tenant`, if given, as their user); None
    for another user's point or an unreadable one (reported)."""
    payload = point.payload or {}
    if payload.get("user_id") != (user_id if tenant is None else tenant):  # a collision or tampering: never served
        return None
    try:
        record, _ = from_payload(payload, unseal=unseal, user_id=user_id)
    except UnreadableRecord as exc:
        if report is not None and (str(point.id), str(exc)) not in report.unreadable:
            report.unreadable.append((str(point.id), str(exc)))
            logging.getLogger("hindsight").warning("memory %s of a user cannot be read and is set aside: %s",
                                                   point.id, exc)
        return None
    vector, terms = None, frozenset[int]()
    if with_vectors:
        vectors = getattr(point, "vector", None)
        if isinstance(vectors, dict):
            if DENSE in vectors:
                vector = np.asarray(vectors[DENSE], dtype=np.float32)
            terms = frozenset(sparse_terms(point, vectors))
    return Hit(record, float(getattr(point, "score", 0.0) or 0.0), vector, terms, int(payload.get("seq") or 0))


def sparse_terms(point: Any, vectors: Any = None) -> list[int]:
    """The term ids of a point's keyword vector (none if it has none); `vectors`: the point's, if already read."""
    vectors = getattr(point, "vector", None) if vectors is None else vectors
    sparse = vectors.get(SPARSE) if isinstance(vectors, dict) else None
    return list(sparse.indices) if sparse is not None else []


def neighbour_lists(batches: Iterable[Iterable[Any]], read: Callable[[list[str]], Mapping[str, Hit]],
                    known: Collection[str] = ()) -> list[list[Hit]]:
    """Hits for several result lists (one per query vector) that the engine gave as ids and scores only.

    `read` reads the records of the distinct ids not in `known`, once each; those in `known` (the caller holds them) are
    left out of the lists and never read: reading a point costs more than the search that found it, and neighbour lists
    of related vectors overlap. An id `read` does not return (another user's, unreadable, or gone) is left out.
    """
    rows = [[(str(point.id), float(getattr(point, "score", 0.0) or 0.0)) for point in found] for found in batches]
    skip = frozenset(known)
    wanted = list(dict.fromkeys(key for row in rows for key, _ in row if key not in skip))
    hits = read(wanted) if wanted else {}
    out = []
    for row in rows:
        found = [(hits[key], score) for key, score in row if key in hits]
        out.append([hit if hit.score == score else dataclasses.replace(hit, score=score) for hit, score in found])
    return out


def field_updates(updates: Sequence[tuple[str, Mapping[str, Any]]], *, fixed: Sequence[str] = TEXT_FIELDS
                  ) -> list[tuple[list[str], dict[str, Any]]]:
    """Partial record updates as engine payload updates: (point ids, fields to set), with their derived fields.

    Updates that set the same fields to the same values share one engine update (a recall's reinforcements mostly do).
    When an id appears twice, every update stays its own, in order. Raises HindsightError for a `fixed` field (text
    changes only by writing the record again).
    """
    from ..errors import HindsightError

    out: list[tuple[list[str], dict[str, Any]]] = []
    for memory_id, fields in updates:
        if any(name in fixed for name in fields):
            raise HindsightError("text fields change only by writing the record again")
        full = dict(fields)
        full.update(derived_fields(full))
        out.append(([memory_id], full))
    if len({ids[0] for ids, _ in out}) < len(out):
        return out
    groups: dict[str, tuple[list[str], dict[str, Any]]] = {}
    for ids, full in out:
        key = repr(sorted(full.items()))
        if key in groups:
            groups[key][0].extend(ids)
        else:
            groups[key] = (list(ids), full)
    return list(groups.values())
