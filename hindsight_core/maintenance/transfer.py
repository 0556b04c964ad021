"""Export and import as JSON Lines, with vectors (`hindsight export|import`)."""

from __future__ import annotations

import json
import math
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterable, Iterator, TextIO

import numpy as np

from ..clock import ensure_utc
from ..embed.embedder import Embedder
from ..errors import InvalidInputError
from ..language.text import validate_id
from ..store.base import ARCHIVE, MEMORIES, MaintainableStore
from ..store.payload import record_to_dict
from ..types import MemoryRecord
from ..write.validation import check_record

if TYPE_CHECKING:
    pass

from ..embed.checked import embed_passages
from .common import EXPORT_FORMAT, EXPORT_VERSION, _users, maintainable

_FLOAT32_MAX = float(np.finfo(np.float32).max)


# -- export and import ------------------------------------------------------------------------------------------
@dataclass
class TransferSummary:
    """What an export or import moved."""

    users: set[str] = field(default_factory=set)
    memories: int = 0
    archived: int = 0
    reembedded: int = 0


def export_jsonl(store: MaintainableStore, out: TextIO, *, users: Iterable[str] | None = None,
                 vectors: bool = True, include_archive: bool = True, now: datetime | None = None) -> TransferSummary:
    """Write every memory of the store (or of `users`) to `out` as JSON Lines; see the module docstring."""
    store = maintainable(store)
    header: dict[str, Any] = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "vectors": vectors}
    if now is not None:
        header["exported_at"] = ensure_utc(now).isoformat()
    out.write(json.dumps(header) + "\n")
    summary = TransferSummary()
    for user in _users(store, users):
        for space in (MEMORIES, ARCHIVE) if include_archive else (MEMORIES,):
            for record, vector, extra in store.load_space(user, space):
                line: dict[str, Any] = {"record": record_to_dict(record)}
                if vectors:
                    line["vector"] = vector.tolist()  # float32 -> float64 -> float32 is exact
                if space == ARCHIVE:
                    line["archived"] = extra.get("archived") or {}
                    summary.archived += 1
                else:
                    summary.memories += 1
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
                summary.users.add(user)
    return summary


def _read_export(lines: Iterable[str]) -> Iterator[tuple[int, MemoryRecord, list[float] | None, dict | None]]:
    header_seen = False
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"line {number} is not JSON: {exc}") from None
        except RecursionError:
            raise InvalidInputError(f"line {number} nests its JSON too deeply to be a memory record") from None
        if not isinstance(data, dict):
            raise InvalidInputError(f"line {number} is not a JSON object")
        if not header_seen:
            if data.get("format") != EXPORT_FORMAT:
                raise InvalidInputError(f"line {number}: not a hindsight export (no {EXPORT_FORMAT!r} header line)")
            if not isinstance(data.get("version"), int) or data["version"] > EXPORT_VERSION:
                raise InvalidInputError(f"export version {data.get('version')!r} is newer than this hindsight "
                                        f"understands ({EXPORT_VERSION}); upgrade hindsight")
            header_seen = True
            continue
        try:
            record = check_record(data["record"])
            ensure_utc(record.timestamp)
            if record.last_accessed is not None:
                ensure_utc(record.last_accessed)
            validate_id(record.user_id)
            uuid.UUID(str(record.id))  # the store keys memories by UUID
            if not isinstance(record.raw_content, str) or not record.raw_content.strip():
                raise InvalidInputError("raw_content must be non-empty text")
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"line {number}: not a valid memory record ({exc})") from None
        vector = data.get("vector")
        if vector is not None and not (isinstance(vector, list) and all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and abs(x) <= _FLOAT32_MAX
                for x in vector)):
            raise InvalidInputError(f"line {number}: vector must be a list of finite numbers a float32 can hold "
                                    "(no NaN, no infinity, nothing beyond ±3.4e38); drop it to re-embed the text")
        archived = data.get("archived")
        yield number, record, vector, archived if isinstance(archived, dict) else None
    if not header_seen:
        raise InvalidInputError("the file is empty: not a hindsight export")


def import_jsonl(store: MaintainableStore, embedder: Embedder, lines: Iterable[str], *,
                 batch_size: int = 256) -> TransferSummary:
    """Load an export into the store; see the module docstring for when vectors are reused.

    Memories keep their ids, so importing the same file twice stores each memory once.
    A user who already has memories embedded with another model gets `EmbedderMismatchError`.
    """
    store = maintainable(store)
    summary = TransferSummary()
    pending: dict[tuple[str, str], list[tuple[MemoryRecord, list[float] | None, dict | None]]] = {}

    def flush(user: str, space: str) -> None:
        items = pending.pop((user, space), [])
        if not items:
            return
        store.open_user(user, embedding_model=embedder.name, dimension=embedder.dimension, create=True)
        store.ensure_space(user, MEMORIES, embedder.dimension)
        records, vectors = [], np.zeros((len(items), embedder.dimension), dtype=np.float32)
        stale = []
        for i, (record, vector, _) in enumerate(items):
            if vector is not None and record.embedding_model == embedder.name and len(vector) == embedder.dimension:
                vectors[i] = vector
            else:
                record = record.evolve(embedding_model=embedder.name)
                stale.append(i)
            records.append(record)
        if stale:
            vectors[stale] = embed_passages(embedder, [records[i].raw_content for i in stale])
            summary.reembedded += len(stale)
        if space == MEMORIES:
            store.commit(user, upserts=list(zip(records, vectors)))
            summary.memories += len(records)
        else:
            store.put_space(user, ARCHIVE, records, vectors, [{"archived": archived or {}} for _, _, archived in items])
            summary.archived += len(records)
        summary.users.add(user)

    for _, record, vector, archived in _read_export(lines):
        key = (record.user_id, ARCHIVE if archived is not None else MEMORIES)
        pending.setdefault(key, []).append((record, vector, archived))
        if len(pending[key]) >= batch_size:
            flush(*key)
    for key in list(pending):
        flush(*key)
    return summary


