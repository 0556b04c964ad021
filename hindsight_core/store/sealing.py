"""Sealed payloads: forgetting a memory destroys the only key to its text.

Qdrant Edge keeps every update in its write-ahead log, and a deleted point's
payload stays in the log (and in the segment until a vacuum) after the delete.
So the embedded store never writes a memory's text in the clear: each memory's
text is encrypted with its own random 256-bit key (AES-GCM, the memory id as
associated data), and the keys live in a small SQLite file per user with
`secure_delete` on, so a deleted key is overwritten in place, and its log is
checkpointed and truncated after every deletion. Forgetting a memory deletes
its key in the same call; what remains in the engine's files is ciphertext
nobody can open. Keys are written with the same guarantee as Edge's own log:
they survive a killed process (SQLite WAL, synchronous=NORMAL); after a power
cut, a memory whose key was lost is reported as unreadable and set aside. A
user's key file is made with its first keys, whole, under a temporary name
(`create_key_file`: one disk sync instead of six on a new user's first write).

The session and agent ids are sealed with the text; filters find them through
`id_digest`, an HMAC-SHA256 of the id under a per-user key kept in the same
file (row `~ids`), so the engine's log holds neither id in the clear. The
digest is not erased by forgetting one memory (other memories of the same
session share it); it goes with the user (`forget(everything=True)`). Someone
who holds both the engine's files and `keys.sqlite` can test a guessed id
against it, as they could read every memory not yet forgotten.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..errors import StoreUnavailableError
from .private import private_file


_TABLE = "CREATE TABLE IF NOT EXISTS keys (id TEXT PRIMARY KEY, key BLOB NOT NULL)"
_INSERT = "INSERT OR IGNORE INTO keys (id, key) VALUES (?, ?)"
_SIDE_FILES = ("-journal", "-wal", "-shm")
#: the row holding the key of the session and agent ids' digests
_ID_ROW = "~ids"


def create_key_file(path: Path, rows: Sequence[tuple[str, bytes]]) -> bool:
    """Make the key file at `path` holding `rows` (id, key), in WAL mode; False (nothing made) if it cannot be
    made this way: a file is already there, or SQLite kept a log beside the temporary.

    Made in place, SQLite's switch of a new file to WAL, its table and its first
    keys sync the disk six times (a new user's first write waited 16-19 ms of 33 ms
    for them here). Here the file is written under a temporary name with syncs off
    (in rollback mode, so the keys go straight into the file, never into a log that
    is removed), switched to WAL, synced once and linked in under its name (a link
    never replaces a file already there): one sync. So a key file is never seen
    torn: after a killed process there is either no key file, and no point was
    sealed with these keys (the caller writes points only once this returns), or a
    complete one; a half-made temporary is removed by the next attempt. Its name is
    as durable as the keys written later (WAL, synchronous=NORMAL): a power cut may
    lose it, and the memories sealed with its keys are then reported unreadable and
    set aside, as for any key a power cut takes (the module's docstring).
    """
    temporary = path.with_name(path.name + ".new")
    side = [temporary.with_name(temporary.name + suffix) for suffix in _SIDE_FILES]
    for leftover in (temporary, *side):
        leftover.unlink(missing_ok=True)
    try:
        private_file(temporary)
        db = sqlite3.connect(str(temporary), isolation_level=None)
        try:
            db.execute("PRAGMA synchronous=OFF")  # nobody reads the temporary before it is synced below
            db.execute("PRAGMA secure_delete=ON")
            db.execute(_TABLE)
            db.execute("BEGIN")
            db.executemany(_INSERT, rows)
            db.execute("COMMIT")
            db.execute("PRAGMA journal_mode=WAL")
        finally:
            db.close()  # its only connection: no log stays beside it
        if any(p.exists() for p in side):
            return False
        _sync(temporary)
        try:
            os.link(temporary, path)
        except FileExistsError:
            return False
        return True
    finally:
        for leftover in (temporary, *side):
            leftover.unlink(missing_ok=True)


def _sync(path: Path) -> None:
    handle = os.open(path, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


class KeyStore:
    """Per-memory keys for one user, in `keys.sqlite` under the user's directory.

    A user's key file is made with the first keys written to it (`create_key_file`):
    until then nothing is on disk, and reading finds no key.
    """

    def __init__(self, path: Path | str) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        self._aesgcm = AESGCM
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._cache: dict[str, bytes] = {}
        self._id_key: bytes | None = None
        if str(path) == ":memory:" or os.path.exists(path):
            self._db = self._connect()

    def _connect(self) -> sqlite3.Connection:
        try:
            if str(self.path) != ":memory:":
                private_file(Path(self.path))  # SQLite gives its -wal and -shm the database file's mode
            db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA secure_delete=ON")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(_TABLE)
            return db
        except (sqlite3.Error, OSError) as exc:
            raise StoreUnavailableError(f"cannot open the key file {self.path}: {exc}") from exc

    def _opened(self) -> sqlite3.Connection | None:
        """The key file's connection (lock held), or None while the file has not been made."""
        if self._db is None and os.path.exists(self.path):
            self._db = self._connect()
        return self._db

    def _insert(self, rows: list[tuple[str, bytes]]) -> None:
        """Write new keys in one transaction (lock held); a key file not made yet is made with them."""
        if self._opened() is None:
            id_row = (_ID_ROW, self._aesgcm.generate_key(bit_length=256))  # what `id_digest` would add next
            try:
                made = create_key_file(Path(self.path), [*rows, id_row])
            except (sqlite3.Error, OSError) as exc:
                raise StoreUnavailableError(f"cannot make the key file {self.path}: {exc}") from exc
            self._db = self._connect()
            if made:
                return
        db = self._db
        db.execute("BEGIN")
        db.executemany(_INSERT, rows)
        db.execute("COMMIT")

    def _key(self, memory_id: str, create: bool) -> bytes | None:
        key = self._cache.get(memory_id)
        if key is not None:
            return key
        db = self._opened()
        row = db.execute("SELECT key FROM keys WHERE id = ?", (memory_id,)).fetchone() if db is not None else None
        if row is not None:
            key = bytes(row[0])
        elif create:
            key = self._aesgcm.generate_key(bit_length=256)
            self._insert([(memory_id, key)])
        if key is not None and len(self._cache) < 100_000:
            self._cache[memory_id] = key
        return key

    def prepare(self, memory_ids: Iterable[str]) -> None:
        """Create the keys of many new memories in one transaction (before their points are written)."""
        with self._lock:
            missing = [m for m in memory_ids if m not in self._cache]
            if not missing:
                return
            db = self._opened()
            known = {row[0]: bytes(row[1]) for row in db.execute(
                f"SELECT id, key FROM keys WHERE id IN ({','.join('?' * len(missing))})", missing)} \
                if db is not None and len(missing) < 900 else {}
            fresh = [(m, self._aesgcm.generate_key(bit_length=256)) for m in missing if m not in known]
            self._insert(fresh)
            for memory_id, key in [*known.items(), *fresh]:
                if len(self._cache) < 100_000:
                    self._cache[memory_id] = key

    def load(self, memory_ids: Iterable[str]) -> None:
        """Read the keys of many stored memories in one query (a search's results), creating none."""
        with self._lock:
            missing = [m for m in dict.fromkeys(memory_ids) if m not in self._cache][:900]
            db = self._opened()
            if not missing or db is None or len(self._cache) >= 100_000:
                return
            for memory_id, key in db.execute(
                    f"SELECT id, key FROM keys WHERE id IN ({','.join('?' * len(missing))})", missing):
                self._cache[memory_id] = bytes(key)

    def seal(self, memory_id: str, text: dict[str, Any]) -> str:
        with self._lock:
            key = self._key(memory_id, create=True)
        nonce = os.urandom(12)
        data = json.dumps(text, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        box = self._aesgcm(key).encrypt(nonce, data, memory_id.encode("utf-8"))
        return base64.b64encode(nonce + box).decode("ascii")

    def unseal(self, memory_id: str, sealed: str) -> dict[str, Any]:
        with self._lock:
            key = self._key(memory_id, create=False)
        if key is None:
            raise ValueError("its key is gone (the memory was forgotten)")
        raw = base64.b64decode(sealed)
        return json.loads(self._aesgcm(key).decrypt(raw[:12], raw[12:], memory_id.encode("utf-8")))

    def id_digest(self, value: str) -> str:
        """A keyed digest of a session or agent id: what filters match, in place of the id itself."""
        with self._lock:
            if self._id_key is None:
                if self._opened() is None:
                    self._insert([])  # the key file is made with the ids' key
                db = self._db
                row = db.execute("SELECT key FROM keys WHERE id = ?", (_ID_ROW,)).fetchone()
                if row is None:
                    db.execute(_INSERT, (_ID_ROW, self._aesgcm.generate_key(bit_length=256)))
                    row = db.execute("SELECT key FROM keys WHERE id = ?", (_ID_ROW,)).fetchone()
                self._id_key = bytes(row[0])
            key = self._id_key
        return "h:" + hmac.new(key, value.encode("utf-8"), hashlib.sha256).hexdigest()[:40]

    def destroy(self, memory_ids: Iterable[str]) -> None:
        """Delete keys for good: secure_delete overwrites them in the file."""
        ids = list(memory_ids)
        if not ids:
            return
        with self._lock:
            for memory_id in ids:
                self._cache.pop(memory_id, None)
            db = self._opened()
            if db is None:  # no key file: no key was ever written
                return
            db.execute("BEGIN")
            db.executemany("DELETE FROM keys WHERE id = ?", [(m,) for m in ids])
            db.execute("COMMIT")
            # the deleted rows are overwritten in the database (secure_delete); the log that still
            # holds the old pages is copied back and cut to nothing
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        with self._lock:
            self._cache.clear()
            try:
                if self._db is not None:
                    self._db.close()
            except sqlite3.Error:
                pass
