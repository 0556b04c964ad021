"""Export and import as JSON Lines, with vectors (`hindsight export|import`)."""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import stat
import tempfile
import uuid
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, TextIO

import numpy as np

from ..clock import ensure_utc
from ..embed.embedder import Embedder
from ..errors import ExportError, InvalidInputError
from ..language.text import validate_id
from ..store.base import ARCHIVE, MEMORIES, MemoryStore
from ..contract.records import check_record, record_to_dict
from ..contract.results import TransferSummary
from ..types import MemoryRecord
from ..contract.checks import check_flag, check_text_output, check_timestamp

if TYPE_CHECKING:
    pass

from ..embed.checked import embed_passages
from .common import EXPORT_FORMAT, EXPORT_VERSION, maintainable, recovered_users

_FLOAT32_MAX = float(np.finfo(np.float32).max)


def export_jsonl(store: MemoryStore, out: TextIO, *, users: Iterable[str] | None = None,
                 vectors: bool = True, include_archive: bool = True, now: datetime | None = None) -> TransferSummary:
    """Write every memory of the store (or of `users`) to `out` as JSON Lines; see the module docstring.

    A destination that cannot take it (a closed or binary file, a full disk) is an `ExportError`; to leave
    no half-written file behind, write to `atomic_text_file(path)`.
    """
    store = maintainable(store)
    vectors, include_archive = check_flag(vectors, "vectors"), check_flag(include_archive, "include_archive")
    check_text_output(out)
    header: dict[str, Any] = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "vectors": vectors}
    moment = check_timestamp(now, "now")
    if moment is not None:
        header["exported_at"] = moment.isoformat()
    chosen = recovered_users(store, users)
    try:
        return _export(store, out, chosen, header, vectors=vectors, include_archive=include_archive)
    except OSError as exc:
        raise ExportError(f"cannot write the export ({exc.strerror or exc}); nothing usable was written: free "
                          "some space or choose another destination, then export again") from None
    except ValueError as exc:  # a file closed under us
        raise ExportError(f"cannot write the export ({exc}); pass an open text file") from None


@contextlib.contextmanager
def atomic_text_file(path: str | os.PathLike[str]) -> Iterator[TextIO]:
    """A text file that appears at `path` only once everything was written (a temporary file in the same folder,
    renamed on success, removed on failure), so a full disk leaves the old file, or none, never half of one.
    A path that is not a regular file (a device, a pipe) is written in place. Errors are `ExportError`."""
    target = Path(path)

    def failed(exc: OSError) -> ExportError:
        what = "free some space or choose another disk" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else \
            "choose a file in a folder you can write to"
        return ExportError(f"cannot write the export to {str(target)!r} ({exc.strerror or exc}); nothing was left "
                           f"there: {what}, then export again")

    try:
        special = target.exists() and not stat.S_ISREG(target.stat().st_mode)
        if special:
            out = open(target, "w", encoding="utf-8")
        else:
            handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
            out = os.fdopen(handle, "w", encoding="utf-8")
    except OSError as exc:
        raise failed(exc) from None
    try:
        try:
            yield out
            out.flush()
            if not special:
                os.fsync(out.fileno())
            out.close()
        except BaseException:
            with contextlib.suppress(OSError):
                out.close()
            raise
        if not special:
            os.replace(temporary, target)
    except OSError as exc:
        raise failed(exc) from None
    finally:
        if not special:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def _export(store: MemoryStore, out: TextIO, users: list[str], header: dict[str, Any], *, vectors: bool,
            include_archive: bool) -> TransferSummary:
    out.write(json.dumps(header) + "\n")
    summary = TransferSummary()
    for user in users:
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


def check_export(lines: Iterable[str]) -> int:
    """Read and check every line of an export without storing anything; returns how many memories it holds
    (a client checks the whole file so, before sending it to a server in parts)."""
    return sum(1 for _ in _read_export(lines))


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


def import_jsonl(store: MemoryStore, embedder: Embedder, lines: Iterable[str], *,
                 batch_size: int = 256) -> TransferSummary:
    """Load an export into the store; see the module docstring for when vectors are reused.

    All or nothing: every line is read, checked and embedded if need be before the first is stored. Memories keep
    their ids, so importing a file twice stores each once; a user whose memories were embedded with another model
    gets `EmbedderMismatchError`.
    """
    from ..errors import EmbedderMismatchError

    store = maintainable(store)
    if isinstance(lines, (str, bytes)) or not isinstance(lines, Iterable):
        raise InvalidInputError("lines must be the export's lines (an open text file or a list of strings), got "
                                f"{type(lines).__name__}" + (": open the file first" if isinstance(lines, str) else ""))
    pending: dict[tuple[str, str], list[tuple[MemoryRecord, np.ndarray | None, dict | None]]] = {}
    for _, record, vector, archived in _read_export(lines):  # the whole file, before anything is stored
        key = (record.user_id, ARCHIVE if archived is not None else MEMORIES)
        as_array = np.asarray(vector, dtype=np.float32) if vector is not None else None
        pending.setdefault(key, []).append((record, as_array, archived))
    for user in sorted({user for user, _ in pending}):
        registered = store.registered_embedding(user)
        if registered and (registered[0] != embedder.name or int(registered[1]) != embedder.dimension):
            raise EmbedderMismatchError(
                f"user {user!r} is embedded with {registered[0]} ({registered[1]} dimensions), not {embedder.name}; "
                f"nothing was imported: import with that model, or run `hindsight migrate --to {embedder.name}` "
                "first")
    staged = [(key, _vectors_for(items, embedder)) for key, items in pending.items()]
    summary = TransferSummary()
    for (user, space), (records, vectors, archive_notes, reembedded) in staged:
        store.open_user(user, embedding_model=embedder.name, dimension=embedder.dimension, create=True)
        store.ensure_space(user, MEMORIES, embedder.dimension)
        for start in range(0, len(records), batch_size):
            part = slice(start, start + batch_size)
            if space == MEMORIES:
                store.commit(user, upserts=list(zip(records[part], vectors[part])))
            else:
                store.put_space(user, ARCHIVE, records[part], vectors[part],
                                [{"archived": a or {}} for a in archive_notes[part]])
        summary.memories += len(records) if space == MEMORIES else 0
        summary.archived += len(records) if space == ARCHIVE else 0
        summary.reembedded += reembedded
        summary.users.add(user)
    return summary


def _vectors_for(items: list[tuple[MemoryRecord, np.ndarray | None, dict | None]], embedder: Embedder
                 ) -> tuple[list[MemoryRecord], np.ndarray, list[dict | None], int]:
    """The records with their vectors: the file's own when the model and size match, else embedded now."""
    records, vectors = [], np.zeros((len(items), embedder.dimension), dtype=np.float32)
    stale = []
    for i, (record, vector, _) in enumerate(items):
        if vector is not None and record.embedding_model == embedder.name and len(vector) == embedder.dimension:
            vectors[i] = vector
        else:
            record = record.evolve(embedding_model=embedder.name)
            stale.append(i)
        records.append(record)
    for start in range(0, len(stale), 256):
        chunk = stale[start:start + 256]
        vectors[chunk] = embed_passages(embedder, [records[i].raw_content for i in chunk])
    return records, vectors, [archived for _, _, archived in items], len(stale)
