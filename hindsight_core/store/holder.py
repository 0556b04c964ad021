"""Who holds an embedded store: the process with a lock on its LOCK file (from /proc/locks, on Linux), and its
command line with its secrets hidden, for the message that says which process to stop."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path


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
