"""Where a write queue over `HindsightClient` journals: a private folder on this machine, so a killed client loses no
write it acknowledged.

    <folder>/<server>/<token>/<slot>/write-queue.sqlite     (folders 0700, files 0600, whatever the umask)

`folder` is `HINDSIGHT_HOME/client-queues` unless the caller names one; `server` and `token` are digests (`server_key`),
so a journal is replayed to the server it was meant for, with the rights it was written with. Each process holds one
slot (an exclusive lock) and moves into it what free slots hold. A journal left under another token of the same server
is adopted by the next client whose token reaches the users of its writes (`reaches`); what it does not reach stays,
with a warning saying how many wait and where.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import ipaddress
import logging
import os
import stat
from pathlib import Path
from typing import IO, Any, Callable
from urllib.parse import urlsplit

from ..errors import HindsightError, StoreUnavailableError
from ..language.text import normalise_id
from ..session.queue_journal import JOURNAL_NAME, QueueJournal

logger = logging.getLogger("hindsight_core.remote.local_journal")

FOLDER_NAME = "client-queues"
#: slots per server and token: processes writing through one server at the same time
MAX_SLOTS = 64


def private_folder(path: Path) -> Path:
    """`path` made (with its missing parents) and set to 0700; refused if it is a link or another user's."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise StoreUnavailableError(f"{path} must be a folder of this user's, not a link or another user's: "
                                    "a write queue's journal holds the texts handed over")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(path, 0o700)
    return path


def private_file(path: Path) -> Path:
    """`path` created if missing, 0600 (SQLite gives its -wal and -shm files the same mode)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    return path


def server_key(url: str) -> str:
    """The digest naming a server's journals: its scheme, host (every loopback name read as one) and port."""
    parts = urlsplit(url.strip().lower())
    host = parts.hostname or ""
    port = parts.port or {"https": 443}.get(parts.scheme, 80)
    try:  # not ui.security's is_loopback: the core stays free of the inspector (tests/ui/test_boundary.py)
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    name = "loopback" if loopback else host
    return _digest(f"{parts.scheme}://{name}:{port}{parts.path.rstrip('/')}")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class ClientJournal:
    """One slot of the journal folder for (server, token), held by this process until `release()`.

    `reaches`: asks the server whom the token reaches ("*" or a user id), to adopt what other tokens of the same
    server left (see the module's rules); None adopts nothing."""

    def __init__(self, url: str, token: str | None, folder: Path, reaches: Callable[[], str] | None = None) -> None:
        Path(folder).mkdir(parents=True, exist_ok=True, mode=0o700)  # a folder the caller named keeps its mode
        self.server = private_folder(Path(folder) / server_key(url))
        self.root = private_folder(self.server / _digest(token or ""))
        self._lock: IO[str] | None = None
        self.path = self._take_slot()
        self._gather()
        if reaches is not None:
            self._adopt(reaches)

    def _take_slot(self) -> Path:
        for slot in range(MAX_SLOTS):
            folder = private_folder(self.root / str(slot))
            lock = _try_lock(folder)
            if lock is not None:
                self._lock = lock
                return private_file(folder / JOURNAL_NAME)
        raise StoreUnavailableError(f"{MAX_SLOTS} processes already journal writes to this server in {self.root}; "
                                    "close one, or give this client a journal folder of its own")

    def _gather(self) -> None:
        """Move what this token's free slots hold (a killed process's writes) into this one, in slot order."""
        self._move(self._free_slots(self.root), lambda entry: True)

    def _adopt(self, reaches: Callable[[], str]) -> None:
        """Move what other tokens of this server left into this slot, for the users this token reaches."""
        others = [token for token in self.server.iterdir() if token.is_dir() and token != self.root]
        if not any(self._free_slots(token, peek=True) for token in others):
            return
        try:
            who = reaches()
        except HindsightError as exc:
            logger.warning("hindsight: writes journaled with another token for this server wait in %s; the server "
                           "could not say whom this token reaches (%s), so they are sent by a later start",
                           self.server, exc)
            return
        left = sum(self._move(self._free_slots(token), lambda e: who == "*" or normalise_id(e["user_id"]) == who)
                   for token in others)
        if left:
            logger.warning("hindsight: %d writes journaled with another token for this server wait in %s: this "
                           "token does not reach their users; a client with a token that does sends them", left,
                           self.server)

    def _free_slots(self, token: Path, *, peek: bool = False) -> list[Path]:
        """The slots of `token`'s folder (this one's excepted) holding a journal, in slot order; with `peek`, only
        those with a write waiting, whether or not a process holds them."""
        slots = [folder / JOURNAL_NAME for folder in sorted(token.iterdir(), key=lambda p: (len(p.name), p.name))
                 if folder != self.path.parent and (folder / JOURNAL_NAME).exists()]
        return [j for j in slots if _waiting(j)] if peek else slots

    def _move(self, journals: list[Path], wanted: Callable[[dict[str, Any]], bool]) -> int:
        """Move the `wanted` writes of the journals no live process holds into this slot; returns how many stay."""
        mine = QueueJournal(self.path)
        stayed = 0
        try:
            for journal in journals:
                lock = _try_lock(journal.parent)
                if lock is None:  # a live process's own journal
                    continue
                try:
                    theirs = QueueJournal(journal)
                    try:
                        taken = [(seq, entry) for seq, entry in theirs.pending() if wanted(entry)]
                        stayed += len(theirs.pending()) - len(taken)
                        for _, entry in taken:
                            mine.add(mine.encode(entry))
                        theirs.remove([seq for seq, _ in taken], stored=False)
                    finally:
                        theirs.close()
                finally:
                    lock.close()
        finally:
            mine.close()
        return stayed

    def release(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None


def _waiting(journal: Path) -> bool:
    """Whether a journal holds a write (read only: a live process's journal is not disturbed)."""
    import sqlite3

    try:
        with contextlib.closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True)) as db:
            return db.execute("SELECT 1 FROM pending LIMIT 1").fetchone() is not None
    except sqlite3.Error:
        return True  # unreadable here: let the locked read decide


def _try_lock(folder: Path) -> IO[str] | None:
    """The slot's lock file, locked by this process; None if another process holds it."""
    private_file(folder / "lock")
    lock = open(folder / "lock", "a+")
    try:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        return None
    return lock


def default_folder() -> Path:
    from ..facade.base import default_home

    return default_home() / FOLDER_NAME


__all__ = ["ClientJournal", "FOLDER_NAME", "MAX_SLOTS", "default_folder", "private_file", "private_folder",
           "server_key"]
