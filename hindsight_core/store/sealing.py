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
cut, a memory whose key was lost is reported as unreadable and set aside.

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
from typing import Any, Iterable

from ..errors import StoreUnavailableError
from .private import private_file


class KeyStore:
    """Per-memory keys for one user, in `keys.sqlite` under the user's directory."""

    def __init__(self, path: Path | str) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        self._aesgcm = AESGCM
        self.path = path
        self._lock = threading.Lock()
        try:
            if str(path) != ":memory:":
                private_file(path)  # SQLite gives its -wal and -shm the database file's mode
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA secure_delete=ON")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS keys (id TEXT PRIMARY KEY, key BLOB NOT NULL)")
        except (sqlite3.Error, OSError) as exc:
            raise StoreUnavailableError(f"cannot open the key file {path}: {exc}") from exc
        self._cache: dict[str, bytes] = {}
        self._id_key: bytes | None = None

    def _key(self, memory_id: str, create: bool) -> bytes | None:
        key = self._cache.get(memory_id)
        if key is not None:
            return key
        row = self._db.execute("SELECT key FROM keys WHERE id = ?", (memory_id,)).fetchone()
        if row is not None:
            key = bytes(row[0])
        elif create:
            key = self._aesgcm.generate_key(bit_length=256)
            self._db.execute("INSERT OR REPLACE INTO keys (id, key) VALUES (?, ?)", (memory_id, key))
        if key is not None and len(self._cache) < 100_000:
            self._cache[memory_id] = key
        return key

    def prepare(self, memory_ids: Iterable[str]) -> None:
        """Create the keys of many new memories in one transaction (before their points are written)."""
        with self._lock:
            missing = [m for m in memory_ids if m not in self._cache]
            if not missing:
                return
            known = {row[0]: bytes(row[1]) for row in self._db.execute(
                f"SELECT id, key FROM keys WHERE id IN ({','.join('?' * len(missing))})", missing)} \
                if len(missing) < 900 else {}
            fresh = [(m, self._aesgcm.generate_key(bit_length=256)) for m in missing if m not in known]
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR IGNORE INTO keys (id, key) VALUES (?, ?)", fresh)
            self._db.execute("COMMIT")
            for memory_id, key in [*known.items(), *fresh]:
                if len(self._cache) < 100_000:
                    self._cache[memory_id] = key

    def load(self, memory_ids: Iterable[str]) -> None:
        """Read the keys of many stored memories in one query (a search's results), creating none."""
        with self._lock:
            missing = [m for m in dict.fromkeys(memory_ids) if m not in self._cache][:900]
            if not missing or len(self._cache) >= 100_000:
                return
            for memory_id, key in self._db.execute(
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
                row = self._db.execute("SELECT key FROM keys WHERE id = '~ids'").fetchone()
                if row is None:
                    key = self._aesgcm.generate_key(bit_length=256)
                    self._db.execute("INSERT OR IGNORE INTO keys (id, key) VALUES ('~ids', ?)", (key,))
                    row = self._db.execute("SELECT key FROM keys WHERE id = '~ids'").fetchone()
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
            self._db.execute("BEGIN")
            self._db.executemany("DELETE FROM keys WHERE id = ?", [(m,) for m in ids])
            self._db.execute("COMMIT")
            # the deleted rows are overwritten in the database (secure_delete); the log that still
            # holds the old pages is copied back and cut to nothing
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        with self._lock:
            self._cache.clear()
            try:
                self._db.close()
            except sqlite3.Error:
                pass
