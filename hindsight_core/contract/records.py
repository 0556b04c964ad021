"""A memory record's JSON form, the one codec (enums as values, datetimes as ISO strings) of the store's payloads,
the wire, exports and `--json`: `record_to_dict`, and `record_from_payload`, strict (a dict whose fields lack the
types a later stage relies on is refused with the reason). `check_record` reads one arriving from an import."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import numbers
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..errors import InvalidInputError
from ..language.text import validate_id
from ..types import Layer, MemoryRecord, Source, Status
from .checks import MAX_NESTING, check_entities, check_metadata_keys, check_visible, encodable, nesting_depth

#: a record's field names, in order (every point read is turned into one)
_FIELD_ORDER = tuple(f.name for f in dataclasses.fields(MemoryRecord))


_RECORD_FIELDS = frozenset(_FIELD_ORDER)


def record_to_dict(record: MemoryRecord) -> dict[str, Any]:
    """A record as a JSON-safe dict (enums as values, datetimes as ISO strings); `record_from_payload` reverses it.

    Without `dataclasses.asdict`'s per-value deep copies: only the record's lists and metadata are mutable."""
    payload = {name: getattr(record, name) for name in _FIELD_ORDER}
    for name in ("entities", "derived_from"):
        payload[name] = type(payload[name])(payload[name])
    payload["metadata"] = copy.deepcopy(record.metadata) if record.metadata else type(record.metadata)()
    for name in ("layer", "source", "status"):
        payload[name] = getattr(record, name).value
    for name in ("timestamp", "last_accessed", "last_confirmed"):
        moment = getattr(record, name)
        payload[name] = moment.isoformat() if moment is not None else None
    return payload


def _record_from_dict(payload: Mapping[str, Any]) -> MemoryRecord:
    data = {k: v for k, v in payload.items() if k in _RECORD_FIELDS}
    data["layer"] = Layer(data.get("layer", Layer.EPISODIC.value))
    data["source"] = Source(data.get("source", Source.USER.value))
    data["status"] = Status(data.get("status", Status.ACTIVE.value))
    data["timestamp"] = datetime.fromisoformat(data["timestamp"])
    for moment in ("last_accessed", "last_confirmed"):
        if data.get(moment):
            data[moment] = datetime.fromisoformat(data[moment])
    data["entities"] = list(data.get("entities") or [])
    data["metadata"] = dict(data.get("metadata") or {})
    data["derived_from"] = list(data.get("derived_from") or [])
    return MemoryRecord(**data)


def _is_number(value: object) -> bool:
    if type(value) is float or type(value) is int:  # what JSON gives: no abstract check needed
        return math.isfinite(value)
    return not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(value)


def _problem(payload: Mapping[str, Any]) -> str | None:
    """Why a stored payload cannot be a record, or None if its fields have the right types."""
    for name in ("id", "user_id", "summary"):
        if not isinstance(payload.get(name), str):
            return f"{name} is {payload.get(name)!r}, not a string"
    if not isinstance(payload.get("raw_content"), str) or not payload["raw_content"].strip():
        return "raw_content is not non-empty text"
    for name in ("entities", "derived_from"):
        value = payload.get(name)
        if value is not None and (not isinstance(value, list) or not all(isinstance(x, str) for x in value)):
            return f"{name} is {value!r}, not a list of strings"
    metadata = payload.get("metadata")
    if metadata is not None and (not isinstance(metadata, dict) or not all(isinstance(k, str) for k in metadata)):
        return "metadata is not a mapping with string keys"
    for name in ("confidence", "decay_rate"):
        value = payload.get(name, 0.0)
        if not _is_number(value):
            return f"{name} is {value!r}, not a number"
    for name in ("access_count", "spaced_recalls", "confirmations"):
        value = payload.get(name, 0)
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{name} is {value!r}, not an integer"
    for name in ("event_type", "session_id", "agent_id", "consolidated_into", "superseded_by", "embedding_model"):
        if payload.get(name) is not None and not isinstance(payload[name], str):
            return f"{name} is {payload[name]!r}, not a string"
    return None


def record_from_payload(payload: object) -> tuple[MemoryRecord | None, str | None]:
    """(record, None) for a readable record dict (`record_to_dict`'s form), or (None, why not) for one that is not.

    Every field a later stage relies on is checked, so a record that passes cannot break the index.
    """
    if type(payload) is not dict and not isinstance(payload, Mapping):
        return None, f"the payload is a {type(payload).__name__}, not a mapping"
    problem = _problem(payload)
    if problem is not None:
        return None, problem
    try:
        record = _record_from_dict(payload)
        for moment in (record.timestamp, record.last_accessed, record.last_confirmed):
            if moment is not None and (not isinstance(moment, datetime) or moment.utcoffset() is None):
                return None, f"timestamp {moment!r} has no timezone"
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return None, f"{type(exc).__name__}: {exc}"
    if not isinstance(record.layer, Layer) or not isinstance(record.source, Source) or \
            not isinstance(record.status, Status):
        return None, "layer, source or status is not one hindsight knows"
    return record, None


def _outside_problem(record: MemoryRecord, max_text_bytes: int) -> str | None:
    """Why a readable record could not have been written by hindsight (a value no write accepts), or None."""
    if not 0 <= record.confidence <= 1:
        return f"confidence is {record.confidence!r}, not within 0..1"
    if not 0 <= record.decay_rate <= 1e6:
        return f"decay_rate is {record.decay_rate!r}, not a rate of 0 or more"
    for name in ("access_count", "spaced_recalls"):
        if getattr(record, name) < 0:
            return f"{name} is negative"
    if record.confirmations < 1:
        return "confirmations is below 1"
    for name in ("raw_content", "summary", "context"):
        value = getattr(record, name)
        if value is not None and not isinstance(value, str):
            return f"{name} is {type(value).__name__}, not text"
        if value is not None and len(value.encode("utf-8", errors="surrogatepass")) > max_text_bytes:
            return f"{name} is larger than {max_text_bytes:,} bytes (the limit for a write)"
        if value is not None and not encodable(value):
            return f"{name} holds a lone surrogate (half of a UTF-16 pair), which is not text"
    for name in ("session_id", "agent_id"):
        try:
            validate_id(getattr(record, name), what=name, required=False)
        except InvalidInputError as exc:
            return str(exc)
    try:
        check_visible(record.raw_content, "raw_content")
        check_entities(record.entities)
        check_metadata_keys(record.metadata)
    except InvalidInputError as exc:
        return str(exc)
    try:
        size = len(json.dumps(record.metadata, ensure_ascii=False, allow_nan=False).encode())
    except (TypeError, ValueError) as exc:
        return f"metadata is not plain JSON ({exc})"
    if size > 16 * 1024:
        return "metadata is larger than 16,384 bytes (the limit for a write)"
    return None


def check_record(payload: object, *, max_text_bytes: int = 32 * 1024) -> MemoryRecord:
    """The record in a payload arriving from outside (an import file), with the types and limits a write gives it."""
    if nesting_depth(payload) > MAX_NESTING:
        raise InvalidInputError(f"the record is nested deeper than {MAX_NESTING} levels; fix or drop it")
    record, problem = record_from_payload(payload)
    if record is not None:
        problem = _outside_problem(record, max_text_bytes)
    if record is None or problem is not None:
        ident = payload.get("id") if isinstance(payload, Mapping) else None
        raise InvalidInputError(f"memory {ident!r}: {problem}; fix or drop it")
    return record
