"""Which files of a store hold some bytes: the search behind every "forgotten means gone from disk" test.

Qdrant Edge pre-allocates its pages (32 MiB a payload page): a store of two memories is some 260 MB of
files, almost all of them holes. Reading them whole costs seconds a search; this reads only the parts a file
system has data in (SEEK_DATA/SEEK_HOLE), each with a needle's length of the zeros around it, so a needle that
starts or ends in zero bytes is still found across the edge of a hole. Where the file system has no holes to
tell, the whole file is data, and the search is the plain one.
"""

from __future__ import annotations

import base64
import errno
import os
from pathlib import Path
from typing import Iterable, Iterator


def _data_parts(path: Path, margin: int) -> Iterator[bytes]:
    """The file's bytes as the parts around its data extents (holes read as zeros, and a hole holds only zeros)."""
    with open(path, "rb") as handle:
        if not hasattr(os, "SEEK_DATA"):
            yield handle.read()
            return
        fd = handle.fileno()
        size = os.fstat(fd).st_size
        offset = 0
        while offset < size:
            try:
                start = os.lseek(fd, offset, os.SEEK_DATA)
            except OSError as exc:
                if exc.errno == errno.ENXIO:  # no data after offset: the rest is a hole
                    return
                handle.seek(offset)  # a file system that cannot tell: the rest, whole
                yield handle.read()
                return
            end = os.lseek(fd, start, os.SEEK_HOLE)
            begin = max(start - margin, 0)
            handle.seek(begin)
            yield handle.read(min(end + margin, size) - begin)
            offset = end


def holds(path: Path, needles: Iterable[bytes]) -> bool:
    """Whether the file holds any of `needles`."""
    needles = [n for n in needles if n]
    margin = max((len(n) for n in needles), default=0)
    return any(needle in part for part in _data_parts(path, margin) for needle in needles)


def files_containing(root: Path, needle: str | bytes, under: str = "") -> list[str]:
    """The files below `root` (whose path contains `under`) holding `needle` (a str as UTF-8)."""
    data = needle.encode() if isinstance(needle, str) else needle
    return sorted(str(p) for p in Path(root).rglob("*") if p.is_file() and under in str(p) and holds(p, [data]))


def encodings(needle: str) -> list[bytes]:
    """`needle` as a file could hold it: UTF-8, UTF-16 (both byte orders), and base64 at each of its 3 offsets."""
    raw = needle.encode()
    forms = [raw, needle.encode("utf-16-le"), needle.encode("utf-16-be")]
    for offset in range(3):  # the part of the base64 text that does not depend on the bytes around it
        encoded = base64.b64encode(b"\0" * offset + raw)
        forms.append(encoded[4 if offset else 0:-4])
    return forms


def files_holding(root: Path, needle: str, under: str = "") -> list[str]:
    """The files below `root` (whose path contains `under`) holding `needle` in any of its `encodings`."""
    forms = encodings(needle)
    return sorted(str(p) for p in Path(root).rglob("*") if p.is_file() and under in str(p) and holds(p, forms))
