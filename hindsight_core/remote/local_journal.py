"""Where a write queue over `HindsightClient` journals: a private folder on this machine, so a killed client loses
no write it acknowledged.

    <folder>/<key>/<slot>/write-queue.sqlite     (folders 0700, files 0600, whatever the umask)

`folder` is `HINDSIGHT_HOME/client-queues` unless the caller names one; `key`
is a digest of the server's URL and the client's token, so a journal is
replayed to the server it was meant for, with the rights it was written with
(a process with another user's token never reads it). Several processes may
talk to one server at once: each holds one slot (an exclusive lock, released
when the process ends, however it ends), and a process taking a slot first moves
into it what other free slots hold, which a killed process left there.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import stat
from pathlib import Path
from typing import IO

from ..errors import StoreUnavailableError
from ..session.queue_journal import JOURNAL_NAME, QueueJournal

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


class ClientJournal:
    """One slot of the journal folder for (server URL, token), held by this process until `release()`."""

    def __init__(self, url: str, token: str | None, folder: Path) -> None:
        key = hashlib.sha256(f"{url.rstrip('/')}\n{token or ''}".encode()).hexdigest()[:32]
        Path(folder).mkdir(parents=True, exist_ok=True, mode=0o700)  # a folder the caller named keeps its mode
        self.root = private_folder(Path(folder) / key)
        self._lock: IO[str] | None = None
        self.path = self._take_slot()
        self._gather()

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
        """Move what free slots hold (a killed process's writes) into this one, in slot order."""
        mine = QueueJournal(self.path)
        try:
            for folder in sorted(self.root.iterdir(), key=lambda p: (len(p.name), p.name)):
                journal = folder / JOURNAL_NAME
                if folder.name == self.path.parent.name or not journal.exists():
                    continue
                lock = _try_lock(folder)
                if lock is None:  # a live process's own journal
                    continue
                try:
                    theirs = QueueJournal(journal)
                    try:
                        left = theirs.pending()
                        for _, entry in left:
                            mine.add(mine.encode(entry))
                        theirs.remove([seq for seq, _ in left], stored=False)
                    finally:
                        theirs.close()
                finally:
                    lock.close()
        finally:
            mine.close()

    def release(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None


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


__all__ = ["ClientJournal", "FOLDER_NAME", "MAX_SLOTS", "default_folder", "private_file", "private_folder"]
