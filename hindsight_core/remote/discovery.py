"""How other processes find the server that holds a store, or the process that holds it without serving.

A running `hindsight serve` writes `<store>/server.json` (url, pid, token; mode
0600, like the store's own files it is readable only by their owner) and removes
it on a clean exit; a record whose pid is no longer alive (or now runs something
other than a `serve` command) is ignored. When the
store is locked and no server is recorded, `holder` reads /proc/locks to name the
process holding the lock.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

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


@dataclass(frozen=True)
class Holder:
    pid: int
    command: str

    def __str__(self) -> str:
        return f"process {self.pid} ({self.command})"


def holder(store: Path) -> Holder | None:
    """The process holding the store's LOCK file, from /proc/locks (Linux); None if unknown."""
    try:
        stat = os.stat(Path(store) / "LOCK")
        locks = Path("/proc/locks").read_text()
    except OSError:
        return None
    wanted = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}:{stat.st_ino}"
    for line in locks.splitlines():
        parts = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (a waiting lock has "->" before FLOCK)
        if "->" in parts:
            continue
        if len(parts) >= 6 and parts[1] == "FLOCK" and parts[5].lower() == wanted.lower():
            pid = int(parts[4])
            return Holder(pid, command_of(pid))
    return None


def command_of(pid: int) -> str:
    """The process's command line, its secrets redacted (it is shown in messages)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "command unknown"
    return " ".join(redacted([part.decode("utf-8", "replace") for part in raw.split(b"\0") if part])) \
        or "command unknown"


#: an option whose value is a credential: its name holds one of these (--token, --qdrant-api-key, --password, ...)
_SECRET_NAMES = re.compile(r"token|key|secret|passw|auth|credential|cookie", re.IGNORECASE)
#: a URL's user:password@ part
_URL_CREDENTIALS = re.compile(r"(://)[^/@\s]+@")


def redacted(args: list[str]) -> list[str]:
    """A command line fit for a message: the value of every credential option, and a URL's credentials, hidden."""
    out: list[str] = []
    hide_next = False
    for arg in args:
        if hide_next and not arg.startswith("-"):
            out.append("***")
            hide_next = False
            continue
        hide_next = False
        name, eq, _ = arg.partition("=")
        if arg.startswith("-") and _SECRET_NAMES.search(name):
            if eq:
                out.append(f"{name}=***")
            else:
                out.append(arg)
                hide_next = True
            continue
        out.append(_URL_CREDENTIALS.sub(r"\1***@", arg))
    return out
