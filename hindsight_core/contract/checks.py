"""Checks on what callers hand to hindsight, and tolerant reading of what the store hands back.

Every public entry point runs its arguments through these before anything is stored, so a bad value is refused with an
`InvalidInputError` that says what to pass instead, and never reaches the index (a bare string where a list is expected,
a naive timestamp, invisible-only text, a flag that is not a real `bool`, metadata nested past `MAX_NESTING`, …).
Reading, the other way round: `records.record_from_payload` turns a stored payload into a `MemoryRecord` or says why it
cannot, so one unreadable record is set aside instead of making its user unreadable.
"""

from __future__ import annotations

import difflib
import io
import os
import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from ..errors import EmptyTextError, ExportError, InvalidInputError, StoreUnavailableError
from ..language.text import validate_id
from ..language.timerange import TimeRange, TimeRangeLike, resolve_time_range
from ..types import EventType

#: the most entities one memory may carry, and the longest one (a name, a code, an address)
MAX_ENTITIES, MAX_ENTITY_CHARS = 64, 256
#: the deepest nesting any JSON hindsight reads (metadata, an import line) may have
MAX_NESTING = 32
#: characters that show nothing: zero-width spaces and joiners, bidi marks, the BOM, soft hyphen, fillers (tag
#: characters and variation selectors are ranges, checked in `check_visible`)
_INVISIBLE = frozenset("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u200e\u200f"
                       "\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068"
                       "\u2069\u206a\u206b\u206c\u206d\u206e\u206f\u3164\ufeff\uffa0")


def check_entities(entities: object) -> list[str] | None:
    """None (extract from the text), or the entities as a list of stripped, non-empty strings within the limits."""
    if entities is None:
        return None
    if isinstance(entities, (str, bytes)) or not isinstance(entities, (list, tuple)):
        raise InvalidInputError(
            f"entities must be a list of strings, e.g. entities=['Maria'], got {type(entities).__name__}"
            + (" (a bare string would be stored letter by letter)" if isinstance(entities, str) else ""))
    if len(entities) > MAX_ENTITIES:
        raise InvalidInputError(f"{len(entities):,} entities; a memory carries at most {MAX_ENTITIES} "
                                "(names, codes, dates): pass the ones it is about, or None to extract them")
    out = []
    for i, entity in enumerate(entities):
        if not isinstance(entity, str) or not entity.strip():
            raise InvalidInputError(f"entities[{i}] is {entity!r}; every entity must be a non-empty string")
        if len(entity) > MAX_ENTITY_CHARS:
            raise InvalidInputError(f"entities[{i}] is {len(entity):,} characters; an entity is a name, code or "
                                    f"date of at most {MAX_ENTITY_CHARS} characters")
        if any(ord(ch) < 32 or 0x7f <= ord(ch) < 0xa0 for ch in entity):
            raise InvalidInputError(f"entities[{i}] holds control characters")
        if not encodable(entity):
            raise InvalidInputError(f"entities[{i}] holds a lone surrogate (half of a UTF-16 pair), which is not "
                                    "text; decode the source with errors='replace' first")
        out.append(entity.strip())
    return out


def check_event_type(event_type: object, known: Iterable[str] = ()) -> str | None:
    """None (the gate decides), or an event type hindsight knows: an `EventType` or a kind in `known`."""
    if event_type is None:
        return None
    allowed = sorted({e.value for e in EventType} | set(known))
    if not isinstance(event_type, str) or event_type not in allowed:
        raise InvalidInputError(f"event_type {event_type!r} is not one hindsight knows; use one of {allowed}, "
                                "or None to let the write gate decide (a new kind needs a decay rate: "
                                "DecayConfig(rates={...}))")
    return event_type


def check_timestamp(timestamp: object, what: str = "timestamp") -> datetime | None:
    """None, or a timezone-aware datetime (in UTC); anything else is refused with what to pass."""
    if timestamp is None:
        return None
    if not isinstance(timestamp, datetime):
        hint = ""
        if isinstance(timestamp, str):
            hint = f" (parse it first: datetime.fromisoformat({timestamp[:40]!r}))"
        elif isinstance(timestamp, (int, float)) and not isinstance(timestamp, bool):
            hint = " (for epoch seconds: datetime.fromtimestamp(value, tz=timezone.utc))"
        raise InvalidInputError(f"{what} must be a timezone-aware datetime, e.g. datetime(2026, 3, 15, "
                                f"tzinfo=timezone.utc), got {type(timestamp).__name__}{hint}")
    from ..clock import ensure_utc

    return ensure_utc(timestamp)


def check_visible(text: str, what: str = "text") -> str:
    """`text`, unless it shows nothing once invisible characters are set aside (then `EmptyTextError`)."""
    if not any(not ch.isspace() and ch not in _INVISIBLE and not 0xe0000 <= ord(ch) <= 0xe007f
               and not 0xfe00 <= ord(ch) <= 0xfe0f and not 0xe0100 <= ord(ch) <= 0xe01ef for ch in text):
        raise EmptyTextError(f"{what} holds only invisible characters (zero-width spaces, joiners or marks); "
                             "there is nothing to remember")
    return text


def nesting_depth(value: object, limit: int = MAX_NESTING) -> int:
    """How deeply lists and mappings nest in `value` (a scalar is 0), walked without recursion; stops past `limit`."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, Mapping):
            children = list(item.values())
        elif isinstance(item, (list, tuple)):
            children = list(item)
        else:
            continue
        deepest = max(deepest, level)
        if deepest > limit:
            return deepest
        stack.extend((child, level + 1) for child in children)
    return deepest


def check_event_types(event_types: object) -> set[str] | None:
    """None (no filter), or the event types as a set of non-empty strings."""
    if event_types is None:
        return None
    if isinstance(event_types, (str, bytes)) or isinstance(event_types, Mapping) or \
            not isinstance(event_types, Iterable):
        hint = f" (did you mean event_types=[{event_types!r}]?)" if isinstance(event_types, str) else ""
        raise InvalidInputError(f"event_types must be a list of strings{hint}, got {type(event_types).__name__}")
    out = set()
    for value in event_types:
        if not isinstance(value, str) or not value.strip():
            raise InvalidInputError(f"event_types holds {value!r}; every event type must be a non-empty string")
        out.add(value)
    return out


def check_flag(value: object, name: str) -> bool:
    """A real bool; anything else (a string, 1, None) is refused."""
    if not isinstance(value, bool):
        raise InvalidInputError(f"{name} must be True or False, got {value!r}")
    return value


def check_confidence(confidence: object) -> float | None:
    """None (the gate decides), or a finite real number within 0..1 as a float."""
    if confidence is None:
        return None
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or \
            not math.isfinite(float(confidence)) or not 0 <= float(confidence) <= 1:
        raise InvalidInputError(f"confidence must be a number within 0..1, got {confidence!r}")
    return float(confidence)


def check_metadata_keys(value: object, path: str = "metadata") -> None:
    """Every mapping key, at every level, is a string; nesting past `MAX_NESTING` is refused (no recursion)."""
    if nesting_depth(value) > MAX_NESTING:
        raise InvalidInputError(f"{path} is nested deeper than {MAX_NESTING} levels")
    stack: list[tuple[object, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, Mapping):
            for key, inner in item.items():
                if not isinstance(key, str):
                    raise InvalidInputError(f"{where} has the key {key!r}; metadata keys must be strings")
                stack.append((inner, f"{where}[{key!r}]"))
        elif isinstance(item, (list, tuple)):
            stack.extend((inner, f"{where}[{i}]") for i, inner in enumerate(item))


def encodable(text: str) -> bool:
    """Whether `text` is valid Unicode (no lone surrogates), so it can be stored and sent as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_flag_or_none(value: object, name: str) -> bool | None:
    """None (the configured default), or a real bool."""
    return None if value is None else check_flag(value, name)


def check_layers(layers: object) -> list[str] | None:
    """None (every layer), or the layers as a list of names; a bare string or a mapping is refused."""
    from ..types import Layer

    if layers is None:
        return None
    known = [x.value for x in Layer]
    if isinstance(layers, (str, bytes, Mapping)) or not isinstance(layers, Iterable):
        hint = f" (did you mean layers=[{layers!r}]?)" if isinstance(layers, str) else ""
        raise InvalidInputError(f"layers must be a list of layer names from {known}{hint}, "
                                f"got {type(layers).__name__}")
    out = []
    for value in layers:
        name = value.value if isinstance(value, Layer) else value
        if not isinstance(name, str) or name not in known:
            raise InvalidInputError(f"layers holds {value!r}; a layer is one of {known}")
        out.append(name)
    return out


def check_predicate(where: object) -> Callable[..., bool] | None:
    """None, or a callable taking one `MemoryRecord` (a string is not a filter expression)."""
    if where is not None and not callable(where):
        raise InvalidInputError(f"where must be a function of one memory record returning True or False, e.g. "
                                f"where=lambda m: m.metadata.get('channel') == 'chat', got {type(where).__name__}")
    return where


def check_users(users: object) -> list[str] | None:
    """None (every user), or a list of user ids, each checked; a bare string would be read letter by letter."""
    if users is None:
        return None
    if isinstance(users, (str, bytes, Mapping)) or not isinstance(users, Iterable):
        hint = f" (did you mean users=[{users!r}]?)" if isinstance(users, str) else ""
        raise InvalidInputError(f"users must be a list of user ids{hint}, got {type(users).__name__}")
    return [validate_id(user) for user in users]


def check_names(given: Iterable[str], known: Sequence[str], call: str) -> None:
    """Refuse a keyword `call` does not take: an `InvalidInputError` naming it, the name it is closest to, and
    every name `call` takes (a careless caller or a model filling a tool call misspells one; nothing is done)."""
    unknown = sorted(set(given) - set(known), key=str)
    if not unknown:
        return
    named = []
    for name in unknown:
        close = difflib.get_close_matches(str(name), known, n=1)
        named.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    raise InvalidInputError(f"{call} takes no option {', '.join(named)}; it takes {', '.join(known)}")


def check_batch(texts: object, max_batch: int) -> Sequence[str]:
    """A `write_many` batch's shape: a list (not one string, a set or a generator) of at most `max_batch` texts."""
    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise InvalidInputError("texts must be a list of strings")
    if len(texts) > max_batch:
        raise InvalidInputError(f"{len(texts):,} texts in one batch; the limit is {max_batch:,}")
    return texts


def check_per_text(name: str, values: object, count: int) -> None:
    """A `write_many` argument holding one entry per text: None, or a list (or tuple) of `count` entries."""
    if values is not None and (not isinstance(values, (list, tuple)) or len(values) != count):
        raise InvalidInputError(f"{name} must be a list with one entry per text ({count}), "
                                f"got {type(values).__name__}" + (f" of {len(values)}" if isinstance(
                                    values, (list, tuple)) else ""))


def check_metadata(metadata: object, *, max_depth: int, max_bytes: int, what: str = "metadata") -> dict[str, Any]:
    """Metadata (or a metadata filter) as plain JSON: a mapping with string keys, finite numbers, valid text,
    at most `max_depth` levels and `max_bytes` encoded; returns a plain copy."""
    import json

    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidInputError(f"{what} must be a mapping of str to JSON values, e.g. {{'channel': 'chat'}}, "
                                f"got {type(metadata).__name__}")
    check_metadata_keys(metadata, what)
    stack: list[tuple[object, int]] = [(metadata, 1)]  # the mapping is level 1, its values level 2, ...
    while stack:
        item, level = stack.pop()
        if level > max_depth:
            raise InvalidInputError(f"{what} is nested deeper than {max_depth} levels")
        if isinstance(item, Mapping):
            stack.extend((inner, level + 1) for inner in item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend((inner, level + 1) for inner in item)
    try:
        encoded = json.dumps(metadata, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{what} must be plain JSON (strings, finite numbers, lists, mappings): {exc}") \
            from None
    except RecursionError:
        raise InvalidInputError(f"{what} is nested too deeply to be plain JSON") from None
    if not encodable(encoded):
        raise InvalidInputError(f"{what} holds a lone surrogate (half of a UTF-16 pair), which is not text")
    if len(encoded.encode()) > max_bytes:
        raise InvalidInputError(f"{what} is larger than {max_bytes:,} bytes")
    plain: dict[str, Any] = json.loads(encoded)
    return plain


def time_window(spec: TimeRangeLike, now: datetime) -> TimeRange | None:
    """`resolve_time_range`, with a range that overflows a datetime turned into a clear error."""
    try:
        window = resolve_time_range(spec, now)
    except OverflowError:
        raise InvalidInputError(
            f"time range {spec!r} reaches past the dates hindsight can hold (years 1 to 9999); "
            "use a shorter range, or None for an open end") from None
    if window is not None and window.start is not None and window.end is not None and window.start >= window.end:
        raise InvalidInputError(f"time range starts at {window.start.isoformat()}, not before its end "
                                f"{window.end.isoformat()}; swap them")
    return window


def check_text_output(out: object) -> None:
    """`out` must be an open text file (or any object with a `write(str)` method)."""
    if isinstance(out, (io.RawIOBase, io.BufferedIOBase)) or "b" in str(getattr(out, "mode", "")):
        raise ExportError("the export is text: open the file in text mode, e.g. open(path, 'w', encoding='utf-8')")
    if not callable(getattr(out, "write", None)):
        hint = " (a path: open it first, e.g. with open(path, 'w', encoding='utf-8') as out)" \
            if isinstance(out, (str, os.PathLike)) else ""
        raise ExportError(f"out must be a text file open for writing{hint}, got {type(out).__name__}")
    if getattr(out, "closed", False):
        raise ExportError("out is closed; pass a text file open for writing")


def check_clock(clock: object) -> Callable[[], datetime]:
    """The clock, if it can be called; what it returns is checked on every call."""
    if not callable(clock):
        raise InvalidInputError(f"clock must be a zero-argument callable returning an aware datetime, got {clock!r}")
    return clock


def check_store_path(path: str | Path | None) -> Path | None:
    """The folder for an embedded store, made if missing; a clear error if it cannot be one."""
    if path is None:
        return None
    if not isinstance(path, (str, Path)) or not str(path).strip():
        raise InvalidInputError(f"path must be a folder name, got {path!r}")
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise InvalidInputError(f"path {str(folder)!r} is a file; the embedded store needs a folder of its own")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".hindsight-write-check"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise StoreUnavailableError(
            f"cannot write the store's folder {str(folder)!r} ({exc.strerror or exc}); choose a folder you can "
            "write to, or pass location=':memory:'") from None
    return folder


#: the one message for a forget that names nothing, or more than one thing, whichever face it came through
ONE_TARGET = "name exactly one thing to forget: a memory id, a topic, or everything"


def check_one_target(memory_id: str | None, about: str | None, everything: bool) -> None:
    """Raise `InvalidInputError` unless exactly one of an id, a topic or `everything` is named (faces ask first)."""
    if sum((memory_id is not None, about is not None, everything is True)) != 1:
        raise InvalidInputError(ONE_TARGET)
