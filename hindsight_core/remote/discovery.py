"""How other processes find the server that holds a store, or the process that holds it without serving.

A running `hindsight serve` writes `<store>/server.json` (url, pid, token; mode 0600) and removes it on a clean
exit; a record whose pid no longer runs a `serve` command is ignored. When the store is locked and no server is
recorded, `holder` reads /proc/locks to name the process holding the lock.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..store.holder import command_of

RECORD = "server.json"


@dataclass(frozen=True)
class ServerRecord:
    url: str
    pid: int
    token: str | None = None


def record_path(store: Path) -> Path:
    return Path(store) / RECORD


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def write_record(store: Path, record: ServerRecord) -> Path:
    """Write the record atomically, readable by this user only."""
    path = record_path(store)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{RECORD}.{os.getpid()}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        json.dump({"url": record.url, "pid": record.pid, "token": record.token}, out)
    os.replace(temporary, path)
    return path


def read_record(store: Path) -> ServerRecord | None:
    """The running server's record, or None (no record, unreadable, or its process is gone)."""
    try:
        data = json.loads(record_path(store).read_text(encoding="utf-8"))
        record = ServerRecord(str(data["url"]), int(data["pid"]), data.get("token"))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return record if alive(record.pid) and _serving(record.pid) else None


def _serving(pid: int) -> bool:
    """Whether `pid` is still a `serve` process, not a later one that reused the number (unknown: yes)."""
    command = command_of(pid)
    return command == "command unknown" or "serve" in command.split()


def remove_record(store: Path, pid: int) -> None:
    """Remove the record if it is this process's (a newer server's record is left alone)."""
    path = record_path(store)
    try:
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == pid:
            path.unlink()
    except (OSError, ValueError, AttributeError):
        pass


