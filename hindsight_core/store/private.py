"""A store's files are its owner's alone: folders 0700, files 0600, whatever the process umask.

Every file and folder hindsight makes for a store goes through here. Qdrant Edge creates its segment files with the
umask; the root folder, 0700 from the moment it is made, keeps them out of another user's reach, and `make_private`
sets them 0600/0700 too when a shard is created, compacted or closed, so a copy of the store keeps the modes.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO

FOLDER_MODE = 0o700
FILE_MODE = 0o600


def private_folder(path: Path) -> Path:
    """Make `path` (and the store's folders above it that are missing) owner-only; an existing one is set so."""
    path.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    os.chmod(path, FOLDER_MODE)  # mkdir's mode passes through the umask; chmod does not
    return path


def private_file(path: Path) -> Path:
    """Create `path` empty if it is missing; either way, owner-only (before anything is written to it)."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
    os.chmod(path, FILE_MODE)
    return path


def open_private(path: Path, mode: str = "w") -> IO[str]:
    """`open(path, mode)` for text, the file created owner-only ("w" truncates, "a+" appends and reads)."""
    flags = os.O_CREAT | (os.O_RDWR | os.O_APPEND if mode == "a+" else os.O_WRONLY | os.O_TRUNC)
    handle = os.fdopen(os.open(path, flags, FILE_MODE), mode, encoding="utf-8")
    os.chmod(path, FILE_MODE)
    return handle


def make_private(root: Path) -> None:
    """Set every folder under `root` (itself included) 0700 and every file 0600; what vanishes meanwhile is skipped."""
    for folder, _, files in os.walk(root):
        with contextlib.suppress(FileNotFoundError):
            os.chmod(folder, FOLDER_MODE)
        for name in files:
            with contextlib.suppress(FileNotFoundError):
                path = os.path.join(folder, name)
                if not os.path.islink(path):
                    os.chmod(path, FILE_MODE)
