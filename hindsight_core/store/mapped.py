"""Giving back the pages of a shard's files that the engine read or wrote once: its log, its payload indexes.

When Qdrant Edge loads a shard it reads, through memory maps, the whole of its write-ahead log and the page file of
every payload index of each appendable segment, and every write appends to them; the kernel counts those touched
pages as the process's resident memory until memory runs short, though nothing reads them again until the next load.
Vectors and payloads are written to pages a search reads only a few of; the vectors are given back every so many
changes (`WRITTEN`), not after a load, where a large user's first search would read them back at once.

`page_out` asks the kernel to page such mappings out (`madvise(MADV_PAGEOUT)`, Linux 5.4+): a hint that never
changes what the memory holds, so it is safe whatever else the process is doing. Where the call or
`/proc/self/maps` is missing, it does nothing.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

#: the parts of a shard's folder the engine reads only when it loads the shard (whole, then): the log, and the
#: storage of the payload indexes (which it holds in memory as it builds them from it)
READ_AT_LOAD = ("/wal/", "/payload_index/")
#: ... and what writes add to besides: the payloads' pages (a search reads back only those of the hits it returns)
#: and the vectors' (`vector_storage-*`: a search reads back those it scores)
WRITTEN = READ_AT_LOAD + ("/payload_storage/", "/vector_storage")
_MADV_PAGEOUT = 21

_madvise: Any = None  # the C function once looked up, False where there is none


def _libc_madvise():
    global _madvise
    if _madvise is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)  # the symbols the process has loaded, libc's among them
            call = libc.madvise
            call.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
            call.restype = ctypes.c_int
            _madvise = call
        except (OSError, AttributeError):
            _madvise = False
    return _madvise


def page_out(folder: Path, parts: tuple[str, ...] = READ_AT_LOAD) -> int:
    """Page out this process's mappings of the files under `folder` whose path has one of `parts`;
    returns the bytes of mappings advised (0 where the system offers no way)."""
    madvise = _libc_madvise()
    if not madvise:
        return 0
    prefix = str(Path(folder).resolve()) + "/"
    advised = 0
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            lines = maps.readlines()
    except OSError:
        return 0
    for line in lines:
        fields = line.split(maxsplit=5)
        if len(fields) < 6:
            continue
        path = fields[5].rstrip("\n")
        if not path.startswith(prefix) or not any(part in path[len(prefix) - 1:] for part in parts):
            continue
        start, end = (int(x, 16) for x in fields[0].split("-"))
        if madvise(start, end - start, _MADV_PAGEOUT) == 0:
            advised += end - start
    return advised
