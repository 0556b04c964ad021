"""The write queue's journal: writes handed over and not yet stored, in SQLite, so a killed process loses none.

One table, `pending (seq, entry)`, an entry a JSON object. `add` commits before it returns (with `sync="full"`, an fsync
too); removing a stored write need not wait for the disk. `secure_delete` is on and the WAL is cut to nothing after
every removal, so no file holds a stored or dropped write; the entries waiting are in the clear, in a file only its
owner can open (`store.private`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Any

from ..clock import ensure_utc
from ..errors import InvalidInputError

JOURNAL_NAME = "write-queue.sqlite"

def _encode(value: Any) -> Any:
    if isinstance(value, datetime):
        return {"$datetime": ensure_utc(value).isoformat()}
    if isinstance(value, Enum):
        return value.value
    raise TypeError(f"{type(value).__name__} cannot be journaled")


def _decode(value: dict[str, Any]) -> Any:
    if set(value) == {"$datetime"}:
        return datetime.fromisoformat(value["$datetime"])
    return value


class QueueJournal:
    """The pending writes of one queue, at `path` (in memory, not durable, with None)."""

    def __init__(self, path: str | Path | None, *, sync: str = "normal") -> None:
        if sync not in ("full", "normal"):
            raise InvalidInputError('sync must be "full" (fsync each hand-over) or "normal" (survives a killed '
                                    'process, not a power cut)')
        self.path = Path(path) if path is not None else None
        self.sync = sync
        if self.path is not None:
            from ..store.private import private_file  # here, not above: importing a client loads no store module

            private_file(self.path)  # owner-only before a byte is written; its -wal and -shm take its mode
        self._db = sqlite3.connect(str(self.path) if self.path else ":memory:", check_same_thread=False,
                                   isolation_level=None)
        self._db.execute("PRAGMA secure_delete=ON")  # a removed entry is overwritten, not only unlinked
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={sync.upper()}")
        self._db.execute("CREATE TABLE IF NOT EXISTS pending (seq INTEGER PRIMARY KEY AUTOINCREMENT, entry TEXT)")
        self._db.execute("CREATE TABLE IF NOT EXISTS log_start (one INTEGER PRIMARY KEY CHECK (one = 1))")

    def pending(self) -> list[tuple[int, dict[str, Any]]]:
        """What was journaled and not yet removed, in the order handed over."""
        return [(seq, json.loads(entry, object_hook=_decode))
                for seq, entry in self._db.execute("SELECT seq, entry FROM pending ORDER BY seq")]

    @staticmethod
    def encode(entry: dict[str, Any]) -> str:
        """The entry as the journal holds it; `InvalidInputError` if it cannot be journaled."""
        try:
            return json.dumps(entry, default=_encode, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"this write cannot be queued: {exc}") from None

    def add(self, data: str) -> tuple[int, dict[str, Any]]:
        """Journal an encoded entry (committed on return); its place, and the entry as a replay would read it."""
        seq = self._db.execute("INSERT INTO pending (entry) VALUES (?)", (data,)).lastrowid
        assert seq is not None  # an INSERT's row id
        return seq, json.loads(data, object_hook=_decode)

    def remove(self, seqs: Sequence[int], *, stored: bool = True) -> None:
        """Drop entries. Stored ones go without waiting for the disk; `stored=False` (writes dropped unstored, for
        a user who forgot everything) waits as `add` does, so they cannot come back."""
        if not seqs:
            return
        if stored:
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(f"DELETE FROM pending WHERE seq IN ({','.join('?' * len(seqs))})", list(seqs))
        if stored:
            self._db.execute(f"PRAGMA synchronous={self.sync.upper()}")
        self._cut_log()

    def _cut_log(self) -> None:
        """Copy the log back into the (secure-deleted) database and cut it to nothing: old entries leave it.

        The copy is fsynced only with `sync="full"`."""
        if self.sync == "normal":
            self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._db.execute(f"PRAGMA synchronous={self.sync.upper()}")
        # restart the cut log here, on the writer's thread, so the next hand-over is a plain append
        self._db.execute("INSERT OR REPLACE INTO log_start (one) VALUES (1)")

    def close(self) -> None:
        self._db.close()
