"""Sealed payloads: forgetting a memory destroys the only key to its text.

Qdrant Edge keeps a deleted point's payload in its write-ahead log (and in the segment until a vacuum), so the embedded
store never writes a memory's text in the clear: each memory's text is encrypted with its own random 256-bit key
(AES-GCM, the memory id as associated data), kept in one SQLite file per store (`keys.sqlite`, `KeyFile`) with
`secure_delete` on and the log truncated after every deletion. Forgetting a memory deletes its key in the same call,
forgetting a user all of theirs. Keys survive a killed process (SQLite WAL); after a power cut, a memory whose key was
lost is reported as unreadable and set aside.

The session and agent ids are sealed with the text; filters find them through `id_digest`, an HMAC-SHA256 under a
per-user key in the same file (row `~ids`), which goes with the user, not with one memory. Someone who holds both the
engine's files and `keys.sqlite` can test a guessed id against it, as they could read every memory not yet forgotten. A
user's points hold their `tenant`, an HMAC under the same key, never the user id.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import sqlite3
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..errors import StoreUnavailableError
from .private import private_file

_TABLE = ("CREATE TABLE IF NOT EXISTS keys (user TEXT NOT NULL, space TEXT NOT NULL, id TEXT NOT NULL, "
          "key BLOB NOT NULL, PRIMARY KEY (user, space, id)) WITHOUT ROWID")
_INSERT = "INSERT OR IGNORE INTO keys (user, space, id, key) VALUES (?, ?, ?, ?)"
#: the row holding the key of the session and agent ids' digests
ID_ROW = "~ids"
#: keys a query names at most (SQLite's bound on parameters is 999 in older builds)
_CHUNK = 900
#: keys kept in memory for one user's space
_CACHED_PER_OWNER = 100_000
#: the sealed text's JSON (made once: `json.dumps` with options builds an encoder a call)
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

Owner = tuple[str, str]  # (the user's folder name, the space)


class KeyFile:
    """Every user's per-memory keys, in one SQLite file (`":memory:"` for a store whose keys live nowhere else).

    `kept`: how many users' spaces keep their keys read so far in memory (the least recently used are dropped;
    their keys are read again from the file). The file is made with the first key written (a user's first write
    makes their tenant's key, sealed or not); until then reading finds no key.
    """

    def __init__(self, path: Path | str, *, kept: int = 64) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        self.aesgcm = AESGCM
        self.path = path
        self.lock = threading.Lock()
        self._kept = max(1, int(kept))
        self._cache: OrderedDict[Owner, dict[str, bytes]] = OrderedDict()
        self._db: sqlite3.Connection | None = None
        if str(path) == ":memory:" or os.path.exists(path):
            self._db = self._connect()

    def _opened(self, create: bool = False) -> sqlite3.Connection | None:
        """The file's connection (lock held); None while the file has not been made (and `create` is false)."""
        if self._db is None and (create or os.path.exists(self.path)):
            self._db = self._connect()
        return self._db

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

    def of(self, user: str, space: str) -> KeyStore:
        """The keys of one user's space (`user`: the user's folder name, `edge_files.user_dir_name`)."""
        return KeyStore(self, (user, space))

    # -- under `lock` ---------------------------------------------------------------------------
    def cached(self, owner: Owner) -> dict[str, bytes]:
        found = self._cache.get(owner)
        if found is None:
            found = self._cache[owner] = {}
            while len(self._cache) > self._kept:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(owner)
        return found

    def remember(self, owner: Owner, keys: Iterable[tuple[str, bytes]]) -> None:
        cache = self.cached(owner)
        for memory_id, key in keys:
            if len(cache) < _CACHED_PER_OWNER:
                cache[memory_id] = key

    def read(self, owner: Owner, memory_ids: Sequence[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        db = self._opened()
        if db is None:
            return found
        for start in range(0, len(memory_ids), _CHUNK):
            part = memory_ids[start:start + _CHUNK]
            found.update((row[0], bytes(row[1])) for row in db.execute(
                f"SELECT id, key FROM keys WHERE user = ? AND space = ? AND id IN ({','.join('?' * len(part))})",
                [*owner, *part]))
        return found

    def insert(self, owner: Owner, rows: Sequence[tuple[str, bytes]]) -> None:
        """Write keys in one transaction (in the log before this returns: they survive a killed process)."""
        if rows:
            self._transaction(_INSERT, [(*owner, memory_id, key) for memory_id, key in rows], create=True)

    def delete(self, owner: Owner, memory_ids: Sequence[str]) -> None:
        for memory_id in memory_ids:
            self._cache.get(owner, {}).pop(memory_id, None)
        self._transaction("DELETE FROM keys WHERE user = ? AND space = ? AND id = ?",
                          [(*owner, memory_id) for memory_id in memory_ids])
        self._truncate_log()

    def _transaction(self, statement: str, rows: list[tuple], *, create: bool = False) -> None:
        """Run `statement` for each row in one transaction (nothing to do on a file not made, unless `create`)."""
        db = self._opened(create)
        if db is None:
            return
        try:
            db.execute("BEGIN")
            db.executemany(statement, rows)
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise StoreUnavailableError(f"cannot write the key file {self.path}: {exc}") from exc

    def _truncate_log(self) -> None:
        # the deleted rows are overwritten in the database (secure_delete); the log that still
        # holds the old pages is copied back and cut to nothing
        if self._db is not None:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- whole users ---------------------------------------------------------------------------------
    def destroy_user(self, user: str, space: str | None = None) -> None:
        """Delete for good every key of a user (of one space of theirs with `space`)."""
        with self.lock:
            for owner in [o for o in self._cache if o[0] == user and space in (None, o[1])]:
                del self._cache[owner]
            if space is None:
                self._transaction("DELETE FROM keys WHERE user = ?", [(user,)])
            else:
                self._transaction("DELETE FROM keys WHERE user = ? AND space = ?", [(user, space)])
            self._truncate_log()

    def add(self, owner: Owner, rows: Sequence[tuple[str, bytes]]) -> None:
        """Keys read from elsewhere (a key file of an older layout): kept as they are, none replaced."""
        with self.lock:
            self.insert(owner, rows)

    def sync(self) -> None:
        """Everything written so far into the database file, synced (before the files it came from are removed)."""
        with self.lock:
            db = self._opened(create=True)
            assert db is not None  # made on demand with create=True
            db.execute("PRAGMA wal_checkpoint(FULL)")
            if str(self.path) != ":memory:":
                _sync(Path(self.path))
                _sync(Path(self.path).parent)  # its name too

    def close(self) -> None:
        with self.lock:
            self._cache.clear()
            try:
                if self._db is not None:
                    self._db.close()
            except sqlite3.Error:
                pass


def _sync(path: Path) -> None:
    handle = os.open(path, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


class KeyStore:
    """Per-memory keys for one user's space: their rows in the store's `KeyFile`.

    Until a key is written nothing of the user is on disk, and reading finds no key.
    """

    def __init__(self, file: KeyFile, owner: Owner) -> None:
        self.file, self.owner = file, owner

    def _key(self, memory_id: str, create: bool) -> bytes | None:
        """One memory's key (lock held); a new one is made and written with `create`."""
        cache = self.file.cached(self.owner)
        key = cache.get(memory_id)
        if key is not None:
            return key
        key = self.file.read(self.owner, [memory_id]).get(memory_id)
        if key is None and create:
            key = self.file.aesgcm.generate_key(bit_length=256)
            self.file.insert(self.owner, [(memory_id, key)])
        if key is not None:
            self.file.remember(self.owner, [(memory_id, key)])
        return key

    def prepare(self, memory_ids: Iterable[str]) -> None:
        """Create the keys of many new memories in one transaction (before their points are written)."""
        with self.file.lock:
            cache = self.file.cached(self.owner)
            missing = [m for m in dict.fromkeys(memory_ids) if m not in cache]
            if not missing:
                return
            known = self.file.read(self.owner, missing)
            fresh = [(m, self.file.aesgcm.generate_key(bit_length=256)) for m in missing if m not in known]
            self.file.insert(self.owner, fresh)
            self.file.remember(self.owner, [*known.items(), *fresh])

    def load(self, memory_ids: Iterable[str]) -> None:
        """Read the keys of many stored memories in one query (a search's results), creating none."""
        with self.file.lock:
            cache = self.file.cached(self.owner)
            missing = [m for m in dict.fromkeys(memory_ids) if m not in cache][:_CHUNK]
            if missing:
                self.file.remember(self.owner, self.file.read(self.owner, missing).items())

    def seal(self, memory_id: str, text: dict[str, Any]) -> str:
        with self.file.lock:
            key = self._key(memory_id, create=True)
        assert key is not None  # made when missing (create=True)
        nonce = os.urandom(12)
        data = _ENCODE(text).encode("utf-8")
        box = self.file.aesgcm(key).encrypt(nonce, data, memory_id.encode("utf-8"))
        return base64.b64encode(nonce + box).decode("ascii")

    def unseal(self, memory_id: str, sealed: str) -> dict[str, Any]:
        with self.file.lock:
            key = self._key(memory_id, create=False)
        if key is None:
            raise ValueError("its key is gone (the memory was forgotten)")
        raw = base64.b64decode(sealed)
        return json.loads(self.file.aesgcm(key).decrypt(raw[:12], raw[12:], memory_id.encode("utf-8")))

    def id_digest(self, value: str) -> str:
        """A keyed digest of a session or agent id: what filters match, in place of the id itself."""
        with self.file.lock:
            key = self._key(ID_ROW, create=True)
        assert key is not None  # made when missing (create=True)
        return "h:" + hmac.new(key, value.encode("utf-8"), hashlib.sha256).hexdigest()[:40]

    def tenant(self) -> str:
        """What the user's points hold as their user (the memories space's keys give it for every space): a digest
        of nothing but the user's key, with no trace of the user id, and unrelated to anything once the key goes."""
        with self.file.lock:
            key = self._key(ID_ROW, create=True)
        assert key is not None  # made when missing (create=True)
        return "t:" + hmac.new(key, b"\0tenant", hashlib.sha256).hexdigest()[:40]

    def destroy(self, memory_ids: Iterable[str]) -> None:
        """Delete keys for good: secure_delete overwrites them in the file."""
        ids = list(dict.fromkeys(memory_ids))
        if ids:
            with self.file.lock:
                self.file.delete(self.owner, ids)
